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

struct ReportOptions {
  size_t top = 50;        // rows of each table
  size_t leaks = 5;       // leaks shown (one dump: 0 looks for none)
  size_t nodes = 2000;    // objects of the icicle
  bool as_given = false;  // --as-given
};

Result<ReportAnswer> answer_report(const std::vector<std::string>& paths,
                                   const ReportOptions& options, const InputOptions& inputs);

}  // namespace heapq
