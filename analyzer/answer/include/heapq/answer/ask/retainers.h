// Asking for the answer of answer/retainers.h: the options and the calls that make it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/answer/inputs.h"
#include "heapq/answer/retainers.h"
#include "heapq/base/result.h"

namespace heapq {

struct RetainersOptions {
  size_t paths = 3;  // SIZE_MAX: all
  size_t max_depth = 64;
  bool referrers = false;
  std::string site;  // --site FILE:LINE: a class's instances allocated there only
};

Result<RetainersAnswer> answer_retainers(const std::string& input, const std::string& target,
                                         const RetainersOptions& options,
                                         const InputOptions& inputs);
// The same for a dump already loaded.
Result<RetainersAnswer> retainers_answer(const LoadedDump& dump, const std::string& target,
                                         const RetainersOptions& options);

}  // namespace heapq
