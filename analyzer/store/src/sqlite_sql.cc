// run_sql: the statements of `heapq sql`, on a store opened read-only unless asked otherwise.
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "hardening.h"
#include "heapq/store/store.h"
#include "sqlite_db.h"

namespace heapq {

using store::Database;

namespace {

SqlValue column_value(sqlite3_stmt* st, int col) {
  switch (sqlite3_column_type(st, col)) {
    case SQLITE_NULL:
      return std::monostate{};
    case SQLITE_INTEGER:
      return static_cast<int64_t>(sqlite3_column_int64(st, col));
    case SQLITE_FLOAT:
      return sqlite3_column_double(st, col);
    case SQLITE_BLOB: {
      static const char kHex[] = "0123456789ABCDEF";
      auto p = static_cast<const unsigned char*>(sqlite3_column_blob(st, col));
      std::string out = "X'";
      for (int i = 0, n = sqlite3_column_bytes(st, col); i < n; ++i) {
        out += kHex[p[i] >> 4];
        out += kHex[p[i] & 15];
      }
      return out + "'";
    }
    default: {
      auto p = reinterpret_cast<const char*>(sqlite3_column_text(st, col));
      return std::string(p ? p : "", static_cast<size_t>(sqlite3_column_bytes(st, col)));
    }
  }
}

// SQLite's message, or the hardening's when it refused the statement.
Error sql_error(const Database& db) {
  if (auto refused = db.refusal()) return *refused;
  return bad_input(db.path() + ": " + sqlite3_errmsg(db.get()));
}

// Runs one prepared statement, its rows (if it returns any) to the sink.
Status run_statement(const Database& db, sqlite3_stmt* st, SqlSink& sink) {
  const int columns = sqlite3_column_count(st);
  if (columns > 0) {
    std::vector<std::string> names;
    for (int c = 0; c < columns; ++c) names.emplace_back(sqlite3_column_name(st, c));
    if (Status s = sink.columns(names); !s) return s;
  }
  std::vector<SqlValue> row(static_cast<size_t>(columns));
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    for (int c = 0; c < columns; ++c) row[static_cast<size_t>(c)] = column_value(st, c);
    if (Status s = sink.row(row); !s) return s;
  }
  if (rc != SQLITE_DONE) return sql_error(db);
  return Ok{};
}

// Whether a statement is a PRAGMA that only asks ("PRAGMA journal_mode", no "=" or "(" value):
// SQLite calls some of those writers, though on a read-only connection they change nothing.
bool pragma_query(std::string_view sql) {
  size_t i = 0;
  for (;;) {  // comments and blanks before the statement
    while (i < sql.size() && std::isspace(static_cast<unsigned char>(sql[i]))) ++i;
    if (sql.substr(i, 2) == "--") {
      i = sql.find('\n', i);
      if (i == std::string_view::npos) return false;
    } else if (sql.substr(i, 2) == "/*") {
      i = sql.find("*/", i + 2);
      if (i == std::string_view::npos) return false;
      i += 2;
    } else {
      break;
    }
  }
  std::string word(sql.substr(i, 6));
  for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return word == "PRAGMA" && sql.find_first_of("=(", i) == std::string_view::npos;
}

// Keeps the rows of the last statement that returns rows.
class CollectingSink : public SqlSink {
 public:
  Status columns(const std::vector<std::string>& names) override {
    rows_ = SqlRows{names, {}};
    return Ok{};
  }
  Status row(const std::vector<SqlValue>& values) override {
    rows_.rows.push_back(values);
    return Ok{};
  }
  SqlRows take() { return std::move(rows_); }

 private:
  SqlRows rows_;
};

}  // namespace

Status run_sql(const std::string& path, std::string_view sql, bool write, SqlSink& sink) {
  if (is_server_url(path)) {
    if (parse_store_ref(path).file != path)
      return usage_error(redact_url(path) +
                         ": heapq sql queries the whole store: give the URL without #N "
                         "(WHERE dump_id = N chooses a dump)");
    return run_server_sql(path, sql, write, sink);
  }
  if (struct stat st; ::stat(path.c_str(), &st) != 0)
    return io_error(path + ": cannot open: " + std::strerror(errno));
  if (!is_sqlite_file(path))
    return bad_input(path + ": not a heapq store (an SQLite file, made by heapq load)");
  // Read-only is enforced by SQLite itself; the check below only makes the refusal clear.
  auto db = Database::open(path, write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY);
  if (!db) return db.error();
  if (Status s = store::harden(*db, write ? store::Access::kWrite : store::Access::kQuery); !s)
    return s;
  const char* at = sql.data();
  const char* end = sql.data() + sql.size();
  while (at < end) {
    sqlite3_stmt* raw = nullptr;
    const char* rest = nullptr;
    if (sqlite3_prepare_v2(db->get(), at, static_cast<int>(end - at), &raw, &rest) != SQLITE_OK)
      return sql_error(*db);
    store::Statement st(db->get(), raw);
    at = rest;
    if (!raw) continue;  // whitespace or a comment
    if (!write && !sqlite3_stmt_readonly(raw) && !pragma_query(sqlite3_sql(raw)))
      return usage_error(
          path + ": the store is opened read-only; pass --write to run statements that change it");
    if (Status s = run_statement(*db, raw, sink); !s) return s;
  }
  return Ok{};
}

Result<SqlRows> run_sql(const std::string& path, std::string_view sql, bool write) {
  CollectingSink sink;
  if (Status s = run_sql(path, sql, write, sink); !s) return s.error();
  return sink.take();
}

}  // namespace heapq
