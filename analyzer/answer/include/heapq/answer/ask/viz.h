// Asking for the answer of answer/viz.h: the options and the calls that make it.
#pragma once

#include <string>
#include <vector>

#include "heapq/answer/inputs.h"
#include "heapq/answer/viz.h"
#include "heapq/base/result.h"

namespace heapq {

struct VizOptions {
  bool dominators = false;  // the dominator tree; else TARGET's retention tree
  size_t max_boxes = 40;
  size_t depth = 12;      // steps of a path; with dominators, levels
  size_t top = 6;         // with dominators: children per box
  size_t leak = 0;        // 1, 2, ...: the retention tree of that leak, as heapq leaks numbers them
  bool as_given = false;  // with leak: --as-given
  std::string site;       // --site FILE:LINE: a class's instances allocated there only
};

// target: an object's address (0x...) or a class name; unused with options.dominators.
Result<VizAnswer> answer_viz(const std::string& input, const std::string& target,
                             const VizOptions& options, const InputOptions& inputs);
// The retention tree of leak options.leak of the dumps heapq leaks would read.
Result<VizAnswer> answer_viz_leak(const std::vector<std::string>& paths, const VizOptions& options,
                                  const InputOptions& inputs);
// The same for a dump already loaded.
Result<VizAnswer> viz_answer(const LoadedDump& dump, const std::string& target,
                             const VizOptions& options);

}  // namespace heapq
