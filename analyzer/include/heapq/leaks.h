// Leak suspects: what grows across dumps of one process, which line allocated it, and which
// object holds it; or, from one dump, where memory accumulates (Eclipse MAT's leak suspects).
//
// Several dumps (the three-dump technique): objects born after the first dump and alive in the
// last, grouped by class and allocation site; the groups that gained objects from the first dump
// to the last are ranked by how steadily they grew (between every two dumps; up to the last one;
// only once, as a warm-up does) and then by the memory they hold. The holder is the object
// deepest in the dominator tree that still dominates most of the group (the Hash of a cache,
// the Array of a class variable), or, when none does, the object that references most of it.
//
// One dump: an object retaining more than a threshold of the heap, followed down the dominator
// tree while one child keeps most of its parent's retained size (the accumulation point); the
// suspect is its children's biggest class, with their count and top allocation sites.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "heapq/dominators.h"
#include "heapq/dump_match.h"
#include "heapq/heap_graph.h"

namespace heapq {

struct LeakSuspect {
  GroupTable::Group group;       // class and allocation site
  uint64_t count = 0;            // objects of the group: born after the first dump and alive in the
  uint64_t bytes = 0;            // last (one dump: the accumulation point's children of that class)
  uint64_t retained_bytes = 0;   // what freeing all of them would free
  std::vector<uint64_t> growth;  // objects of the group in each dump
  bool growing = false;          // more in the last dump than in the one before it
  bool steady = false;           // more in each dump than in the one before
  ObjectId holder;               // in the last dump; none when nothing holds most of the group
  uint64_t holder_share = 0;     // objects of the group the holder dominates or references
  ObjectId example;              // one object of the group
  std::vector<ObjectId> members;  // the objects counted (what a picture of the suspect draws)
  std::vector<std::pair<GroupTable::Group, uint64_t>> sites;  // one dump: the top sites, counted
};

struct LeakOptions {
  size_t top = 10;  // suspects to return
  uint64_t min_growth =
      10;  // several dumps: objects a group gains from the first to the last at least
  double threshold = 0.10;  // one dump: the share of the heap a suspect retains at least
  double dominant = 0.80;   // one dump: the share of its parent a child keeps to be followed
};

struct LeakReport {
  std::vector<LeakSuspect> suspects;  // most likely first
  MatchMethod match = MatchMethod::kAddress;
  uint64_t born = 0;  // objects of the last dump born after the first dump
  uint64_t groups_growing =
      0;                    // suspects still growing (more in the last dump than the one before)
  uint64_t heap_bytes = 0;  // what the roots of the last dump retain (one dump: less a
                            // profiler's own objects, which retain profiler_bytes)
  uint64_t profiler_bytes = 0;
  // One dump: no object retains the threshold; the suspects are the biggest accumulation points
  // all the same (three at most), below it.
  bool below_threshold = false;
};

// dumps: the same process over time, oldest first (at least two); only the last one needs its
// references. dom: the last one's.
LeakReport find_growing_leaks(const std::vector<const HeapGraph*>& dumps, const HeapDominators& dom,
                              const LeakOptions& options);

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
