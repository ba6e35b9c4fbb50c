// Why is this object alive: paths of references from the GC roots to it, and its referrers.
//
// A path is what keeps its last object alive: a root category, then each object reached and
// the name of the reference that reached it (when the dump names references). References held
// by weak maps are never part of a path: they do not retain. Every function here is linear in
// objects + references (plus the length of the paths it returns).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "heapq/model/heap_graph.h"
#include "heapq/model/packed_column.h"

namespace heapq {

struct PathStep {
  ObjectId object;
  StringId edge;  // the name of the reference from the previous step; none when unnamed
};

struct RetentionPath {
  StringId root;       // the GC root category holding steps.front()
  StringId root_name;  // what in that category holds it (RootEdge::name), where the dump says
  std::vector<PathStep> steps;
  // A long path keeps its first and last steps: `elided` steps are left out after
  // steps[elided_after - 1]. elided == 0: the path is whole.
  size_t elided_after = 0;
  uint64_t elided = 0;
  size_t length() const { return steps.size() + elided; }
};

// The objects that reference each object (the reverse CSR), built when a command needs it.
class Referrers {
 public:
  static Referrers build(const HeapGraph& graph);
  IdRange<ObjectId> of(ObjectId o) const {
    return {source_.data() + begin_[o.value()], source_.data() + begin_[o.value() + 1]};
  }
  // The reference (an index into graph.edge_targets()) by which of(o)[i] references o.
  std::span<const uint32_t> edges_of(ObjectId o) const {
    return {edge_.data() + begin_[o.value()], edge_.data() + begin_[o.value() + 1]};
  }

