// What grows across the processes of a fleet: per process (host, pid, start), the groups (class,
// allocation site) whose counts grow from dump to dump; per group, in how many processes, how
// fast, and where the most.
#pragma once

#include <cstddef>

#include "heapq/analyze/fleet_growth.h"
#include "heapq/model/fleet_data.h"

namespace heapq {

// Processes are (host, pid, start); each one's dumps in the order they were written
// (written_order). A group (class, site) grows in a process when its count never falls from one
// dump to the next and ends higher; its rate is over the time from the first dump to the last,
// none when that is unknown or nil. Lists the `top` groups.
FleetGrowth analyze_fleet(const FleetData& data, size_t top);

}  // namespace heapq
