#include "row_source.h"

#include <string>

#include "dialect.h"
#include "hardening.h"
#include "heapq/store/store.h"
#include "pg_db.h"
#include "pg_objects.h"
#include "pg_schema.h"
#include "sqlite_db.h"

namespace heapq::store {

namespace {

class SqliteCursor final : public RowCursor {
 public:
  SqliteCursor(Database& db, Statement st) : db_(db), st_(std::move(st)) {}
  Result<bool> next() override {
    const int rc = st_.step();
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return db_.error();
  }
  int64_t int64(int col) const override { return st_.int64(col); }
  bool is_null(int col) const override { return st_.is_null(col); }
  std::string_view text(int col) const override { return st_.text(col); }

 private:
  Database& db_;
  Statement st_;
};

// PRAGMA application_id in schemas/store.sql; its user_version is kStoreSchemaVersion.
constexpr int64_t kApplicationId = 1751474545;

// Whether the file is a heapq store of this version, its tables heapq's.
Status check_store(Database& db) {
  HEAPQ_ASSIGN_OR_RETURN(Statement id, db.prepare("PRAGMA application_id"));
  if (id.step() != SQLITE_ROW || id.int64(0) != kApplicationId)
    return bad_input(db.path() + ": an SQLite file, but not a heapq store (made by heapq load)");
  HEAPQ_ASSIGN_OR_RETURN(Statement version, db.prepare("PRAGMA user_version"));
  if (version.step() == SQLITE_ROW && version.int64(0) != kStoreSchemaVersion)
    return bad_input(db.path() + ": not a store of this version of heapq (schema version " +
                     std::to_string(version.int64(0)) + ", expected " +
                     std::to_string(kStoreSchemaVersion) + "); make it again with heapq load");
  return check_schema(db, false);
}

class SqliteSource final : public RowSource {
 public:
  static Result<std::unique_ptr<RowSource>> open(const std::string& path) {
    auto db = Database::open(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
    if (!db) return db.error();
    if (Status s = harden(*db, Access::kRead); !s) return s.error();
    if (Status s = check_store(*db); !s) return s.error();
    // Pages read through a mapping of the file rather than copied into SQLite's cache.
    if (Status s = db->exec("PRAGMA mmap_size = 1073741824"); !s) return s.error();
    return std::unique_ptr<RowSource>(new SqliteSource(std::move(*db)));
  }
  const std::string& name() const override { return db_.path(); }
  Result<std::unique_ptr<RowCursor>> query(std::string_view sql,
                                           const std::vector<Param>& params) override {
    auto st = db_.prepare(sql);
    if (!st) return st.error();
    for (size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i + 1);
      if (const auto* v = std::get_if<int64_t>(&params[i]))
        st->bind(at, *v);
      else
        st->bind_text(at, std::get<std::string>(params[i]));  // lives in params, past the query
    }
    return std::unique_ptr<RowCursor>(new SqliteCursor(db_, std::move(*st)));
  }
  // Straight from SQLite's pages (sqlite3_blob_read: no intermediate copy).
  Result<bool> read_column(std::string_view table, int64_t dump, std::string_view column,
                           const std::function<char*(size_t)>& buffer) override {
    auto st = db_.prepare("SELECT rowid, length(data) FROM " + std::string(table) +
                          " WHERE dump_id = ? AND name = ? ORDER BY chunk");
    if (!st) return st.error();
    st->bind(1, dump);
    st->bind_text(2, column);
    std::vector<std::pair<int64_t, int>> chunks;
    size_t bytes = 0;
    int rc;
    while ((rc = st->step()) == SQLITE_ROW) {
      chunks.emplace_back(st->int64(0), static_cast<int>(st->int64(1)));
      bytes += static_cast<size_t>(chunks.back().second);
    }
    if (rc != SQLITE_DONE) return db_.error();
    if (chunks.empty()) return false;
    char* to = bytes ? buffer(bytes) : nullptr;
    if (bytes && !to) return false;
    const std::string t(table);
    for (auto [rowid, n] : chunks) {
      sqlite3_blob* blob = nullptr;
      rc = sqlite3_blob_open(db_.get(), "main", t.c_str(), "data", rowid, 0, &blob);
      if (rc == SQLITE_OK) rc = sqlite3_blob_read(blob, to, n, 0);
      sqlite3_blob_close(blob);
      if (rc != SQLITE_OK) return db_.error();
      to += n;
    }
    return true;
  }
  Result<std::unique_ptr<RowSource>> another() override { return open(db_.path()); }

