// StoreWriter: one transaction of multi-row inserts into a fresh file with bulk-load pragmas,
// indexes built once the rows are in, then a durable file renamed into place.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "heapq/dominators.h"
#include "heapq/retainers.h"
#include "heapq/sites.h"
#include "heapq/store.h"
#include "heapq/temp_file.h"
#include "store/bulk_insert.h"
#include "store/hardening.h"
#include "store/schema.h"
#include "store/sqlite_db.h"
#include "store/store_columns.h"

namespace heapq {

using store::BulkInsert;
using store::Database;
using store::Statement;

namespace {

using Cell = std::optional<int64_t>;  // nullopt: NULL
constexpr Cell kNull = std::nullopt;

Cell or_null(uint32_t id_value) {
  return id_value == UINT32_MAX ? kNull : Cell(id_value);
}

struct Analysis {
  HeapDominators dom;
  ShortestPathTree paths;  // distance: fewest references from the roots
};

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Status sync_file(const std::string& path, bool directory) {
  int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    if (fd >= 0) ::close(fd);
    return io_error(path + ": cannot sync to disk");
  }
  ::close(fd);
  return Ok{};
}

}  // namespace

class StoreWriter::Impl {
 public:
  Database db;
  std::string final_path, temp_path;
  int64_t next_dump = 1;
  bool finished = false;

  ~Impl() {
    if (!finished && !temp_path.empty()) {
      db = Database();  // close before removing
      std::remove(temp_path.c_str());
    }
  }

  // The temporary file beside the store, created exclusively; the connection opens that file
  // and no other (SQLITE_OPEN_NOFOLLOW: not a link put there since).
  Status open_temp(const std::string& path) {
    final_path = path;
    auto temp = create_temp_beside(path);
    if (!temp) return temp.error();
    temp_path = temp->path;
    ::close(temp->fd);
    return Ok{};
  }

  Status open_db() {
    // One thread at a time uses the connection: no per-call mutex (a tenth of the load time).
    auto opened = Database::open(
        temp_path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW);
    if (!opened) return under_final_name(opened.error());
    db = std::move(*opened);
    return Ok{};
  }

  Status begin() {
    // Bulk load: no journal, no syncs, a big page cache; made durable in finish().
    Status s = db.exec(
        "PRAGMA page_size = 16384; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
        "PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY; PRAGMA locking_mode = "
        "EXCLUSIVE;");
    if (s) s = db.exec(std::string(store::kSchemaTables));
    if (s) s = db.exec("BEGIN");
    if (!s) return s;
    auto types = db.prepare("INSERT INTO types VALUES (?, ?)");
    if (!types) return types.error();
    for (int t = 0; t < kObjectTypeCount; ++t) {
      types->bind(1, t);
      types->bind_text(2, object_type_name(static_cast<ObjectType>(t)));
      if (Status r = types->run(); !r) return db.error(r.error().message);
    }
    return Ok{};
  }

  // SQLite's messages name the file it writes; the user knows the store by its final name.
  Error under_final_name(Error e) const {
    for (size_t at = 0; (at = e.message.find(temp_path, at)) != std::string::npos;
         at += final_path.size())
      e.message.replace(at, temp_path.size(), final_path);
    return e;
  }

  Status add_dump_row(int64_t id, const std::string& source, const HeapGraph& g,
                      const LoadReport& r, const Analysis& a);
  Status add_issues(int64_t id, const LoadReport& r);
  Status add_strings(int64_t id, const HeapGraph& g);
  Result<std::unordered_map<uint32_t, int64_t>> gem_ids_of_files(const HeapGraph& g);
  Status add_classes_and_sites(int64_t id, const HeapGraph& g);
  Status add_refs_and_roots(int64_t id, const HeapGraph& g);
  Status add_objects(int64_t id, const HeapGraph& g, const Analysis& a);
};

