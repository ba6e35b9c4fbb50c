// Immediate dominators of a directed graph given in CSR form, and the retained sizes they imply.
//
// Generic over dense uint32 node ids, so that it knows nothing of heaps: the caller adds a virtual
// root pointing at every GC root and passes the object graph's forward CSR arrays.
//
//   edge_begin: n+1 offsets      edge_target: node ids        root
//   [0 2 3 3 ...]                [1 2 | 2 | ...]              0
//          \                         |
//           DominatorTree: idom(v) per node, preorder() = reachable nodes, root first,
//           every node after its immediate dominator; compute_retained() folds sizes
//           up that order backwards in one pass.
//
// Lengauer–Tarjan's semidominators with semi-NCA's idom step, falling back to the paper's
// buckets when that step would go quadratic: O(E log N). Iterative throughout: a million-node
// chain needs no call stack.
//
// Memory: the peak working set is max(24n, 4n + 16r + 4p) bytes for n nodes, r of them
// reachable, and p predecessor entries (edges leaving reachable nodes, less self-loops and
// edges into the root), the 4n + 4r bytes that the result keeps included; the input CSR is
// only read. At 3 edges per node that is 32 bytes per node. Node counts up to 2^31-1 (one
// bit of each predecessor entry is a tag).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace heapq {

// The idom of a node that the root does not reach (garbage not yet swept): it has no dominator.
inline constexpr uint32_t kNoDominator = UINT32_MAX;

class DominatorTree {
 public:
  // Throws std::invalid_argument when the CSR arrays are inconsistent or root >= node_count
  // (a programmer error: the model builds them), std::length_error beyond 2^31-1 nodes.
  static DominatorTree compute(uint32_t node_count, std::span<const uint32_t> edge_begin,
                               std::span<const uint32_t> edge_target, uint32_t root);

  uint32_t root() const { return root_; }
  uint32_t node_count() const { return static_cast<uint32_t>(idom_.size()); }
  uint32_t reachable_count() const { return static_cast<uint32_t>(preorder_.size()); }

  // The root is its own immediate dominator; unreachable nodes have kNoDominator.
  uint32_t idom(uint32_t node) const { return idom_[node]; }
  bool reachable(uint32_t node) const { return idom_[node] != kNoDominator; }
  std::span<const uint32_t> idoms() const { return idom_; }

  // Reachable nodes in depth-first preorder: root first, each node after its immediate
  // dominator (a dominator is a DFS ancestor), so walking it backwards visits every node before
  // its dominator: a post-order of the dominator tree without building child lists.
  std::span<const uint32_t> preorder() const { return preorder_; }

  // Its arrays, moved out to a caller that keeps them (no copy beside them): the tree is left
  // empty.
  struct Arrays {
    std::vector<uint32_t> idom, preorder;
  };
  Arrays take_arrays() && { return {std::move(idom_), std::move(preorder_)}; }

 private:
  DominatorTree(uint32_t root, std::vector<uint32_t> idom, std::vector<uint32_t> preorder)
      : root_(root), idom_(std::move(idom)), preorder_(std::move(preorder)) {}

  uint32_t root_;
  std::vector<uint32_t> idom_;      // by node id
  std::vector<uint32_t> preorder_;  // by DFS number
};

// Retained size of v: the total size of the nodes v dominates, v included; what freeing v would
// free. Unreachable nodes retain 0 and add to nothing. Counts fit in 32 bits because ids do.
struct RetainedSizes {
  std::vector<uint64_t> bytes;  // by node id
  std::vector<uint32_t> count;  // by node id
};

// node_size has one entry per node id. One backward pass over preorder(), no recursion.
// Throws std::invalid_argument when node_size.size() != tree.node_count().
RetainedSizes compute_retained(const DominatorTree& tree, std::span<const uint64_t> node_size);
RetainedSizes compute_retained(const DominatorTree& tree, std::span<const uint32_t> node_size);

}  // namespace heapq
