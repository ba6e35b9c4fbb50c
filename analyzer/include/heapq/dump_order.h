// When dumps were written, and so in what order, as their META records say: one reading for
// every command that takes a process's dumps over time (leaks, diff, report, fleet).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "heapq/load.h"

namespace heapq {

// Microseconds since 1970 of an ISO 8601 time with a UTC offset as memprof writes it
// ("2026-11-24T10:00:00+00:00", "2026-11-27T10:00:00.123456Z"; "Z" is UTC; digits past the
// microsecond are dropped); none when the text is not one.
std::optional<int64_t> epoch_microseconds(std::string_view time);

// The order dumps of one process were written in, oldest first: by time, then by GC count
// (dumps of one second), then as given; all as given when one of them (null: no META) does not
// say when it was written. Indexes into dumps.
std::vector<size_t> written_order(const std::vector<const DumpOrigin*>& dumps);

}  // namespace heapq
