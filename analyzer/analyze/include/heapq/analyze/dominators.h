// Who keeps what alive: the dominator tree of the heap and the retained size of every object.
//
// Object d dominates o when every path from the GC roots to o passes through d: freeing d
// would free o. The tree hangs off a virtual root above all GC roots. An object's retained
// size is the memsize of everything it dominates, itself included. Objects the roots do not
// reach (garbage not yet swept) are counted apart and retain nothing. References held by weak
// maps (HeapGraph::holds_weakly) do not count as paths.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "heapq/model/heap_graph.h"

namespace heapq {

class HeapDominators {
 public:
  static HeapDominators compute(const HeapGraph& graph);

  HeapDominators() = default;
  // Moved, never copied: a copy would share the once-flags of the structures built on demand.
  HeapDominators(HeapDominators&&) = default;
  HeapDominators& operator=(HeapDominators&&) = default;
  HeapDominators(const HeapDominators&) = delete;
  HeapDominators& operator=(const HeapDominators&) = delete;

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
  // The same, in no order: no sort, no copy. The tree's depth-first order lists a node's
  // children each after the subtree of the one before.
  class Children {
   public:
    class iterator {
     public:
      using value_type = ObjectId;
      using difference_type = std::ptrdiff_t;
      iterator() = default;
      iterator(const HeapDominators* d, uint32_t pos) : d_(d), pos_(pos) {}
      ObjectId operator*() const { return ObjectId(d_->order_[pos_]); }
      iterator& operator++() { return pos_ = d_->end_[d_->order_[pos_]], *this; }
      iterator operator++(int) {
        iterator was = *this;
        ++*this;
        return was;
      }
      bool operator==(const iterator& o) const { return pos_ == o.pos_; }

     private:
      const HeapDominators* d_ = nullptr;
      uint32_t pos_ = 0;
    };
    Children(const HeapDominators* d, uint32_t first, uint32_t end)
        : d_(d), first_(first), end_(end) {}
    iterator begin() const { return {d_, first_}; }
    iterator end() const { return {d_, end_}; }

   private:
    const HeapDominators* d_;
    uint32_t first_, end_;
  };
  Children unordered_children(ObjectId o) const;

  // A weight summed over each dominator subtree: out[v] is weight[v] plus the weights of all v
  // dominates. weight has a value per node (the objects, then the virtual root). O(nodes).
  std::vector<uint64_t> subtree_sums(std::vector<uint64_t> weight) const;

  // What the objects of each group dominate, each object counted once (an object inside
  // another member's retained set adds nothing): a lower bound of retained_by, for every key
  // in one walk of the tree, O(nodes). key(o) as for retained_by.
  template <typename KeyFn>
  std::vector<uint64_t> dominated_by(const HeapGraph& graph, size_t key_count, KeyFn key) const;

  // The retained bytes of groups of objects (by class, by site, ...): what freeing every
  // object of the group at once would free, i.e. everything each of whose paths from the roots
  // passes through the group (Eclipse MAT's retained heap of a set). Two objects that share a
  // String only they hold retain it together, though neither dominates it. key(o) returns a
  // dense index below key_count, or UINT32_MAX to leave o out; only the keys in `wanted` are
  // computed (all when it is empty), others are 0. One pass over the references, then for each
  // group a walk of what it references, within its common dominator's subtree (as much as the
  // subtree at worst: O(V + E); ask for the rows you show).
  template <typename KeyFn>
  std::vector<uint64_t> retained_by(const HeapGraph& graph, size_t key_count, KeyFn key,
                                    std::span<const uint32_t> wanted = {}) const;

  // For each group of objects (key(o) as for retained_by), the deepest node that dominates more
  // than half of the group's reachable members with no member above it (from the roots down,
  // the tree is followed while one child holds the majority and is not a member), and how many
  // members it dominates; the virtual root when not even one child of it does (the count is
  // then every reachable member). For every key in one walk of the tree: O(nodes + members *
  // log(depth) * log(members)).
  struct Majority {
    ObjectId node;
    uint64_t members = 0;
  };
  template <typename KeyFn>
  std::vector<Majority> majority_dominators(const HeapGraph& graph, size_t key_count,
                                            KeyFn key) const;

  // The three above with the key of each object given as an array (keys[o]), not copied.
  std::vector<uint64_t> dominated_by_keys(const HeapGraph& graph, const std::vector<uint32_t>& keys,
                                          size_t key_count) const;
  std::vector<uint64_t> retained_by_keys(const HeapGraph& graph, const std::vector<uint32_t>& keys,
                                         size_t key_count,
                                         std::span<const uint32_t> wanted = {}) const;
  std::vector<Majority> majority_dominators_keys(const HeapGraph& graph,
                                                 const std::vector<uint32_t>& keys,
                                                 size_t key_count) const;

 private:
  static constexpr uint32_t kUnreachable = UINT32_MAX;  // DominatorTree's kNoDominator
  // mark: one per node, all 0 (and left so).
  std::optional<uint64_t> retained_by_set(const HeapGraph& graph, std::span<const uint32_t> members,
                                          const std::vector<uint32_t>& in_degree,
                                          std::vector<uint32_t>& mark) const;
  void retained_by_walk(const HeapGraph& graph, std::span<const uint32_t> groups,
                        const std::vector<uint32_t>& keys, const std::vector<uint32_t>& slot,
                        std::vector<uint64_t>& freed) const;
  void build_ranges() const;

  uint32_t root_ = 0;
  std::vector<uint32_t> idom_;  // by node (objects, then the virtual root)
  std::vector<uint64_t> retained_bytes_;
  std::vector<uint32_t> retained_count_;
  uint64_t unreachable_count_ = 0;
  uint64_t unreachable_bytes_ = 0;
  // The reachable nodes, each after its dominator. build_ranges() makes it the dominator tree's
  // depth-first order, in which node v's subtree is the nodes at positions [pre_[v], end_[v])
  // (pre_ none, end_ 0 for unreachable nodes): once, whichever thread asks first (the const
  // methods may be called from several threads at a time: report's tables are computed side by
  // side), and before anything else reads order_.
  mutable std::vector<uint32_t> order_;
  mutable std::vector<uint32_t> pre_, end_;
  mutable std::shared_ptr<std::once_flag> ranges_once_ = std::make_shared<std::once_flag>();
};

template <typename KeyFn>
std::vector<uint64_t> HeapDominators::retained_by(const HeapGraph& graph, size_t key_count,
                                                  KeyFn key,
                                                  std::span<const uint32_t> wanted) const {
  std::vector<uint32_t> keys(graph.object_count());
  for (uint32_t i = 0; i < keys.size(); ++i) keys[i] = key(ObjectId(i));
  return retained_by_keys(graph, keys, key_count, wanted);
}

template <typename KeyFn>
std::vector<HeapDominators::Majority> HeapDominators::majority_dominators(const HeapGraph& graph,
                                                                          size_t key_count,
                                                                          KeyFn key) const {
  std::vector<uint32_t> keys(graph.object_count());
  for (uint32_t i = 0; i < keys.size(); ++i) keys[i] = key(ObjectId(i));
  return majority_dominators_keys(graph, keys, key_count);
}

template <typename KeyFn>
std::vector<uint64_t> HeapDominators::dominated_by(const HeapGraph& graph, size_t key_count,
                                                   KeyFn key) const {
  std::vector<uint32_t> keys(graph.object_count());
  for (uint32_t i = 0; i < keys.size(); ++i) keys[i] = key(ObjectId(i));
  return dominated_by_keys(graph, keys, key_count);
}

}  // namespace heapq
