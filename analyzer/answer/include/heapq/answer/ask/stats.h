// Asking for the answer of answer/stats.h: the options and the calls that make it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/stats.h"
#include "heapq/answer/inputs.h"
#include "heapq/answer/stats.h"
#include "heapq/base/result.h"

namespace heapq {

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
