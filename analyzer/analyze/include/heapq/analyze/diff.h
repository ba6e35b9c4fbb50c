// What changed between two dumps of one process: by class, allocation site or gem, how many
// objects and bytes before and after, how many were born since the first and freed by the second.
#pragma once

#include <cstdint>
#include <vector>

#include "heapq/analyze/dump_match.h"
#include "heapq/model/heap_graph.h"

namespace heapq {

// Matches the objects of two dumps once (O(objects)); rows are then grouped at will. Every
// object of a dump counts, as heapq stats counts them.
class DumpDiff {
 public:
  DumpDiff(const HeapGraph& before, const HeapGraph& after);
  MatchMethod match() const { return match_; }
  bool by_address() const { return by_address_; }  // ObjectMatcher::by_address
  uint64_t born() const { return born_; }
  uint64_t freed() const { return freed_; }
  // Rows that changed (in count or bytes, or with objects born or freed), the largest growth
  // in bytes first (then in count, then by name).
  std::vector<DiffRow> by(GroupBy grouping) const;

 private:
  const HeapGraph& before_;
  const HeapGraph& after_;
  MatchMethod match_;
  bool by_address_ = true;
  std::vector<bool> born_in_after_;
  uint64_t born_ = 0, freed_ = 0;
};

}  // namespace heapq
