// Heap totals: object counts and bytes (memsize) by type and by class.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "heapq/analyze/groupings.h"
#include "heapq/model/heap_graph.h"

namespace heapq {

struct TypeTotals {
  ObjectType type;
  uint64_t count = 0;
  uint64_t bytes = 0;
};

struct ClassTotals {
  ClassId cls;
  uint64_t count = 0;
  uint64_t bytes = 0;
  std::optional<uint64_t> retained_bytes;  // set once dominators are computed
};

struct HeapStats {
  uint64_t objects = 0;
  uint64_t bytes = 0;
  std::vector<TypeTotals> by_type;    // every type present, largest first
  std::vector<ClassTotals> by_class;  // every class present, largest first
};

class HeapDominators;

// Counts and bytes by type and class, without retained sizes.
HeapStats compute_stats(const HeapGraph& graph, SortKey sort = SortKey::kBytes);

// With dominators, the first retained_rows classes (in the order by_class lists them) also get
// their retained bytes: what freeing all their instances at once would free. Each costs a walk
// of part of the graph (HeapDominators::retained_by), so the caller says how many rows it shows.
HeapStats compute_stats(const HeapGraph& graph, SortKey sort, const HeapDominators* dominators,
                        size_t retained_rows);

}  // namespace heapq
