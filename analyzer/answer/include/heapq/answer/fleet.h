// heapq fleet: what grows across the processes of a store (schemas/fleet.schema.json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/analyze/fleet_growth.h"

namespace heapq {

struct FleetOptions {
  std::string app;    // only the dumps load --app tagged so; empty: all
  std::string since;  // only dumps taken at or after this ISO 8601 time; empty: all
  size_t top = 10;    // groups to list
};

// The fleet's growth (FleetGrowth), and which store and options it was read with.
struct FleetAnswer : FleetGrowth {
  std::string store;  // its name (a URL without its password)
  FleetOptions options;
};

}  // namespace heapq
