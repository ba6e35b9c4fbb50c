// Answers as profiles: values by stack, for pprof (profile.proto) and folded stacks.
//
//   heapq sites --format pprof       allocation stacks (memprof's, else the one site), per class
//   heapq retainers CLASS --format … each instance's shortest path from the roots as its stack
//   heapq dominators --format …      the dominator tree: each object under what keeps it alive
//
// A profile's stacks share their prefixes: they are a tree of nodes, each one frame under its
// parent, so that a heap of millions of objects makes a profile as big as its variety.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "heapq/answer/common.h"
#include "heapq/answer/retainers.h"
#include "heapq/answer/sites.h"

namespace heapq {

struct ProfileAnswer {
  InputSummary input;
  std::string title;  // "heapq sites", "heapq retainers Order", ...: the profile's comment
  struct ValueType {
    std::string type, unit;  // "objects", "count"; "space", "bytes"
  };
  // The values of each sample, in this order; viewers show the last one first.
  std::vector<ValueType> types;
  struct Frame {
    std::string name;  // the function: a method, or a class and the reference into it
    std::string file;  // where a site is; empty for retention frames
    uint32_t line = 0;
  };
  std::vector<Frame> frames;
  // The stack tree: node i is frames[node_frame[i]] called from node_parent[i] (kNoParent: a
  // stack's outermost frame). Parents come before their children.
  static constexpr uint32_t kNoParent = UINT32_MAX;
  std::vector<uint32_t> node_frame, node_parent;
  struct Sample {
    uint32_t node = 0;    // the stack's innermost frame
    uint32_t labels = 0;  // index into label_sets
  };
  std::vector<Sample> samples;
  std::vector<int64_t> values;  // samples.size() * types.size(), sample by sample
  // Label sets of samples ({"class", "Order"}, {"type", "OBJECT"}); [0] is the empty set. In
  // folded stacks, a set's first label reads as one more, innermost, frame.
  std::vector<std::vector<std::pair<std::string, std::string>>> label_sets{{}};
};

}  // namespace heapq
