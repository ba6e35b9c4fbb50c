// The graph_columns table: a HeapGraph's object and reference arrays as blobs (see
// schemas/store.sql); StoreReader::read_columns reads them back.
#pragma once

#include <cstdint>

#include "heapq/heap_graph.h"
#include "store/sqlite_db.h"

namespace heapq::store {

Status write_graph_columns(Database& db, int64_t dump, const HeapGraph& graph);

// The class edges heapq added to an ObjectSpace dump's references (class_edges), which the
// refs rows leave out.
Status write_class_edges(Database& db, int64_t dump, const HeapGraph& graph);

}  // namespace heapq::store
