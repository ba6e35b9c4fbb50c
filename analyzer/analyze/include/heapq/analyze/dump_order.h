// When dumps were written, and so in what order, as their META records say: one reading for
// every command that takes a process's dumps over time (leaks, diff, report, fleet).
#pragma once

#include <cstdint>
#include <vector>

#include "heapq/read/dump_time.h"
#include "heapq/read/load_report.h"

namespace heapq {

// The order dumps of one process were written in, oldest first: by time, then by GC count
// (dumps of one second), then as given; all as given when one of them (null: no META) does not
// say when it was written. Indexes into dumps.
std::vector<size_t> written_order(const std::vector<const DumpOrigin*>& dumps);

}  // namespace heapq
