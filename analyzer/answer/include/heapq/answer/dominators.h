// heapq dominators: the objects that keep the most memory alive, each with a path from the
// roots; or the top of the dominator tree (schemas/dominators.schema.json).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heapq/answer/common.h"

namespace heapq {

struct DominatorsAnswer {
  InputSummary input;
  uint64_t reachable_count = 0, reachable_bytes = 0;
  uint64_t unreachable_count = 0, unreachable_bytes = 0;  // garbage not yet swept
  struct Node {
    ObjectRef object;
    uint64_t bytes = 0, retained_bytes = 0, retained_count = 0;
  };
  struct Dominator {
    Node node;
    PathRef path;  // from a GC root
  };
  std::vector<Dominator> dominators;  // the largest retained sizes first (none with a tree)

  // --depth: the top of the tree, depth first (each node before its children, the largest
  // first), from the GC roots (depth 0).
  bool tree = false;
  size_t tree_depth = 0;
  struct TreeEntry {
    size_t depth = 0;
    bool roots = false;   // the virtual root: what all GC roots hold
    uint64_t hidden = 0;  // > 0: children left out of the node above ("(N more)")
    Node node;
  };
  std::vector<TreeEntry> entries;
};

}  // namespace heapq
