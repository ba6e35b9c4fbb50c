// StoreReader: rebuilds a HeapGraph from a store's tables, columns read in id order straight
// into the graph's arrays; objects and references are read at once, on two connections.
#include "store_reader.h"

#include <new>
#include <thread>

#include "heapq/read/address_hash.h"
#include "heapq/read/source_paths.h"
#include "heapq/store/store.h"

namespace heapq {

using store::RowCursor;
using store::RowSource;

namespace {

StringId string_or_none(const RowCursor& s, int col) {
  return s.is_null(col) ? StringId::none() : StringId(static_cast<uint32_t>(s.int64(col)));
}

// An error for a store whose rows contradict each other (edited with heapq sql --write).
Error damaged(const RowSource& db, const std::string& what) {
  return bad_input(db.name() + ": damaged store: " + what);
}

}  // namespace

Result<HeapGraph> StoreReader::read(LoadReport& report) {
  if (Status s = read_report(report); !s) return s.error();
  if (report.objects >= UINT32_MAX) return damaged(db_, "dumps.objects");  // ids are 32-bit
  objects_ = report.objects;
  Status s = read_strings();
  if (s) s = read_classes_and_sites();
  if (!s) return s.error();
  auto columns = read_columns();
  if (!columns) return columns.error();
  if (!*columns) {
    if (s = count_objects(); !s) return s.error();
    // References on a second connection while this one reads the objects.
    Status refs = Ok{};
    std::thread edges([&] {
      try {
        refs = references_ ? read_refs() : Ok{};
      } catch (const std::bad_alloc&) {  // it may not leave the thread
        refs = out_of_memory();
      }
    });
    s = read_objects();
    edges.join();
    if (s) s = refs;
    if (s) s = check_refs();
  }
  if (s && references_) s = read_class_edges(!*columns);
  if (s && !references_) g_.added_class_edge_.assign(g_.address_.size(), false);
  if (s) s = read_roots();
  if (s) s = read_records_and_weak();
  if (s) s = read_stacks_and_blocks();
  if (!s) return s.error();
  g_.drop_empty_fields();
  return std::move(g_);
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
  if (!*found) return damaged(db_, "no dump " + std::to_string(dump_));
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
                    if (g_.strings_.intern(row.text(1)).value() != row.int64(0))
                      return damaged(db_, "strings");
                    return Ok{};
                  });
}

Status StoreReader::read_classes_and_sites() {
  Status s = each_row(
      db_.select("SELECT address, object, name_id FROM classes WHERE dump_id = ? ORDER BY id",
                 dump_),
      [&](const RowCursor& row) -> Status {
        if (!valid_string(row.int64(2))) return damaged(db_, "classes.name_id");
        ObjectId object =
            row.is_null(1) ? ObjectId::none() : ObjectId(static_cast<uint32_t>(row.int64(1)));
        ClassInfo c{static_cast<uint64_t>(row.int64(0)), object, string_or_none(row, 2)};
        // The store keeps the name the model gave a profiler's own objects; the flag follows it.
        c.profiler = c.address == 0 && g_.string(c.name).ends_with(kProfilerSuffix);
        g_.classes_.push_back(c);
        return Ok{};
      });
  if (!s) return s;
  return each_row(
      db_.select("SELECT file_id, line, method_id FROM sites WHERE dump_id = ? ORDER BY id", dump_),
      [&](const RowCursor& row) -> Status {
        if (!valid_string(row.int64(0)) || (!row.is_null(2) && !valid_string(row.int64(2))))
          return damaged(db_, "sites");
        // NULL: no line (the model's 0).
        const int64_t line = row.is_null(1) ? 0 : row.int64(1);
        if (line < 0 || line > UINT32_MAX) return damaged(db_, "sites.line");
        g_.sites_.push_back(
            {string_or_none(row, 0), static_cast<uint32_t>(line), string_or_none(row, 2)});
        return Ok{};
      });
}

ClassId StoreReader::no_class() {
  if (!no_class_.valid()) {
    no_class_ = ClassId(static_cast<uint32_t>(g_.classes_.size()));
    g_.classes_.push_back({0, ObjectId::none(), g_.strings_.intern("(no class)")});
  }
  return no_class_;
}

Status StoreReader::count_objects() {
  auto st = db_.select("SELECT max(id) FROM objects WHERE dump_id = ?", dump_);
  if (!st) return st.error();
  auto row = (*st)->next();
  if (!row) return row.error();
  if (!*row) return damaged(db_, "objects");
  const int64_t last = (*st)->is_null(0) ? -1 : (*st)->int64(0);
  if (last < -1 || last >= INT32_MAX) return damaged(db_, "objects.id");
  object_count_ = last + 1;
  return Ok{};
}

