// heapq viz: a picture of why objects are alive (a retention tree) or of the top of the
// dominator tree.
#pragma once

#include <string>

#include "heapq/answer/picture.h"
#include "heapq/inputs.h"

namespace heapq {

struct VizAnswer {
  viz::Picture picture;
};

struct VizOptions {
  bool dominators = false;  // the dominator tree; else TARGET's retention tree
  size_t max_boxes = 40;
  size_t depth = 12;  // steps of a path; with dominators, levels
  size_t top = 6;     // with dominators: children per box
};

// target: an object's address (0x...) or a class name; unused with options.dominators.
Result<VizAnswer> answer_viz(const std::string& input, const std::string& target,
                             const VizOptions& options, const InputOptions& inputs);
// The same for a dump already loaded.
Result<VizAnswer> viz_answer(const LoadedDump& dump, const std::string& target,
                             const VizOptions& options);

}  // namespace heapq
