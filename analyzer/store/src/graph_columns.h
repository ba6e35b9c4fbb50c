// The graph_columns table: a HeapGraph's object and reference arrays as blobs (see
// schemas/store.sql); StoreReader::read_columns reads them back.
#pragma once

#include <cstdint>

#include "heapq/model/heap_graph.h"
#include "table_rows.h"

namespace heapq::store {

Status write_graph_columns(RowTarget& to, int64_t dump, const HeapGraph& graph);

// The class edges heapq added to an ObjectSpace dump's references (class_edges), which the
// refs rows leave out.
Status write_class_edges(RowTarget& to, int64_t dump, const HeapGraph& graph);

}  // namespace heapq::store
