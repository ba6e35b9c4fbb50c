// StoreReader: rebuilds a HeapGraph from a store's tables, columns read in id order straight
// into the graph's arrays; objects and references are read at once, on two connections.
#include "read_dump.h"

#include <new>
#include <thread>

namespace heapq {

using store::RowCursor;

namespace {

StringId string_or_none(const RowCursor& s, int col) {
  return s.is_null(col) ? StringId::none() : StringId(static_cast<uint32_t>(s.int64(col)));
}

// Whether a column's value can be a 32-bit id (none's value is not one).
bool fits_id(int64_t v) {
  return v >= 0 && v < UINT32_MAX;
}

// Objects read from rows go to the builder this many at a time.
constexpr size_t kObjectBatch = 4096;

}  // namespace

Result<HeapGraph> StoreReader::read(LoadReport& report) {
  if (Status s = read_report(report); !s) return s.error();
  if (report.objects >= UINT32_MAX) return damaged_store("dumps.objects");  // ids are 32-bit
  objects_ = report.objects;
  if (names_) b_.name_references();
  HEAPQ_RETURN_IF_ERROR(read_tables());
  HEAPQ_ASSIGN_OR_RETURN(const bool from_columns, read_columns());
  if (!from_columns) {
    // Not there, or not what the tables say: the rows are the truth, in a builder of their own.
    b_ = GraphBuilder(app_root_);
    if (names_) b_.name_references();
    no_class_ = ClassId::none();
    top_stack_ = 0;
    HEAPQ_RETURN_IF_ERROR(read_tables());
    HEAPQ_RETURN_IF_ERROR(read_rows());
  }
  HEAPQ_RETURN_IF_ERROR(read_roots());
  HEAPQ_RETURN_IF_ERROR(read_records_and_weak());
  HEAPQ_RETURN_IF_ERROR(read_stacks());
  HEAPQ_RETURN_IF_ERROR(read_block_sites());
  auto graph = b_.build();
  if (!graph) return damaged_store(graph.error().message);
  return graph;
}

Status StoreReader::read_tables() {
  Status s = read_strings();
  return s ? read_classes_and_sites() : s;
}

// Objects on this connection while another reads the references.
Status StoreReader::read_rows() {
  HEAPQ_RETURN_IF_ERROR(count_objects());
  ReferenceBlock refs;
  RunStarts starts;
  Status got_refs = Ok{};
  std::thread edges([&] {
    try {
      got_refs = references_ ? read_refs(refs, starts) : Ok{};
    } catch (const std::bad_alloc&) {  // it may not leave the thread
      got_refs = out_of_memory();
    }
  });
  Status s = read_objects();
  edges.join();
  if (s) s = got_refs;
  if (s && references_) s = add_refs(refs, starts);
  return s;
}
Status StoreReader::read_report(LoadReport& r) {
  auto rows = db_.select(
      "SELECT format, lines, objects, roots, shapes, skipped_records, bad_lines, repaired_strings,"
      " dangling_references, dangling_classes, duplicate_addresses, damage, missing_end,"
      " end_records, edges, named_refs, pid, dumped_at, gc_count, host, started_at FROM dumps"
      " WHERE id = ?",
      dump_);
  if (!rows) return rows.error();
  auto found = (*rows)->next();
  if (!found) return found.error();
  if (!*found) return damaged_store("no dump " + std::to_string(dump_));
  const RowCursor* st = rows->get();
  r.format = st->text(0) == "memprof" ? DumpFormat::kMemprof : DumpFormat::kObjectSpace;
  uint64_t* counts[] = {&r.lines,
                        &r.objects,
                        &r.roots,
                        &r.shapes,
                        &r.skipped_records,
                        &r.bad_lines,
                        &r.repaired_strings,
                        &r.dangling_references,
                        &r.dangling_classes,
                        &r.duplicate_addresses};
  for (int i = 0; i < 10; ++i) *counts[i] = static_cast<uint64_t>(st->int64(i + 1));
  r.damage = std::string(st->text(11));
  r.missing_end = st->int64(12) != 0;
  r.end_records = st->is_null(13) ? -1 : st->int64(13);
  // Everything read from a store is checked as if a stranger wrote it (heapq sql --write).
  const int64_t edges = st->int64(14);
  edge_count_ = edges < 0 || edges > UINT32_MAX ? 0 : static_cast<size_t>(edges);
  names_ = st->int64(15) != 0;
  r.origin.pid = st->is_null(16) || st->int64(16) < 0 ? 0 : static_cast<uint64_t>(st->int64(16));
  r.origin.time = std::string(st->text(17));
  r.origin.gc_count = st->is_null(18) || st->int64(18) < 0 ? -1 : st->int64(18);
  r.origin.host = std::string(st->text(19));
  r.origin.started = std::string(st->text(20));
  rows->reset();  // one query at a time on a server's connection
  return each_row(
      db_.select("SELECT kind, line, message FROM dump_issues WHERE dump_id = ? ORDER BY kind, seq",
                 dump_),
      [&](const RowCursor& row) -> Status {
        auto& to = row.text(0) == "bad_line" ? r.first_bad_lines : r.first_repaired_strings;
        to.push_back({static_cast<uint64_t>(row.int64(1)), std::string(row.text(2))});
        return Ok{};
      });
}

Status StoreReader::read_strings() {
  return each_row(db_.select("SELECT id, value FROM strings WHERE dump_id = ? ORDER BY id", dump_),
                  [&](const RowCursor& row) -> Status {
                    // Interned in id order, so each string gets its id back.
                    if (b_.intern(row.text(1)).value() != row.int64(0))
                      return damaged_store("strings");
                    return Ok{};
                  });
}

Status StoreReader::read_classes_and_sites() {
  Status s = each_row(
      db_.select("SELECT address, object, name_id FROM classes WHERE dump_id = ? ORDER BY id",
                 dump_),
      [&](const RowCursor& row) -> Status {
        if (!valid_string(row.int64(2))) return damaged_store("classes.name_id");
        if (!row.is_null(1) && !fits_id(row.int64(1))) return damaged_store("classes.object");
        ObjectId object =
            row.is_null(1) ? ObjectId::none() : ObjectId(static_cast<uint32_t>(row.int64(1)));
        ClassInfo c{static_cast<uint64_t>(row.int64(0)), object, string_or_none(row, 2)};
        // The store keeps the name the model gave a profiler's own objects; the flag follows it.
        c.profiler = c.address == 0 && b_.graph().string(c.name).ends_with(kProfilerSuffix);
        b_.add_class(c);  // its object is checked once every object is in
        return Ok{};
      });
  if (!s) return s;
  return each_row(
      db_.select("SELECT file_id, line, method_id FROM sites WHERE dump_id = ? ORDER BY id", dump_),
      [&](const RowCursor& row) -> Status {
        if (!valid_string(row.int64(0)) || (!row.is_null(2) && !valid_string(row.int64(2))))
          return damaged_store("sites");
        // NULL: no line (the model's 0).
        const int64_t line = row.is_null(1) ? 0 : row.int64(1);
        if (line < 0 || line > UINT32_MAX) return damaged_store("sites.line");
        auto site = b_.add_site(
            {string_or_none(row, 0), static_cast<uint32_t>(line), string_or_none(row, 2)});
        return site ? Status(Ok{}) : damaged_store("sites");
      });
}

ClassId StoreReader::no_class() {
  if (!no_class_.valid()) no_class_ = b_.add_class({0, ObjectId::none(), b_.intern("(no class)")});
  return no_class_;
}

Status StoreReader::count_objects() {
  auto st = db_.select("SELECT max(id) FROM objects WHERE dump_id = ?", dump_);
  if (!st) return st.error();
  auto row = (*st)->next();
  if (!row) return row.error();
  if (!*row) return damaged_store("objects");
  const int64_t last = (*st)->is_null(0) ? -1 : (*st)->int64(0);
  if (last < -1 || last >= INT32_MAX) return damaged_store("objects.id");
  object_count_ = last + 1;
  return Ok{};
}

// The objects' rows, a batch at a time; the builder checks their classes and sites.
Status StoreReader::read_objects() {
  std::vector<ObjectFields> batch;
  int64_t next = 0;  // the id the next row must have
  Status s = each_row(
      db_.select("SELECT id, address, type, class_id, memsize, site_id, generation, stack_id"
                 " FROM objects WHERE dump_id = ? ORDER BY id",
                 dump_),
      [&](const RowCursor& row) -> Status {
        const int64_t id = row.int64(0), type = row.int64(2), cls = row.int64(3);
        const int64_t stack = row.is_null(7) ? 0 : row.int64(7);
        if (id != next++ || type < 0 || type >= kObjectTypeCount ||
            (!row.is_null(3) && !fits_id(cls)) || (!row.is_null(5) && !fits_id(row.int64(5))))
          return damaged_store("objects (row " + std::to_string(id) + ")");
        if (stack < 0 || stack >= INT32_MAX) return damaged_store("objects.stack_id");
        ObjectFields& o = batch.emplace_back();
        o.address = static_cast<uint64_t>(row.int64(1));
        o.type = static_cast<ObjectType>(type);
        // NULL: no class, as schemas/store.sql has it.
        o.class_id = row.is_null(3) ? no_class() : ClassId(static_cast<uint32_t>(cls));
        o.memsize = static_cast<uint64_t>(row.int64(4));
        o.site = row.is_null(5) ? SiteId::none() : SiteId(static_cast<uint32_t>(row.int64(5)));
        o.generation = static_cast<uint32_t>(row.int64(6));
        o.stack = static_cast<uint32_t>(stack);
        top_stack_ = std::max(top_stack_, o.stack);
        return batch.size() < kObjectBatch ? Status(Ok{}) : add_objects(batch);
      });
  return s ? add_objects(batch) : s;
}

Status StoreReader::add_objects(std::vector<ObjectFields>& batch) {
  Status s = b_.add_objects(batch);
  batch.clear();
  return s ? s : damaged_store("objects: " + s.error().message);
}

Status StoreReader::read_refs(ReferenceBlock& refs, RunStarts& starts) {
  auto db = db_.another();
  if (!db) return db.error();
  const size_t hint = std::min<size_t>(edge_count_, size_t(1) << 26);
  refs.targets.reserve(hint);
  if (names_) refs.names.reserve(hint);
  return each_row(
      (*db)->select(
          "SELECT from_id, to_id, name_id FROM refs WHERE dump_id = ? ORDER BY from_id, seq",
          dump_),
      [&](const RowCursor& row) -> Status {
        const int64_t from = row.int64(0);
        if (from < (starts.empty() ? 0 : int64_t{starts.back().first}) || from >= object_count_ ||
            row.int64(1) < 0 || row.int64(1) >= object_count_ || refs.targets.size() >= UINT32_MAX)
          return damaged_store("refs");
        if (starts.empty() || starts.back().first != from)
          starts.emplace_back(static_cast<uint32_t>(from),
                              static_cast<uint32_t>(refs.targets.size()));
        refs.targets.push_back(static_cast<uint32_t>(row.int64(1)));
        if (!names_) return Ok{};
        if (!row.is_null(2) && !fits_id(row.int64(2))) return damaged_store("refs.name_id");
        refs.names.push_back(string_or_none(row, 2));
        return Ok{};
      });
}

// Completes the block read from rows once the objects are counted, with its class edges.
Status StoreReader::add_refs(ReferenceBlock& refs, const RunStarts& starts) {
  const size_t n = b_.graph().object_count();
  if (!starts.empty() && starts.back().first >= n)
    return damaged_store("refs from objects that do not exist");
  // An object's run starts where the next object with references starts its own.
  refs.begin.assign(n + 1, static_cast<uint32_t>(refs.targets.size()));
  size_t o = 0;
  for (const auto& [from, start] : starts)
    while (o <= from) refs.begin[o++] = start;
  HEAPQ_RETURN_IF_ERROR(read_class_edges(refs, true));
  Status s = b_.add_references(std::move(refs));
  return s ? s : damaged_store("refs: " + s.error().message);
}

Status StoreReader::read_roots() {
  return each_row(
      db_.select("SELECT category_id, target, name_id FROM roots WHERE dump_id = ? ORDER BY seq",
                 dump_),
      [&](const RowCursor& row) -> Status {
        if (!valid_string(row.int64(0)) || !fits_id(row.int64(1)) ||
            (!row.is_null(2) && !valid_string(row.int64(2))))
          return damaged_store("roots");
        Status s =
            b_.add_root({StringId(static_cast<uint32_t>(row.int64(0))),
                         ObjectId(static_cast<uint32_t>(row.int64(1))), string_or_none(row, 2)});
        return s ? s : damaged_store("roots");
      });
}

Status StoreReader::read_records_and_weak() {
  Status s =
      each_row(db_.select("SELECT object, name_id FROM class_records WHERE dump_id = ?", dump_),
               [&](const RowCursor& row) -> Status {
                 if (!fits_id(row.int64(0)) || !fits_id(row.int64(1)) ||
                     !b_.add_record_name(ObjectId(static_cast<uint32_t>(row.int64(0))),
                                         StringId(static_cast<uint32_t>(row.int64(1)))))
                   return damaged_store("class_records");
                 return Ok{};
               });
  if (!s) return s;
  return each_row(db_.select("SELECT object FROM weak_holders WHERE dump_id = ?", dump_),
                  [&](const RowCursor& row) -> Status {
                    if (!fits_id(row.int64(0)) ||
                        !b_.add_weak_holder(ObjectId(static_cast<uint32_t>(row.int64(0)))))
                      return damaged_store("weak_holders");
                    return Ok{};
                  });
}

// memprof's allocation stacks (objects' numbers, read with the objects; frames from
// stack_frames): every number up to the largest an object has is a stack, those with no rows
// without frames, so that each keeps its number.
Status StoreReader::read_stacks() {
  if (top_stack_ == 0) return Ok{};
  std::vector<SiteId> frames;
  uint32_t stack = 0;  // the stack whose frames are read; those before it are in the builder
  // A number is justified by the file: every stack has a frame's row, but for a few empty ones
  // (at most memprof's 65,536 cached stacks) and those of objects. A stranger's larger number
  // would make that many stacks.
  uint64_t rows = 0;
  auto justified = [&](uint64_t id) {
    return id <= rows + b_.graph().object_count() + (uint64_t(1) << 16);
  };
  auto define_up_to = [&](uint32_t next) -> Status {
    for (; stack < next; ++stack, frames.clear())
      if (stack > 0) HEAPQ_RETURN_IF_ERROR(b_.add_stack(stack, frames));
    return Ok{};
  };
  Status s =
      each_row(db_.select("SELECT stack_id, depth, site_id FROM stack_frames WHERE dump_id = ?"
                          " ORDER BY stack_id, depth",
                          dump_),
               [&](const RowCursor& row) -> Status {
                 const int64_t id = row.int64(0), site = row.int64(2);
                 ++rows;
                 if (id < stack || id < 1 || id > top_stack_ || !justified(id) || !fits_id(site) ||
                     !define_up_to(static_cast<uint32_t>(id)))
                   return damaged_store("stack_frames");
                 frames.push_back(SiteId(static_cast<uint32_t>(site)));
                 return Ok{};
               });
  if (s && !justified(top_stack_)) s = damaged_store("stack_frames");
  if (s) s = define_up_to(top_stack_ + 1);
  return s ? s : damaged_store("stack_frames");
}

// The Procs' block sites (memprof's).
Status StoreReader::read_block_sites() {
  return each_row(db_.select("SELECT object, site_id FROM block_sites WHERE dump_id = ?", dump_),
                  [&](const RowCursor& row) -> Status {
                    const int64_t object = row.int64(0), site = row.int64(1);
                    if (!fits_id(object) || !fits_id(site) ||
                        !b_.add_block_site(ObjectId(static_cast<uint32_t>(object)),
                                           SiteId(static_cast<uint32_t>(site))))
                      return damaged_store("block_sites");
                    return Ok{};
                  });
}

}  // namespace heapq
