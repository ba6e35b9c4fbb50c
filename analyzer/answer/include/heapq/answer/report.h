// heapq report: one HTML page made of the answers of stats, sites and leaks for the last dump,
// with a retention tree per leak and an icicle of the dominator tree; from a server's store, what
// grows across its processes (heapq fleet's answer).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/answer/fleet.h"
#include "heapq/answer/leaks.h"
#include "heapq/answer/picture.h"
#include "heapq/answer/sites.h"
#include "heapq/answer/stats.h"

namespace heapq {

struct ReportAnswer {
  StatsAnswer stats;  // the last dump, retained sizes for its rows
  SitesAnswer sites;  // by site, retained sizes for its rows
  LeaksAnswer leaks;  // several dumps: what grows; one: where memory accumulates
  uint64_t reachable_objects = 0, reachable_bytes = 0;
  uint64_t unreachable_objects = 0, unreachable_bytes = 0;
  struct LeakPicture {
    viz::Picture picture;  // the leak's retention tree, what it holds as the leaves
    bool holder_drawn = false;
  };
  std::vector<LeakPicture> pictures;    // one per leak
  std::vector<viz::IcicleNode> icicle;  // the dominator tree's top, parents first
  std::optional<FleetAnswer> fleet;     // a server's store: what grows across its processes
};

}  // namespace heapq
