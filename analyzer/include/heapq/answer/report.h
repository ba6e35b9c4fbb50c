// heapq report: one HTML page made of the answers of stats, sites and leaks for the last dump,
// with a retention tree per suspect and an icicle of the dominator tree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
  struct SuspectPicture {
    viz::Picture picture;  // the suspect's retention tree
    bool holder_drawn = false;
  };
  std::vector<SuspectPicture> pictures;  // one per leaks suspect
  std::vector<viz::IcicleNode> icicle;   // the dominator tree's top, parents first
};

struct ReportOptions {
  size_t top = 50;        // rows of each table
  size_t suspects = 5;    // leak suspects (one dump: 0 looks for none)
  size_t nodes = 2000;    // objects of the icicle
  bool as_given = false;  // --as-given
};

Result<ReportAnswer> answer_report(const std::vector<std::string>& paths,
                                   const ReportOptions& options, const InputOptions& inputs);

}  // namespace heapq
