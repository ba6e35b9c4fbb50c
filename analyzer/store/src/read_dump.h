// StoreReader: rebuilds one dump's HeapGraph from a store, without parsing any JSON.
#pragma once

#include <string>
#include <utility>

#include "heapq/model/graph_builder.h"
#include "heapq/read/load_report.h"
#include "row_source.h"

namespace heapq {

class StoreReader {
 public:
  // Without references, the objects' references are left out (roots are kept).
  // app_root: as LoadOptions::app_root, for the stacks' app frames.
  StoreReader(store::RowSource& db, int64_t dump, bool references = true, std::string app_root = {})
      : db_(db),
        dump_(dump),
        references_(references),
        app_root_(std::move(app_root)),
        b_(app_root_) {}

  Result<HeapGraph> read(LoadReport& report);

 private:
  Status read_report(LoadReport& r);
  Status read_tables();  // strings, classes and sites
  Status read_strings();
  Status read_classes_and_sites();
  // The objects and their references from graph_columns (graph_columns.cc); false when they
  // are not there, or not what the tables say, and the rows must be read instead.
  Result<bool> read_columns();
  bool add_object_columns(ObjectColumns& columns);
  Status read_rows();
  Status count_objects();
  Status read_objects();
  Status add_objects(std::vector<ObjectFields>& batch);
  // The references' rows, on a connection of their own: their targets and names, and where
  // each source object's run starts, as (object, first target) in object order. Only what the
  // rows hold is kept: objects without references, however many a stranger's ids imply, cost
  // nothing until the objects read tell how many there are.
  using RunStarts = std::vector<std::pair<uint32_t, uint32_t>>;
  Status read_refs(ReferenceBlock& refs, RunStarts& starts);
  // Completes the block read from rows (its begin, from the runs' starts) and adds it.
  Status add_refs(ReferenceBlock& refs, const RunStarts& starts);
  // The class edges heapq added, into refs (graph_columns.cc).
  Status read_class_edges(ReferenceBlock& refs, bool edges_from_rows);
  // An error for a store whose rows contradict each other (edited with heapq sql --write).
  Error damaged_store(const std::string& what) const {
    return bad_input(db_.name() + ": damaged store: " + what);
  }
  Status read_roots();
  Status read_records_and_weak();
  Status read_stacks();
  Status read_block_sites();

  // Steps through a query's rows, calling fn(row) for each; errors become values.
  template <typename Fn>
  static Status each_row(Result<std::unique_ptr<store::RowCursor>> rows, Fn fn) {
    if (!rows) return rows.error();
    for (;;) {
      auto more = (*rows)->next();
      if (!more) return more.error();
      if (!*more) return Ok{};
      if (Status s = fn(**rows); !s) return s;
    }
  }
  bool valid_string(int64_t v) const {
    return v >= 0 && static_cast<uint64_t>(v) < b_.graph().strings().size();
  }

  store::RowSource& db_;
  const int64_t dump_;
  const bool references_;
  const std::string app_root_;
  GraphBuilder b_;
  size_t edge_count_ = 0;     // dumps.edges: a hint for reserving, never trusted further
  uint64_t objects_ = 0;      // dumps.objects: the size every per-object column must have
  int64_t object_count_ = 0;  // 1 + the largest objects.id of the dump
  uint32_t top_stack_ = 0;    // the largest stack number of an object
  ClassId no_class_;          // "(no class)", for objects whose class_id is NULL
  ClassId no_class();
  bool names_ = false;  // the dump names its references: every reference has a name
};

}  // namespace heapq
