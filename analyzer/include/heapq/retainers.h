// Why is this object alive: paths of references from the GC roots to it, and its referrers.
//
// A path is what keeps its last object alive: a root category, then each object reached and
// the name of the reference that reached it (when the dump names references). References held
// by weak maps are never part of a path: they do not retain.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heapq/heap_graph.h"

namespace heapq {

struct PathStep {
  ObjectId object;
  StringId edge;  // the name of the reference from the previous step; none when unnamed
};

struct RetentionPath {
  StringId root;  // the GC root category holding steps.front()
  std::vector<PathStep> steps;
};

// The objects that reference each object (the reverse CSR), built when a command needs it.
class Referrers {
 public:
  static Referrers build(const HeapGraph& graph);
  IdRange<ObjectId> of(ObjectId o) const {
    return {source_.data() + begin_[o.value()], source_.data() + begin_[o.value() + 1]};
  }

 private:
  std::vector<uint32_t> begin_;   // object_count() + 2 offsets
  std::vector<uint32_t> source_;  // referrer ids, the virtual root included
};

// Up to max_paths shortest paths from the roots to target, each through a different object
// held directly by a root, shortest first; none longer than max_depth steps. Breadth-first
// over the referrers from the target: O(objects + references).
std::vector<RetentionPath> shortest_paths(const HeapGraph& graph, const Referrers& referrers,
                                          ObjectId target, size_t max_paths, size_t max_depth);

// The shortest path from the roots to every object, from one breadth-first search.
class ShortestPathTree {
 public:
  static ShortestPathTree compute(const HeapGraph& graph);
  bool reachable(ObjectId o) const { return parent_[o.value()] != kNone; }
  // References from the virtual root to o along the shortest path; UINT32_MAX when unreachable.
  uint32_t distance(ObjectId o) const { return distance_[o.value()]; }
  // The path to o; empty when the roots do not reach o.
  RetentionPath path_to(const HeapGraph& graph, ObjectId o) const;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> parent_;    // by node; the virtual root for root-held objects
  std::vector<uint32_t> distance_;  // by node
};

// Paths to many objects merged by their shape: the same root, classes and reference names
// (indexes and hash keys generalized to "[]"), as Eclipse MAT's "merge shortest paths".
struct PathGroup {
  RetentionPath example;  // the path to the first object of the group
  uint64_t count = 0;
  uint64_t bytes = 0;  // memsize of the objects the paths lead to
};

std::vector<PathGroup> merge_paths(const HeapGraph& graph, const ShortestPathTree& tree,
                                   const std::vector<ObjectId>& targets, uint64_t* unreachable);

// The name of the reference from one object to another (the first such reference).
StringId edge_name(const HeapGraph& graph, ObjectId from, ObjectId to);

// How an object reads in a path: its class, or "class Foo" / "module Bar" for classes.
std::string describe(const HeapGraph& graph, ObjectId o);

}  // namespace heapq
