// Who keeps what alive: the dominator tree of the heap and the retained size of every object.
//
// Object d dominates o when every path from the GC roots to o passes through d: freeing d
// would free o. The tree hangs off a virtual root above all GC roots. An object's retained
// size is the memsize of everything it dominates, itself included. Objects the roots do not
// reach (garbage not yet swept) are counted apart and retain nothing. References held by weak
// maps (HeapGraph::holds_weakly) do not count as paths.
#pragma once

#include <cstdint>
#include <vector>

#include "heapq/heap_graph.h"

namespace heapq {

class HeapDominators {
 public:
  static HeapDominators compute(const HeapGraph& graph);

  // The immediate dominator; the virtual root for objects that only the roots hold, none for
  // unreachable objects.
  ObjectId idom(ObjectId o) const;
  bool reachable(ObjectId o) const { return idom_[o.value()] != kUnreachable; }
  uint64_t retained_bytes(ObjectId o) const { return retained_bytes_[o.value()]; }
  uint32_t retained_count(ObjectId o) const { return retained_count_[o.value()]; }

  uint64_t unreachable_count() const { return unreachable_count_; }
  uint64_t unreachable_bytes() const { return unreachable_bytes_; }

  // Children in the dominator tree of o (o may be the virtual root), largest retained first.
  std::vector<ObjectId> children(ObjectId o) const;
  // The same, in no order: no sort, no copy.
  IdRange<ObjectId> unordered_children(ObjectId o) const {
    build_children();
    return {child_.data() + child_begin_[o.value()], child_.data() + child_begin_[o.value() + 1]};
  }

  // A weight summed over each dominator subtree: out[v] is weight[v] plus the weights of all v
  // dominates. weight has a value per node (the objects, then the virtual root). O(nodes).
  std::vector<uint64_t> subtree_sums(std::vector<uint64_t> weight) const;

  // Retained bytes summed by a key of each object (its class, its site, ...), counting an
  // object only where no object of the same key dominates it, so nothing is counted twice
  // (Eclipse MAT's retained size of a class). key(o) returns a dense index below key_count,
  // or UINT32_MAX to leave o out.
  template <typename KeyFn>
  std::vector<uint64_t> retained_by(const HeapGraph& graph, size_t key_count, KeyFn key) const;

 private:
  static constexpr uint32_t kUnreachable = UINT32_MAX;  // DominatorTree's kNoDominator
  std::vector<uint64_t> retained_by_keys(const HeapGraph& graph, std::vector<uint32_t> keys, size_t key_count) const;
  void build_children() const;

  uint32_t root_ = 0;
  std::vector<uint32_t> idom_;     // by node (objects, then the virtual root)
  std::vector<uint32_t> preorder_; // reachable nodes, each after its dominator
  std::vector<uint64_t> retained_bytes_;
  std::vector<uint32_t> retained_count_;
  uint64_t unreachable_count_ = 0;
  uint64_t unreachable_bytes_ = 0;
  mutable std::vector<uint32_t> child_begin_, child_;  // dominator tree children, built on demand
};

template <typename KeyFn>
std::vector<uint64_t> HeapDominators::retained_by(const HeapGraph& graph, size_t key_count, KeyFn key) const {
  std::vector<uint32_t> keys(graph.object_count());
  for (uint32_t i = 0; i < keys.size(); ++i) keys[i] = key(ObjectId(i));
  return retained_by_keys(graph, std::move(keys), key_count);
}

}  // namespace heapq
