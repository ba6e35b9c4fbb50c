// heapq diff: what changed between two dumps of one process, by class, by allocation site and
// class, or by gem (schemas/diff.schema.json).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heapq/analyze/groupings.h"
#include "heapq/answer/common.h"

namespace heapq {

struct DiffAnswer {
  InputSummary input;            // AFTER
  InputSummary before;           // BEFORE
  GroupBy by = GroupBy::kClass;  // the rows text shows
  MatchMethod match = MatchMethod::kAddress;
  uint64_t born = 0, freed = 0;
  uint64_t objects_before = 0, objects_after = 0;
  std::vector<std::string> warnings;  // what makes born and freed unsure
  struct Row {
    DiffRow change;           // its group's class, site (by gem: the gem) and counts
    std::string gem_name;     // by gem: the gem's name and version apart
    std::string gem_version;  // (empty: none)
  };
  struct Rows {
    uint64_t total = 0;     // rows with a change; `rows` lists the first --top
    std::vector<Row> rows;  // the largest growth in bytes first
  };
  Rows by_class, by_site, by_gem;  // by_gem only with --by gem
};

}  // namespace heapq
