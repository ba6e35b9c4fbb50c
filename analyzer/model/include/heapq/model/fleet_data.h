// A fleet's dumps (and sampled profiles) as a store gives them: what the roots reach in each dump
// of each process, by class and allocation site. The store fills it; the fleet's analysis reads it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heapq/read/load_report.h"

namespace heapq {

// One dump as the store's dumps table has it, or one sampled profile as its profiles table has
// it (period not 0: its counts are estimates, each sampled object counted `period` times).
struct FleetDump {
  int64_t id = 0;
  uint64_t period = 0;
  DumpOrigin origin;  // its META (pid 0: ObjectSpace's); time: when taken, else when loaded
  std::string app;    // empty: none
  uint64_t objects = 0, bytes = 0;  // what the roots reach
};

// The objects the roots reach in one dump, of one class at one allocation site.
struct FleetCount {
  std::string class_name, file, method;  // file empty: no allocation site
  uint32_t line = 0;
  uint64_t count = 0, bytes = 0;
};

struct FleetData {
  std::vector<FleetDump> dumps;
  // Parallel to dumps; empty for dumps of no process and of processes of one dump (they cannot
  // show growth).
  std::vector<std::vector<FleetCount>> counts;
};

}  // namespace heapq