 private:
  std::vector<uint32_t> begin_;   // object_count() + 2 offsets
  std::vector<uint32_t> source_;  // referrer ids, the virtual root included
  std::vector<uint32_t> edge_;    // parallel to source_
};

// The name of a reference (an index into graph.edge_targets()): "@ivar", "[3]", or for a
// reference of the virtual root its GC root category.
StringId reference_label(const HeapGraph& graph, uint32_t edge);
// A root reference's own name (RootEdge::name); none for other references and unnamed roots.
StringId root_reference_name(const HeapGraph& graph, uint32_t edge);

// Whether a GC root category is a transient one (see ShortestPathTree).
bool is_transient_root(std::string_view category);

// The VM's caches of the methods and constants code used last, and method scopes (a cref names
// the module a method is defined in): classes whose references own nothing.
bool is_vm_cache_class(std::string_view class_name);

// The shortest path from the roots to every object, from a breadth-first search that keeps,
// for each object, the reference that reached it. O(objects + references).
//
// Paths start at a durable root where one reaches the object: a transient root (a thread's
// machine stack, "machine_context", which Ruby scans conservatively so that a stale word
// counts, or what the threads of a forked dump's parent held, "fork_parent:thread") only
// starts the path of an object no durable root reaches; so does a Thread (its stack and
// fiber locals), though a durable root reaches the Thread itself. A worker thread that is using
// a cache when the dump is taken would otherwise hide the constant that holds it.
class ShortestPathTree {
 public:
  // `through_not`: an object the search reaches but never goes through, so that the paths to
  // its referrers do not run through it (none: every object).
  static ShortestPathTree compute(const HeapGraph& graph, ObjectId through_not = ObjectId::none());
  bool reachable(ObjectId o) const { return parent_[o.value()] != kNone; }
  // References from the virtual root to o along the shortest path; UINT32_MAX when unreachable.
  uint32_t distance(ObjectId o) const { return distance_[o.value()] - 1; }
  // Whether only a transient root reaches o.
  bool from_transient_root(ObjectId o) const { return transient_[o.value()]; }
  // The object that reached o (the virtual root for root-held objects); none when unreachable.
  ObjectId parent(ObjectId o) const {
    return parent_[o.value()] == kNone ? ObjectId::none() : ObjectId(parent_[o.value()]);
  }
  // The name of the reference that reached o (for a root-held object: its root category).
  StringId edge_into(const HeapGraph& graph, ObjectId o) const {
    return reference_label(graph, via_[o.value()]);
  }
  // The reference (edge index) that reached o.
  uint32_t via(ObjectId o) const { return via_[o.value()]; }
  // The path to o, with at most max_steps steps (its middle elided); empty when unreachable.
  // With `from`, an object on that path: its part from `from` on, with no root.
  RetentionPath path_to(const HeapGraph& graph, ObjectId o, size_t max_steps = SIZE_MAX,
                        ObjectId from = ObjectId::none()) const;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> parent_;  // by node; the virtual root for root-held objects
  std::vector<uint32_t> via_;     // by node: the reference (edge index) from the parent
  PackedColumn distance_;  // by node: the distance + 1, 0 when unreachable (as narrow as it can)
  std::vector<bool> transient_;  // by node: reached from a transient root only
};

// Up to max_paths shortest paths from the roots to target, each through a different holder
// (the object that references target directly), shortest first (those from transient roots
// last); a path longer than max_steps
// keeps its first and last steps. O(objects + references + referrers log referrers).
std::vector<RetentionPath> holder_paths(const HeapGraph& graph, const Referrers& referrers,
                                        ObjectId target, size_t max_paths, size_t max_steps);

// The shortest paths to many objects merged by their shape into a tree, as Eclipse MAT's
// "merge shortest paths": two paths share a node while they have the same root category,
// classes and reference names (indexes and hash keys generalized to "[]"). A step that repeats
// the one before it (a linked list's "@next") folds into it, and paths deeper than max_depth
// shapes end in their node at that depth, so the tree stays as small as the heap's variety.
struct ShapeNode {
  static constexpr uint32_t kNoParent = UINT32_MAX;
  uint32_t parent = kNoParent;  // a root-held shape has no parent
  ObjectId example;             // the first object met with this shape
  StringId edge;                // the reference into the example (a root's category at the top)
  bool repeats = false;         // a step here repeats (a chain folded into one node)
  bool deeper = false;          // paths run deeper than max_depth and end here
  // Every object of the shape is reached by the example's reference name (["sql.active_record"],
  // not [0], [1], ...): a picture can show the name whole.
  bool one_edge = true;
  uint64_t count = 0, bytes = 0;              // targets whose path ends here
  uint64_t total_count = 0, total_bytes = 0;  // targets whose path ends here or below
  ObjectId nearest_target;  // of the targets ending here, the one nearest the roots (none: no
                            // target ends here)
};

struct MergedPaths {
  std::vector<ShapeNode> nodes;       // parents before children
  std::vector<uint32_t> groups;       // nodes where targets end, most targets first
  std::vector<uint32_t> target_node;  // by target, in order: its node (kNoParent: unreachable)
  uint64_t unreachable = 0;           // targets the roots do not reach
};

MergedPaths merge_paths(const HeapGraph& graph, const ShortestPathTree& tree,
                        const std::vector<ObjectId>& targets, size_t max_depth);

class HeapDominators;
// The same for the dominator tree, every object the roots reach a target: each object's path is
// the chain of objects that keep it alive (its dominators), each reached by its dominator's own
// reference to it where there is one (unnamed otherwise). A node's targets' bytes summed over
// its subtree are what the node's objects retain. O(objects + references).
MergedPaths merge_dominator_paths(const HeapGraph& graph, const HeapDominators& dominators,
                                  size_t max_depth);

// How an object reads in a path: its class, "class Foo" / "module Bar" for classes, "symbol
// table (hidden Array)" for Ruby's symbol table.
std::string describe(const HeapGraph& graph, ObjectId o);

// Whether o is Ruby's symbol table (symbol.c's Array of Symbols' names), which ObjectSpace's
// dumps do not name: a hidden Array of hidden Arrays that hold Strings (the names, fstrings)
// and Symbols only, judged by a sample of them (the first two, 32 members each).
bool is_symbol_table(const HeapGraph& graph, ObjectId o);

// A reference name as paths merge it: indexes and hash keys ("[3]", "[\"k\"]") read "[]".
std::string_view generalized_edge(std::string_view edge);

}  // namespace heapq
