// Leaks: what grows across dumps of one process, which lines allocated it, and which object
// holds it; or, from one dump, where memory accumulates (Eclipse MAT's leak suspects).
//
// Several dumps (the three-dump technique): objects born after the first dump and alive in the
// last, grouped by class and allocation site; the groups that gained objects from the first
// dump to the last are growing. Each group's holder is the object deepest in the dominator tree
// that still dominates most of it (the Hash of a cache, the Array of a class variable), or, when
// none does, the object that references most of it. Groups with one holder, or whose holder is
// itself an object of another growing group (a captured Request held by its Proc's
// environment), are one leak: the leaks are ranked by how steadily they grew (between every two
// dumps; up to the last one; only once, as a warm-up does) and then by the memory they hold,
// after those of the program: leaks of VM caches alone (IMEMO) come last, and so do those
// that finalizers of dead objects refer to (pending_finalizers): the next GC may undo them. What a
// profiler's own objects hold (profiler_owned) is never a leak nor part of the program's heap.
//
// One dump: an object retaining more than a threshold of the heap, followed down the dominator
// tree while one child keeps most of its parent's retained size (the accumulation point); the
// leak is what it holds: its children, grouped by class and allocation site.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/dump_match.h"
#include "heapq/analyze/groupings.h"
#include "heapq/model/heap_graph.h"

namespace heapq {

// What a leak holds of one group (class, allocation site).
struct LeakGroup {
  ObjectGroup group;
  uint64_t count = 0;  // several dumps: its objects born after the first dump and alive in the
  uint64_t bytes = 0;  // last; one dump: the accumulation point's children of the group
  uint64_t retained_bytes = 0;   // what they hold alone: each dominates (a lower bound of the
                                 // set's retained size; one dump: its exact retained size)
  std::vector<uint64_t> growth;  // objects of the group in each dump (one dump: count)
  bool growing = false;          // more in the last dump than in the one before it
  bool steady = false;           // more in each dump than in the one before
  ObjectId example;              // one object of the group
  // memprof's allocation stacks: the application's line most of the group's objects were
  // allocated from (HeapGraph::app_site), and how many were; none without stacks.
  SiteId app_site;
  uint64_t app_count = 0;
};

// What it counts (LeakCounts), and its objects by id.
struct Leak : LeakCounts {
  ObjectId holder;  // in the last dump; none when nothing holds most of the leak
  // No object holds as many as a GC root does directly: its category (finalizers).
  StringId holder_root;
  std::vector<LeakGroup> groups;  // what it holds, retaining the most first
  std::vector<ObjectId> members;  // every group's objects (what a picture of the leak draws)
};

// What the analyses take; heapq leaks' options (LeaksOptions) are these and what its answer
// takes, each default written here once.
struct LeakOptions {
  size_t top = 5;            // leaks to return; SIZE_MAX: every one
  uint64_t min_growth = 10;  // several dumps: objects a group gains from the first to the last
  double threshold = 0.10;   // one dump: the share of the heap a leak retains at least
  double dominant = 0.80;    // one dump: the share of its parent a child keeps to be followed
};

struct LeakReport {
  std::vector<Leak> leaks;  // most likely first
  MatchMethod match = MatchMethod::kAddress;
  bool by_address = true;       // ObjectMatcher::by_address, first dump to last
  uint64_t born = 0;            // objects of the last dump born after the first dump
  uint64_t groups_growing = 0;  // groups still growing (more in the last dump than the one before)
  uint64_t groups = 0;          // groups that gained min_growth objects, in all the leaks
  uint64_t found = 0;           // leaks, before top cut them
  uint64_t heap_bytes = 0;      // what the roots of the last dump retain, less what the
  uint64_t profiler_bytes = 0;  // profilers' own objects retain (profiler_owned)
  // One dump: no object retains the threshold; the leaks are the biggest accumulation points
  // all the same (three at most), below it.
  bool below_threshold = false;
};

// dumps: the same process over time, oldest first (at least two); only the last one needs its
// references. dom: the last one's. reachable: by dump but the last, what its roots reach (by
// object; null or empty: every object counts), for the counts per dump: garbage not yet swept
// is not growth.
LeakReport find_growing_leaks(const std::vector<const HeapGraph*>& dumps, const HeapDominators& dom,
                              const LeakOptions& options,
                              const std::vector<const std::vector<bool>*>& reachable = {});

// The profilers' own objects (ObjectSpace's allocation tracer, memprof's tracker, memprof's
// modules Memprof and Memprof::*) and everything they alone keep alive, by object: the
// profiler's overhead, not the program's memory. "Alone": no durable root reaches it but
// through them (a thread's stack, the forking parent's included, owns nothing: memprof's code
// runs there when it dumps). O(objects + references).
std::vector<bool> profiler_owned(const HeapGraph& g, const HeapDominators& dom);

// One dump: where its memory accumulates. When no object retains the threshold, the three
// biggest accumulation points all the same, marked below_threshold.
LeakReport find_accumulations(const HeapGraph& graph, const HeapDominators& dom,
                              const LeakOptions& options);

// The object that holds most of a set (in_set: by object; its reachable objects count): the
// deepest node of the dominator tree that dominates more than half of it, with no member above
// it; else the object that references most members. Returns the holder (none when nothing
// references a member) and how many members it dominates or references. O(objects + references).
std::pair<ObjectId, uint64_t> find_holder(const HeapGraph& g, const HeapDominators& dom,
                                          const std::vector<bool>& in_set);

// The same for many sets at once, in the same time: group_of[o] is o's set (below groups), or
// UINT32_MAX; the answer is by set.
std::vector<std::pair<ObjectId, uint64_t>> find_holders(const HeapGraph& g,
                                                        const HeapDominators& dom,
                                                        const std::vector<uint32_t>& group_of,
                                                        size_t groups);

}  // namespace heapq