Status StoreReader::read_objects() {
  const int64_t classes = static_cast<int64_t>(g_.classes_.size()),
                sites = static_cast<int64_t>(g_.sites_.size());
  return each_row(
      db_.select("SELECT id, address, type, class_id, memsize, site_id, generation, stack_id"
                 " FROM objects WHERE dump_id = ? ORDER BY id",
                 dump_),
      [&](const RowCursor& row) -> Status {
        const int64_t type = row.int64(2), cls = row.int64(3);
        const int64_t site = row.is_null(5) ? -1 : row.int64(5);
        if (row.int64(0) != static_cast<int64_t>(g_.address_.size()) || type < 0 ||
            type >= kObjectTypeCount || (!row.is_null(3) && (cls < 0 || cls >= classes)) ||
            (!row.is_null(5) && (site < 0 || site >= sites)))
          return damaged(db_, "objects (row " + std::to_string(row.int64(0)) + ")");
        g_.address_.push_back(static_cast<uint64_t>(row.int64(1)));
        g_.type_.push_back(static_cast<ObjectType>(type));
        // NULL: no class, as schemas/store.sql has it.
        g_.class_of_.push_back(row.is_null(3) ? no_class() : ClassId(static_cast<uint32_t>(cls)));
        g_.memsize_.push_back(static_cast<uint64_t>(row.int64(4)));
        g_.site_.push_back(site < 0 ? SiteId::none() : SiteId(static_cast<uint32_t>(site)));
        g_.generation_.push_back(static_cast<uint32_t>(row.int64(6)));
        const int64_t stack = row.is_null(7) ? 0 : row.int64(7);
        if (stack < 0 || stack >= INT32_MAX) return damaged(db_, "objects.stack_id");
        if (stack && g_.stack_.empty()) g_.stack_.assign(g_.address_.size() - 1, 0);
        if (!g_.stack_.empty()) g_.stack_.push_back(static_cast<uint32_t>(stack));
        return Ok{};
      });
}

Status StoreReader::read_refs() {
  auto db = db_.another();
  if (!db) return db.error();
  const size_t hint = std::min<size_t>(edge_count_, size_t(1) << 26);
  g_.edge_target_.reserve(hint);
  if (names_) g_.edge_name_.reserve(hint);
  g_.edge_begin_.push_back(0);
  // edge_begin_ is completed per source object: objects without references have no rows.
  return each_row(
      (*db)->select(
          "SELECT from_id, to_id, name_id FROM refs WHERE dump_id = ? ORDER BY from_id, seq",
          dump_),
      [&](const RowCursor& row) -> Status {
        const int64_t from = row.int64(0);
        if (from < static_cast<int64_t>(g_.edge_begin_.size()) - 1 || from >= object_count_ ||
            row.int64(1) < 0 || row.int64(1) >= object_count_ ||
            g_.edge_target_.size() >= UINT32_MAX)
          return damaged(db_, "refs");
        while (static_cast<int64_t>(g_.edge_begin_.size()) <= from)
          g_.edge_begin_.push_back(static_cast<uint32_t>(g_.edge_target_.size()));
        g_.edge_target_.push_back(static_cast<uint32_t>(row.int64(1)));
        if (names_) g_.edge_name_.push_back(string_or_none(row, 2));
        return Ok{};
      });
}

// Completes the CSR once the object count is known, and checks every target.
Status StoreReader::check_refs() {
  const size_t n = g_.address_.size();
  if (g_.edge_begin_.size() > n + 1) return damaged(db_, "refs from objects that do not exist");
  while (g_.edge_begin_.size() <= n)
    g_.edge_begin_.push_back(static_cast<uint32_t>(g_.edge_target_.size()));
  for (uint32_t t : g_.edge_target_)
    if (t >= n) return damaged(db_, "refs to objects that do not exist");
  for (StringId s : g_.edge_name_)
    if (s.valid() && s.value() >= g_.strings_.size()) return damaged(db_, "refs.name_id");
  for (const ClassInfo& c : g_.classes_)
    if (c.object.valid() && c.object.value() >= n) return damaged(db_, "classes.object");
  return Ok{};
}