Status StoreWriter::Impl::add_dump_row(int64_t id, const std::string& source, const HeapGraph& g,
                                       const LoadReport& r, const Analysis& a) {
  auto st =
      db.prepare("INSERT INTO dumps VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  if (!st) return st.error();
  Statement& s = *st;
  int i = 0;
  s.bind(++i, id);
  s.bind_text(++i, source);
  s.bind_text(++i, r.format == DumpFormat::kMemprof ? "memprof" : "objectspace");
  std::string now = utc_now();
  s.bind_text(++i, now);
  for (uint64_t v :
       {r.lines, r.objects, r.roots, r.shapes, r.skipped_records, r.bad_lines, r.repaired_strings,
        r.dangling_references, r.dangling_classes, r.duplicate_addresses})
    s.bind(++i, static_cast<int64_t>(v));
  if (r.damage.empty())
    s.bind_null(++i);
  else
    s.bind_text(++i, r.damage);
  s.bind(++i, r.missing_end);
  s.bind_or_null(++i, r.end_records, -1);
  s.bind(++i, static_cast<int64_t>(g.edge_count()));
  s.bind(++i, g.has_reference_names());
  uint64_t weak = 0;
  for (uint32_t o = 0; o < g.object_count(); ++o) weak += g.holds_weakly(ObjectId(o));
  s.bind(++i, static_cast<int64_t>(weak));
  s.bind(++i, static_cast<int64_t>(a.dom.retained_bytes(g.virtual_root())));
  s.bind(++i, static_cast<int64_t>(a.dom.unreachable_count()));
  s.bind(++i, static_cast<int64_t>(a.dom.unreachable_bytes()));
  s.bind_or_null(++i, static_cast<int64_t>(std::min<uint64_t>(r.origin.pid, INT64_MAX)), 0);
  if (r.origin.time.empty())
    s.bind_null(++i);
  else
    s.bind_text(++i, r.origin.time);
  s.bind_or_null(++i, r.origin.gc_count, -1);
  if (Status done = s.run(); !done) return db.error(done.error().message);
  return Ok{};
}

Status StoreWriter::Impl::add_issues(int64_t id, const LoadReport& r) {
  auto st = db.prepare("INSERT INTO dump_issues VALUES (?,?,?,?,?)");
  if (!st) return st.error();
  auto add = [&](const char* kind, const std::vector<LineIssue>& issues) -> Status {
    for (size_t i = 0; i < issues.size(); ++i) {
      st->bind(1, id);
      st->bind_text(2, kind);
      st->bind(3, static_cast<int64_t>(i));
      st->bind(4, static_cast<int64_t>(issues[i].line));
      st->bind_text(5, issues[i].message);
      if (Status s = st->run(); !s) return db.error(s.error().message);
    }
    return Ok{};
  };
  Status s = add("bad_line", r.first_bad_lines);
  return s ? add("repaired_string", r.first_repaired_strings) : s;
}

Status StoreWriter::Impl::add_strings(int64_t id, const HeapGraph& g) {
  auto st = db.prepare("INSERT INTO strings VALUES (?,?,?)");
  if (!st) return st.error();
  for (uint32_t i = 0; i < g.strings().size(); ++i) {
    st->bind(1, id);
    st->bind(2, i);
    st->bind_text(3, g.strings()[StringId(i)]);
    if (Status s = st->run(); !s) return db.error(s.error().message);
  }
  return Ok{};
}

// gems.id of the gem each site's file lies in (files in no gem left out), gems rows added as
// needed: the one reading of a path as `heapq sites --by gem` has it.
Result<std::unordered_map<uint32_t, int64_t>> StoreWriter::Impl::gem_ids_of_files(
    const HeapGraph& g) {
  std::unordered_map<uint32_t, int64_t> out;
  std::unordered_map<std::string, int64_t> by_label;
  std::unordered_set<uint32_t> seen;
  auto insert = db.prepare("INSERT OR IGNORE INTO gems (name, version) VALUES (?, ?)");
  if (!insert) return insert.error();
  auto lookup = db.prepare("SELECT id FROM gems WHERE name = ? AND version = ?");
  if (!lookup) return lookup.error();
  for (uint32_t s = 0; s < g.site_count(); ++s) {
    const StringId file = g.site_info(SiteId(s)).file;
    if (!file.valid() || !seen.insert(file.value()).second) continue;
    const std::string label = gem_of_path(g.string(file));
    if (label.starts_with('(')) continue;  // (app), (ruby): not a gem
    auto [it, fresh] = by_label.try_emplace(label, 0);
    if (fresh) {
      const auto [name, version] = split_gem(label);
      insert->bind_text(1, name);
      insert->bind_text(2, version);
      if (Status r = insert->run(); !r) return db.error(r.error().message);
      lookup->bind_text(1, name);
      lookup->bind_text(2, version);
      if (lookup->step() != SQLITE_ROW) return db.error();
      it->second = lookup->int64(0);
      lookup->reset();
    }
    out.emplace(file.value(), it->second);
  }
  return out;
}

Status StoreWriter::Impl::add_classes_and_sites(int64_t id, const HeapGraph& g) {
  auto classes = BulkInsert::prepare(db, "classes", 5);
  if (!classes) return classes.error();
  for (uint32_t c = 0; c < g.class_count(); ++c) {
    const ClassInfo& info = g.class_info(ClassId(c));
    for (Cell v : {Cell(id), Cell(c), Cell(int64_t(info.address)), or_null(info.object.value()),
                   Cell(info.name.value())})
      classes->add(v);
  }
  auto gem_ids = gem_ids_of_files(g);
  if (!gem_ids) return gem_ids.error();
  auto sites = BulkInsert::prepare(db, "sites", 6);
  if (!sites) return sites.error();
  for (uint32_t s = 0; s < g.site_count(); ++s) {
    const Site& site = g.site_info(SiteId(s));
    const auto gem = gem_ids->find(site.file.value());
    for (Cell v : {Cell(id), Cell(s), Cell(site.file.value()), site.line ? Cell(site.line) : kNull,
                   or_null(site.method.value()), gem == gem_ids->end() ? kNull : Cell(gem->second)})
      sites->add(v);
    if (Status st = sites->maybe_flush(); !st) return st;
  }
  auto records = BulkInsert::prepare(db, "class_records", 3);
  if (!records) return records.error();
  auto weak = BulkInsert::prepare(db, "weak_holders", 2);
  if (!weak) return weak.error();
  for (uint32_t o = 0; o < g.object_count(); ++o) {
    ObjectType t = g.type(ObjectId(o));
    if (t == ObjectType::kClass || t == ObjectType::kModule)
      if (StringId name = g.own_name(ObjectId(o)); name.valid())
        for (int64_t v : {id, int64_t(o), int64_t(name.value())}) records->add(v);
    if (g.holds_weakly(ObjectId(o)))
      for (int64_t v : {id, int64_t(o)}) weak->add(v);
  }
  Status s = classes->finish();
  if (s) s = sites->finish();
  if (s) s = records->finish();
  if (s) s = weak->finish();
  return s;
}

Status StoreWriter::Impl::add_refs_and_roots(int64_t id, const HeapGraph& g) {
  auto refs = BulkInsert::prepare(db, "refs", 5);
  if (!refs) return refs.error();
  const bool named = g.has_reference_names();
  for (uint32_t o = 0; o < g.object_count(); ++o) {
    uint32_t seq = 0;
    const uint32_t* first = g.edge_targets().data() + g.edge_begin()[o];
    const uint32_t* last = g.edge_targets().data() + g.edge_begin()[o + 1];
    // The class edge heapq added is not the dump's: it lives in class_edges, not in refs.
    if (g.added_class_edge(ObjectId(o))) --last;
    for (ObjectId t : IdRange<ObjectId>(first, last)) {
      refs->add(id);
      refs->add(o);
      refs->add(seq);
      refs->add(t.value());
      refs->add(named ? or_null(g.reference_name(ObjectId(o), seq).value()) : kNull);
      ++seq;
    }
    if (Status s = refs->maybe_flush(); !s) return s;
  }
  if (Status s = refs->finish(); !s) return s;
  auto roots = BulkInsert::prepare(db, "roots", 4);
  if (!roots) return roots.error();
  int64_t seq = 0;
  for (const RootEdge& r : g.roots())
    for (int64_t v : {id, seq++, int64_t(r.category.value()), int64_t(r.target.value())})
      roots->add(v);
  return roots->finish();
}

Status StoreWriter::Impl::add_objects(int64_t id, const HeapGraph& g, const Analysis& a) {
  auto objects = BulkInsert::prepare(db, "objects", 12);
  if (!objects) return objects.error();
  const uint32_t root = g.virtual_root().value();
  for (uint32_t i = 0; i < g.object_count(); ++i) {
    const ObjectId o(i);
    const ObjectId idom = a.dom.idom(o);
    const Cell idom_value = !idom.valid()          ? kNull
                            : idom.value() == root ? Cell(-1)
                                                   : Cell(idom.value());
    // Addresses and sizes are 64-bit unsigned: stored as their two's complement bit pattern.
    for (Cell v :
         {Cell(id), Cell(i), Cell(int64_t(g.address(o))), Cell(int64_t(g.type(o))),
          or_null(g.class_of(o).value()), Cell(int64_t(g.memsize(o))), or_null(g.site(o).value()),
          Cell(g.generation(o)), idom_value, Cell(int64_t(a.dom.retained_bytes(o))),
          Cell(a.dom.retained_count(o)), or_null(a.paths.distance(o))})
      objects->add(v);
    if (Status s = objects->maybe_flush(); !s) return s;
  }
  return objects->finish();
}

StoreWriter::StoreWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StoreWriter::StoreWriter(StoreWriter&&) noexcept = default;
StoreWriter& StoreWriter::operator=(StoreWriter&&) noexcept = default;
StoreWriter::~StoreWriter() = default;

const std::string& StoreWriter::temp_path() const {
  return impl_->temp_path;
}

Result<StoreWriter> StoreWriter::create(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  if (Status s = impl->open_temp(path); !s) return s.error();
  if (Status s = impl->open_db(); !s) return s.error();
  if (Status s = impl->begin(); !s) return impl->under_final_name(s.error());
  return StoreWriter(std::move(impl));
}

Result<StoreWriter> StoreWriter::append(const std::string& path) {
  if (auto dumps = list_stored_dumps(path); !dumps) return dumps.error();
  // The store is read through SQLite, what its -wal holds included, in one read transaction:
  // the schema checked is the one copied. It holds nothing but heapq's own tables, indexes,
  // triggers and views, so that nothing of a stranger's runs or stays in the store.
  auto source = Database::open(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
  if (!source) return source.error();
  Status s = store::harden(*source, store::Access::kRead);
  if (s) s = source->exec("BEGIN");
  if (s) s = store::check_schema(*source, true);
  if (!s) return s.error();
  auto writer = create(path);
  if (!writer) return writer.error();
  Impl& w = *writer->impl_;
  s = w.db.exec("COMMIT");  // the backup writes the file whole, outside any transaction
  if (!s) return w.under_final_name(s.error());
  sqlite3_backup* backup = sqlite3_backup_init(w.db.get(), "main", source->get(), "main");
  const int rc = backup ? sqlite3_backup_step(backup, -1) : SQLITE_ERROR;
  if (sqlite3_backup_finish(backup) != SQLITE_OK || rc != SQLITE_DONE)
    return w.under_final_name(w.db.error());
  *source = Database();
  // Indexes, triggers and views are made again by finish(), as for a new store: the triggers
  // would drop the new dump's graph columns as its rows go in. Their names are heapq's own.
  s = store::harden(w.db, store::Access::kLoad);
  for (const auto& [type, name] : store::own_schema()) {
    if (!s || type == "table" || name.starts_with("sqlite_")) continue;
    char* drop = sqlite3_mprintf("DROP %s IF EXISTS \"%w\"", type.c_str(), name.c_str());
    s = w.db.exec(drop);
    sqlite3_free(drop);
  }
  // The copy has the store's header: its journal mode too.
  if (s)
    s = w.db.exec(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144;"
        "PRAGMA temp_store = MEMORY; PRAGMA locking_mode = EXCLUSIVE; BEGIN;");
  if (!s) return w.under_final_name(s.error());
  auto last = w.db.prepare("SELECT max(id) FROM dumps");
  if (!last) return w.under_final_name(last.error());
  if (last->step() != SQLITE_ROW) return w.under_final_name(w.db.error());
  w.next_dump = last->int64(0) + 1;
  return writer;
}

Result<int64_t> StoreWriter::add(const std::string& source, const HeapGraph& g,
                                 const LoadReport& report) {
  Impl& w = *impl_;
  const int64_t id = w.next_dump++;
  // The analyses run on another core while the rows that do not need them are written.
  Analysis a;
  std::thread analyze([&] {
    a.dom = HeapDominators::compute(g);
    a.paths = ShortestPathTree::compute(g);
  });
  Status s = w.add_strings(id, g);
  if (s) s = w.add_classes_and_sites(id, g);
  if (s) s = w.add_refs_and_roots(id, g);
  if (s) s = w.add_issues(id, report);
  if (s) s = store::write_graph_columns(w.db, id, g);
  if (s) s = store::write_class_edges(w.db, id, g);
  analyze.join();
  if (s) s = w.add_objects(id, g, a);
  if (s) s = w.add_dump_row(id, source, g, report, a);
  if (!s) return w.under_final_name(s.error());
  return id;
}

namespace {

// rename(2) that fails with EEXIST instead of replacing: renameat2's RENAME_NOREPLACE, or
// link + unlink where the file system does not support it.
int rename_no_replace(const char* from, const char* to) {
  if (::renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
  if (::link(from, to) != 0) return -1;
  ::unlink(from);
  return 0;
}

// What SQLite keeps beside a database belongs to the file it was made for: left beside the new
// store, the old store's -wal would be read as part of it, and a hot -journal rolled back onto
// it. They go once the new file is complete, just before the rename: a reader that has the old
// store open keeps its own descriptors; one that opens it in between sees it as of its last
// checkpoint. None sees the new file with the old store's pages.
Status remove_sidecars(const std::string& path) {
  for (const char* suffix : {"-journal", "-wal", "-shm"}) {
    const std::string sidecar = path + suffix;
    if (::unlink(sidecar.c_str()) != 0 && errno != ENOENT)
      return io_error(sidecar + ": cannot remove: " + std::strerror(errno));
  }
  return Ok{};
}

}  // namespace

std::vector<std::string> StoreWriter::stale_temp_paths(const std::string& path) {
  std::filesystem::path p(path);
  const std::filesystem::path dir =
      p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::optional<pid_t> pid = temp_file_owner(path, name);
    // A process that is still there may be writing it.
    if (!pid || ::kill(*pid, 0) == 0 || errno != ESRCH) continue;
    out.push_back((p.parent_path() / name).string());
  }
  return out;
}

Status StoreWriter::finish(bool replace) {
  Impl& w = *impl_;
  Status s = w.db.exec(std::string(store::kSchemaAfterRows));
  if (s) s = w.db.exec("COMMIT");
  // A normal database from here on: rollback journal, full syncs.
  if (s)
    s = w.db.exec(
        "PRAGMA locking_mode = NORMAL; PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL;");
  if (!s) return w.under_final_name(s.error());
  w.db = Database();
  if (Status synced = sync_file(w.temp_path, false); !synced) return synced;
  const std::string kept =
      w.final_path + " appeared while the load ran; it is kept (pass --force to replace it)";
  std::error_code ec;
  if (!replace && std::filesystem::exists(w.final_path, ec)) return usage_error(kept);
  if (Status removed = remove_sidecars(w.final_path); !removed) return removed;
  const int renamed = replace ? std::rename(w.temp_path.c_str(), w.final_path.c_str())
                              : rename_no_replace(w.temp_path.c_str(), w.final_path.c_str());
  if (renamed != 0 && errno == EEXIST) return usage_error(kept);
  if (renamed != 0)
    return io_error(w.final_path + ": cannot write the store: " + std::strerror(errno));
  w.finished = true;
  std::string dir = std::filesystem::path(w.final_path).parent_path().string();
  return sync_file(dir.empty() ? "." : dir, true);
}

}  // namespace heapq
