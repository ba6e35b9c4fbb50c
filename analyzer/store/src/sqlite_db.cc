#include "sqlite_db.h"

namespace heapq::store {

Statement& Statement::operator=(Statement&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(stmt_);
    db_ = o.db_;
    stmt_ = o.stmt_;
    o.stmt_ = nullptr;
  }
  return *this;
}

Status Statement::run() {
  int rc = step();
  sqlite3_reset(stmt_);
  if (rc == SQLITE_DONE || rc == SQLITE_ROW) return Ok{};
  return bad_input(std::string(sqlite3_errmsg(db_)));
}

Database& Database::operator=(Database&& o) noexcept {
  if (this != &o) {
    sqlite3_close_v2(db_);
    db_ = o.db_;
    path_ = std::move(o.path_);
    guard_ = std::move(o.guard_);
    o.db_ = nullptr;
  }
  return *this;
}

Result<Database> Database::open(const std::string& path, int flags) {
  // Before SQLite initializes: no memory statistics, whose global mutex every allocation takes.
  static const bool configured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
  (void)configured;
  Database d;
  d.path_ = path;
  int rc = sqlite3_open_v2(path.c_str(), &d.db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message =
        path + ": cannot open: " + (d.db_ ? sqlite3_errmsg(d.db_) : sqlite3_errstr(rc));
    return io_error(message);
  }
  sqlite3_extended_result_codes(d.db_, 1);
  return d;
}

Status Database::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return Ok{};
  std::string text = message ? message : sqlite3_errmsg(db_);
  sqlite3_free(message);
  return error(text);
}

Result<Statement> Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK)
    return error();
  return Statement(db_, stmt);
}

std::optional<Error> Database::refusal() const {
  if (!guard_ || !guard_->refusal) return std::nullopt;
  // A refused function fails the statement as SQLITE_ERROR, with this message.
  const int rc = sqlite3_errcode(db_) & 0xff;
  const std::string_view message = sqlite3_errmsg(db_);
  if (rc != SQLITE_AUTH && rc != SQLITE_INTERRUPT && !message.starts_with("not authorized"))
    return std::nullopt;
  return Error{guard_->refusal->code, path_ + ": " + guard_->refusal->message};
}

Error Database::error(std::string_view what) const {
  if (auto refused = refusal(); refused && what.empty()) return *refused;
  std::string message =
      path_ + ": " + (what.empty() ? std::string(sqlite3_errmsg(db_)) : std::string(what));
  // A full disk or a failing write is an I/O error; anything else is the store's content.
  int rc = sqlite3_errcode(db_) & 0xff;
  bool io =
      rc == SQLITE_IOERR || rc == SQLITE_FULL || rc == SQLITE_CANTOPEN || rc == SQLITE_READONLY;
  return io ? io_error(message) : bad_input(message);
}

}  // namespace heapq::store
