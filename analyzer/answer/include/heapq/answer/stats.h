// heapq stats: the objects of a dump and their memory, in all, by type and by class
// (schemas/stats.schema.json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/analyze/groupings.h"
#include "heapq/answer/common.h"

namespace heapq {

struct StatsAnswer {
  InputSummary input;
  uint64_t objects = 0;
  uint64_t bytes = 0;
  struct TypeRow {
    std::string type;
    uint64_t count = 0, bytes = 0;
  };
  std::vector<TypeRow> by_type;  // every type present, largest first
  uint64_t classes = 0;          // classes present; by_class lists the first --top of them
  struct ClassRow {
    std::string cls;
    uint64_t count = 0, bytes = 0;
    std::optional<uint64_t> retained_bytes;  // with --retained
  };
  std::vector<ClassRow> by_class;
};

}  // namespace heapq
