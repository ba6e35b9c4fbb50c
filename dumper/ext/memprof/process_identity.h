// Which process this is across a fleet: its machine and when it started (a pid alone is reused),
// as a dump's META record and a profile's comments say it.
#pragma once

#include <sys/types.h>

#include <string>

namespace memprof {

// The machine's name; empty when it has none.
std::string HostName();

// When process `pid` started, ISO 8601 in UTC, from Linux's /proc (its start in clock ticks
// after boot, and the boot time); empty where /proc does not say.
std::string ProcessStarted(pid_t pid);

}  // namespace memprof