 private:
  explicit SqliteSource(Database db) : db_(std::move(db)) {}
  Database db_;
};

class PgRowCursor final : public RowCursor {
 public:
  explicit PgRowCursor(PgCursor c) : c_(std::move(c)) {}
  Result<bool> next() override { return c_.next(); }
  int64_t int64(int col) const override { return pg_int(c_.row(), 0, col); }
  bool is_null(int col) const override { return PQgetisnull(c_.row(), 0, col); }
  std::string_view text(int col) const override { return pg_bytes(c_.row(), 0, col); }

 private:
  PgCursor c_;
};

class PgSource final : public RowSource {
 public:
  static Result<std::unique_ptr<RowSource>> open(const std::string& url) {
    auto db = PgConnection::connect(url);
    if (!db) return db.error();
    // One snapshot for every query of the dump's reading, the store checked in it.
    if (Status s = begin_store_transaction(*db, false); !s) return s.error();
    return std::unique_ptr<RowSource>(new PgSource(url, std::move(*db)));
  }
  const std::string& name() const override { return db_.name(); }
  Result<std::unique_ptr<RowCursor>> query(std::string_view sql,
                                           const std::vector<Param>& params) override {
    std::vector<std::optional<std::string>> text;
    for (const Param& p : params)
      text.emplace_back(std::holds_alternative<int64_t>(p) ? std::to_string(std::get<int64_t>(p))
                                                           : std::get<std::string>(p));
    auto c = PgCursor::open(db_, postgres_statement(sql, server_objects().tables), text);
    if (!c) return c.error();
    return std::unique_ptr<RowCursor>(new PgRowCursor(std::move(*c)));
  }
  // A chunk at a time: at most one chunk (64 MiB) held beside the arrays.
  Result<bool> read_column(std::string_view table, int64_t dump, std::string_view column,
                           const std::function<char*(size_t)>& buffer) override {
    const std::string t = db_.table(table);
    auto sizes = db_.query(
        "SELECT chunk, length(data) FROM " + t + " WHERE dump_id = $1 AND name = $2 ORDER BY chunk",
        {std::to_string(dump), std::string(column)});
    if (!sizes) return sizes.error();
    const int chunks = PQntuples(sizes->get());
    if (chunks == 0) return false;
    size_t bytes = 0;
    for (int i = 0; i < chunks; ++i) bytes += static_cast<size_t>(pg_int(sizes->get(), i, 1));
    char* to = bytes ? buffer(bytes) : nullptr;
    if (bytes && !to) return false;
    for (int i = 0; i < chunks; ++i) {
      auto data = db_.query(
          "SELECT data FROM " + t + " WHERE dump_id = $1 AND name = $2 AND chunk = $3",
          {std::to_string(dump), std::string(column), std::to_string(pg_int(sizes->get(), i, 0))});
      if (!data) return data.error();
      if (PQntuples(data->get()) != 1) return false;
      const std::string_view b = pg_bytes(data->get(), 0, 0);
      if (b.size() != static_cast<size_t>(pg_int(sizes->get(), i, 1))) return false;
      std::copy(b.begin(), b.end(), to);
      to += b.size();
    }
    return true;
  }
  Result<std::unique_ptr<RowSource>> another() override { return open(url_); }

 private:
  PgSource(std::string url, PgConnection db) : url_(std::move(url)), db_(std::move(db)) {}
  std::string url_;
  PgConnection db_;
};

}  // namespace

Result<std::unique_ptr<RowSource>> open_row_source(const std::string& store) {
  return is_server_url(store) ? PgSource::open(store) : SqliteSource::open(store);
}

}  // namespace heapq::store
