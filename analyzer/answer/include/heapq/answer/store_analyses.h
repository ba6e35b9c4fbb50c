// The analyses a store keeps of each object (dominators, retained sizes, distances from the
// roots), computed for `heapq load` on another core while the store writes the other rows.
#pragma once

#include "heapq/model/heap_graph.h"
#include "heapq/store/store.h"

namespace heapq {

// Starts the dominator tree and the shortest paths of `graph`, which must outlive the result.
PendingAnalyses analyses_for_store(const HeapGraph& graph);

}  // namespace heapq
