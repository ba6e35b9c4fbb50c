// heapq stats: the objects of a dump and their memory, in all, by type and by class
// (schemas/stats.schema.json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/stats.h"
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

struct StatsOptions {
  size_t top = 20;  // SIZE_MAX: every class
  SortKey sort = SortKey::kBytes;
  bool retained = false;  // computes the dominator tree: slower, more memory
};

Result<StatsAnswer> answer_stats(const std::string& input, const StatsOptions& options,
                                 const InputOptions& inputs);
// The same for a dump already loaded (dominators: for retained sizes, or null).
StatsAnswer stats_answer(const LoadedDump& dump, const HeapDominators* dominators,
                         const StatsOptions& options);

}  // namespace heapq
