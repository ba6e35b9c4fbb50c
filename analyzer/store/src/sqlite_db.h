// A thin RAII layer over the SQLite C API: a connection, prepared statements, errors as values.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "heapq/base/result.h"

namespace heapq::store {

// A prepared statement; finalized on destruction.
class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Statement(Statement&& o) noexcept : db_(o.db_), stmt_(o.stmt_) { o.stmt_ = nullptr; }
  Statement& operator=(Statement&& o) noexcept;
  ~Statement() { sqlite3_finalize(stmt_); }

  sqlite3_stmt* get() const { return stmt_; }
  // Parameters are 1-based, as in SQLite.
  void bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void bind_null(int i) { sqlite3_bind_null(stmt_, i); }
  // An empty view binds '' (a null data pointer would bind NULL).
  void bind_text(int i, std::string_view s) {
    sqlite3_bind_text(stmt_, i, s.data() ? s.data() : "", static_cast<int>(s.size()),
                      SQLITE_STATIC);
  }
  // An empty view binds a blob of no bytes.
  void bind_blob(int i, std::string_view bytes) {
    sqlite3_bind_blob(stmt_, i, bytes.data() ? bytes.data() : "", static_cast<int>(bytes.size()),
                      SQLITE_STATIC);
  }
  // Binds v, or NULL when v is `none`.
  void bind_or_null(int i, int64_t v, int64_t none) { v == none ? bind_null(i) : bind(i, v); }

  // SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return sqlite3_step(stmt_); }
  // Steps a statement that returns no rows, then resets it for the next use.
  Status run();
  void reset() { sqlite3_reset(stmt_); }

  int64_t int64(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string_view text(int col) const {
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string_view();
  }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

// What a connection on a store is for, which decides how it is hardened (store/hardening.h).
enum class Access {
  kRead,   // heapq's own reads: tables only, work bounded by the store's size
  kQuery,  // heapq sql: the user's statements, read-only
  kWrite,  // heapq sql --write: the user's statements, changing the store
  kLoad,   // heapq load --append: heapq's own statements on a copy of a store it checked
};

// The state a hardened connection's authorizer and progress handler keep (store/hardening.cc).
struct Guard {
  Access access = Access::kRead;
  int64_t calls_left = -1;       // progress-handler calls before the work is cut; -1: never
  std::optional<Error> refusal;  // why the last statement was refused or cut (no path)
};

// A connection; closed on destruction.
class Database {
 public:
  Database() = default;
  Database(Database&& o) noexcept
      : db_(o.db_), path_(std::move(o.path_)), guard_(std::move(o.guard_)) {
    o.db_ = nullptr;
  }
  Database& operator=(Database&& o) noexcept;
  ~Database() { sqlite3_close_v2(db_); }

  // flags: SQLITE_OPEN_READONLY, or SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE.
  static Result<Database> open(const std::string& path, int flags);

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }
  // Runs one or more statements that return no rows.
  Status exec(const std::string& sql);
  Result<Statement> prepare(std::string_view sql);
  // "PATH: SQLite's message", with the exit status of bad input; or the hardening's own
  // error when it refused the statement.
  Error error(std::string_view what = {}) const;
  // The hardening's error when it refused or cut the last statement.
  std::optional<Error> refusal() const;

  // Set by harden(); the connection's callbacks point to it, so it must not move.
  Guard& guard() {
    if (!guard_) guard_ = std::make_unique<Guard>();
    return *guard_;
  }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  std::unique_ptr<Guard> guard_;
};

}  // namespace heapq::store