Status StoreReader::read_roots() {
  const size_t n = g_.address_.size();
  Status s = each_row(
      db_.select("SELECT category_id, target, name_id FROM roots WHERE dump_id = ? ORDER BY seq",
                 dump_),
      [&](const RowCursor& row) -> Status {
        if (!valid_string(row.int64(0)) || row.int64(1) < 0 ||
            static_cast<uint64_t>(row.int64(1)) >= n ||
            (!row.is_null(2) && !valid_string(row.int64(2))))
          return damaged(db_, "roots");
        RootEdge r{
            StringId(static_cast<uint32_t>(row.int64(0))),
            ObjectId(static_cast<uint32_t>(row.int64(1))),
            row.is_null(2) ? StringId::none() : StringId(static_cast<uint32_t>(row.int64(2)))};
        g_.roots_.push_back(r);
        g_.edge_target_.push_back(r.target.value());
        if (names_) g_.edge_name_.push_back(r.category);
        return Ok{};
      });
  g_.edge_begin_.push_back(static_cast<uint32_t>(g_.edge_target_.size()));
  return s;
}

Status StoreReader::read_records_and_weak() {
  const int64_t n = static_cast<int64_t>(g_.address_.size());
  g_.weak_holder_.assign(g_.address_.size(), false);
  Status s =
      each_row(db_.select("SELECT object, name_id FROM class_records WHERE dump_id = ?", dump_),
               [&](const RowCursor& row) -> Status {
                 if (row.int64(0) < 0 || row.int64(0) >= n || !valid_string(row.int64(1)))
                   return damaged(db_, "class_records");
                 g_.record_names_.emplace(static_cast<uint32_t>(row.int64(0)),
                                          StringId(static_cast<uint32_t>(row.int64(1))));
                 return Ok{};
               });
  if (!s) return s;
  return each_row(db_.select("SELECT object FROM weak_holders WHERE dump_id = ?", dump_),
                  [&](const RowCursor& row) -> Status {
                    if (row.int64(0) < 0 || row.int64(0) >= n) return damaged(db_, "weak_holders");
                    g_.weak_holder_[static_cast<size_t>(row.int64(0))] = true;
                    ++g_.weak_holders_;
                    return Ok{};
                  });
}

// memprof's allocation stacks (objects' numbers, read with the objects; frames from
// stack_frames) with their app frames, and the Procs' block sites.
Status StoreReader::read_stacks_and_blocks() {
  const int64_t n = static_cast<int64_t>(g_.address_.size());
  const int64_t sites = static_cast<int64_t>(g_.sites_.size());
  if (!g_.stack_.empty() && g_.stack_.size() != g_.address_.size())
    return damaged(db_, "objects.stack_id");
  if (!g_.stack_.empty()) {
    uint32_t top = 0;
    for (uint32_t s : g_.stack_) top = std::max(top, s);
    g_.stack_begin_ = {0};
    g_.stack_app_site_ = {SiteId::none()};
    std::unordered_map<uint32_t, bool> app_file;  // by file StringId
    int64_t last = 0;
    // Stack s's frames end where stack s + 1's begin: stacks with no rows get none.
    auto close_up_to = [&](int64_t stack) {
      while (static_cast<int64_t>(g_.stack_begin_.size()) <= stack) {
        g_.stack_begin_.push_back(static_cast<uint32_t>(g_.stack_sites_.size()));
        g_.stack_app_site_.push_back(SiteId::none());
      }
    };
    Status s =
        each_row(db_.select("SELECT stack_id, depth, site_id FROM stack_frames WHERE dump_id = ?"
                            " ORDER BY stack_id, depth",
                            dump_),
                 [&](const RowCursor& row) -> Status {
                   const int64_t stack = row.int64(0), site = row.int64(2);
                   if (stack < last || stack < 1 || stack > top || site < 0 || site >= sites)
                     return damaged(db_, "stack_frames");
                   close_up_to(stack);
                   last = stack;
                   const SiteId frame(static_cast<uint32_t>(site));
                   g_.stack_sites_.push_back(frame);
                   const StringId file = g_.sites_[frame.value()].file;
                   auto [known, added] = app_file.try_emplace(file.value(), false);
                   if (added)
                     known->second = file.valid() && is_app_path(g_.string(file), app_root_);
                   if (known->second && !g_.stack_app_site_.back().valid())
                     g_.stack_app_site_.back() = frame;
                   return Ok{};
                 });
    if (!s) return s;
    close_up_to(int64_t(top) + 1);
    g_.stack_app_site_.pop_back();  // stack_begin_ has one more entry than there are stacks
  }
  return each_row(db_.select("SELECT object, site_id FROM block_sites WHERE dump_id = ?", dump_),
                  [&](const RowCursor& row) -> Status {
                    const int64_t object = row.int64(0), site = row.int64(1);
                    if (object < 0 || object >= n || site < 0 || site >= sites)
                      return damaged(db_, "block_sites");
                    g_.block_sites_.emplace(static_cast<uint32_t>(object),
                                            SiteId(static_cast<uint32_t>(site)));
                    return Ok{};
                  });
}

}  // namespace heapq
