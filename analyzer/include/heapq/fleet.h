// A fleet in one store: what each dump of each process holds, by class and allocation site,
// read from a store (a PostgreSQL server, or a SQLite file), and what grows across processes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heapq/answer/fleet.h"
#include "heapq/load.h"
#include "heapq/result.h"

namespace heapq {

// One dump as the store's dumps table has it.
struct FleetDump {
  int64_t id = 0;
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

// The dumps that pass the options' filters (app, since) and their counts, from the store
// (schemas/store.sql): one query per dump.
Result<FleetData> read_fleet(const std::string& store, const FleetOptions& options);

// Processes are (host, pid, start); each one's dumps in the order they were written
// (written_order). A group (class, site) grows in a process when its count never falls from one
// dump to the next and ends higher; its rate is over the time from the first dump to the last,
// none when that is unknown or nil.
FleetAnswer analyze_fleet(const FleetData& data, const FleetOptions& options);

}  // namespace heapq
