// Asking for the answer of answer/dominators.h: the options and the calls that make it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heapq/analyze/dominators.h"
#include "heapq/answer/dominators.h"
#include "heapq/answer/inputs.h"
#include "heapq/base/result.h"

namespace heapq {

struct DominatorsOptions {
  size_t top = 10;  // objects listed; with a tree, children per node (SIZE_MAX: all)
  bool tree = false;
  size_t depth = 0;  // levels of the tree
};

Result<DominatorsAnswer> answer_dominators(const std::string& input,
                                           const DominatorsOptions& options,
                                           const InputOptions& inputs);
// The same for a dump already loaded.
DominatorsAnswer dominators_answer(const LoadedDump& dump, const DominatorsOptions& options);

}  // namespace heapq
