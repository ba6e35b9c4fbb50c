// Asking for the answer of answer/diff.h: the options and the calls that make it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heapq/analyze/diff.h"
#include "heapq/answer/diff.h"
#include "heapq/answer/inputs.h"
#include "heapq/base/result.h"

namespace heapq {

struct DiffOptions {
  GroupBy by = GroupBy::kClass;
  size_t top = 20;  // SIZE_MAX: all
  bool as_given = false;
};

// paths: BEFORE and AFTER, or one store (its first and last dump).
Result<DiffAnswer> answer_diff(const std::vector<std::string>& paths, const DiffOptions& options,
                               const InputOptions& inputs);
// The same for dumps already loaded.
Result<DiffAnswer> diff_answer(const LoadedDump& before, const LoadedDump& after,
                               const DiffOptions& options);

}  // namespace heapq
