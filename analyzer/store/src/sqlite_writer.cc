// StoreWriter: one transaction of multi-row inserts into a fresh file with bulk-load pragmas,
// indexes built once the rows are in, then a durable file renamed into place.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "bulk_insert.h"
#include "dialect.h"
#include "hardening.h"
#include "heapq/base/temp_file.h"
#include "heapq/store/store.h"
#include "sqlite_db.h"
#include "write_dump_rows.h"
#include "write_profile_rows.h"

namespace heapq {

using store::BulkInsert;
using store::Database;
using store::Statement;

namespace {

Status sync_file(const std::string& path, bool directory) {
  int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    if (fd >= 0) ::close(fd);
    return io_error(path + ": cannot sync to disk");
  }
  ::close(fd);
  return Ok{};
}

// The file a store named `path` is written to: a link is followed to the file it names, for
// a rename never to replace the link (resolve_output); what is not a file cannot hold a store.
Result<std::string> store_file(const std::string& path) {
  auto target = resolve_output(path);
  if (!target) return target.error();
  if (target->kind != OutputTarget::Kind::kReplace)
    return usage_error(path + ": not a regular file; a store is a file of its own");
  return target->path;
}

}  // namespace

class StoreWriter::Impl final : public store::RowTarget {
 public:
  Database db;
  std::string name;        // the store as the user named it, for messages
  std::string final_path;  // the file renamed over: the one name is, or the one its link names
  std::string temp_path;
  int64_t next_dump = 1;
  int64_t next_profile = 1;
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
    name = path;
    auto file = store_file(path);
    if (!file) return file.error();
    final_path = *file;
    auto temp = create_temp_beside(final_path);
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
    if (s) s = db.exec(store::schema_sql(store::Dialect::kSqlite, store::SchemaPart::kTables));
    if (s) s = db.exec("BEGIN");
    return s ? store::write_types(*this) : s;
  }

  // SQLite's messages name the file it writes; the user knows the store by its own name.
  Error under_final_name(Error e) const {
    for (size_t at = 0; (at = e.message.find(temp_path, at)) != std::string::npos;
         at += name.size())
      e.message.replace(at, temp_path.size(), name);
    return e;
  }

  Result<std::unique_ptr<store::TableRows>> rows(std::string_view table, int columns) override {
    auto rows = BulkInsert::prepare(db, table, columns);
    if (!rows) return rows.error();
    return std::unique_ptr<store::TableRows>(std::move(*rows));
  }

  Result<int64_t> gem_id(std::string_view name, std::string_view version) override {
    if (!insert_gem.get()) {
      auto insert = db.prepare("INSERT OR IGNORE INTO gems (name, version) VALUES (?, ?)");
      if (!insert) return insert.error();
      auto lookup = db.prepare("SELECT id FROM gems WHERE name = ? AND version = ?");
      if (!lookup) return lookup.error();
      insert_gem = std::move(*insert);
      lookup_gem = std::move(*lookup);
    }
    insert_gem.bind_text(1, name);
    insert_gem.bind_text(2, version);
    if (Status r = insert_gem.run(); !r) return db.error(r.error().message);
    lookup_gem.bind_text(1, name);
    lookup_gem.bind_text(2, version);
    if (lookup_gem.step() != SQLITE_ROW) return db.error();
    const int64_t id = lookup_gem.int64(0);
    lookup_gem.reset();
    return id;
  }

 private:
  Statement insert_gem, lookup_gem;
};

StoreWriter::StoreWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StoreWriter::StoreWriter(StoreWriter&&) noexcept = default;
StoreWriter& StoreWriter::operator=(StoreWriter&&) noexcept = default;
StoreWriter::~StoreWriter() = default;

const std::string& StoreWriter::name() const {
  return impl_->name;
}

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
  auto profiles = w.db.prepare("SELECT max(id) FROM profiles");
  if (!profiles) return w.under_final_name(profiles.error());
  if (profiles->step() != SQLITE_ROW) return w.under_final_name(w.db.error());
  w.next_profile = profiles->int64(0) + 1;
  return writer;
}

Result<int64_t> StoreWriter::add(const std::string& source, const HeapGraph& g,
                                 const LoadReport& report, PendingAnalyses analyses,
                                 const DumpTags& tags) {
  Impl& w = *impl_;
  const int64_t id = w.next_dump++;
  if (Status s = store::write_dump_rows(w, id, source, g, report, std::move(analyses), tags); !s)
    return w.under_final_name(s.error());
  return id;
}

Result<int64_t> StoreWriter::add_profile(const std::string& source, const SampledProfile& profile,
                                         const std::vector<FleetCount>& sites,
                                         const DumpTags& tags) {
  Impl& w = *impl_;
  const int64_t id = w.next_profile++;
  if (Status s = store::write_profile_rows(w, id, source, profile, sites, tags); !s)
    return w.under_final_name(s.error());
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
  // Beside the file the load writes, which a link may name.
  auto file = store_file(path);
  std::filesystem::path p(file ? *file : path);
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
  Status s = w.db.exec(store::schema_sql(store::Dialect::kSqlite, store::SchemaPart::kAfterRows));
  if (s) s = w.db.exec("COMMIT");
  // A normal database from here on: rollback journal, full syncs.
  if (s)
    s = w.db.exec(
        "PRAGMA locking_mode = NORMAL; PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL;");
  if (!s) return w.under_final_name(s.error());
  w.db = Database();
  if (Status synced = sync_file(w.temp_path, false); !synced) return synced;
  const std::string kept =
      w.name + " appeared while the load ran; it is kept (pass --force to replace it)";
  std::error_code ec;
  if (!replace && std::filesystem::exists(w.final_path, ec)) return usage_error(kept);
  if (Status removed = remove_sidecars(w.final_path); !removed) return removed;
  const int renamed = replace ? std::rename(w.temp_path.c_str(), w.final_path.c_str())
                              : rename_no_replace(w.temp_path.c_str(), w.final_path.c_str());
  if (renamed != 0 && errno == EEXIST) return usage_error(kept);
  if (renamed != 0) return io_error(w.name + ": cannot write the store: " + std::strerror(errno));
  w.finished = true;
  std::string dir = std::filesystem::path(w.final_path).parent_path().string();
  return sync_file(dir.empty() ? "." : dir, true);
}

}  // namespace heapq
