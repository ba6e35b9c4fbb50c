// Hardening of the connections heapq opens on a store. A store may come from anyone: its views,
// triggers, table definitions and rows are a stranger's, and heapq sql runs the user's SQL.
//
// Every connection:
// - SQLITE_DBCONFIG_TRUSTED_SCHEMA off: the store's views, triggers, CHECK and DEFAULT clauses
//   and index expressions may call only innocuous functions and virtual tables.
// - SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER and _ENABLE_LOAD_EXTENSION off.
// - An authorizer that refuses, whether the user's SQL or the store's asks for them:
//   - fts3_tokenizer(): with one argument it returns the address of a tokenizer in heapq's
//     memory; with two it installs any blob as a tokenizer pointer, which the next MATCH on an
//     FTS3 table calls. Debian builds SQLite with SQLITE_ENABLE_FTS3_TOKENIZER, which keeps the
//     function whatever the dbconfig switch above says.
//   - load_extension(): loads a shared library into heapq.
//   - PRAGMA temp_store_directory and data_store_directory: set where the whole process writes
//     its temporary files (and are not thread-safe); soft_heap_limit and hard_heap_limit: limits
//     of the whole process; trusted_schema: would undo the switch above; writable_schema: lets
//     SQL rewrite sqlite_schema, what each table is.
// - SQLITE_DBCONFIG_DEFENSIVE on, but for kLoad: no writes to sqlite_dbpage or to the shadow
//   tables of virtual tables (FTS, R*Tree), which SQLite then misreads. kLoad, heapq's own
//   statements on a store whose schema check_schema() found to be heapq's, turns the journal
//   off for its bulk load, which the defensive mode forbids.
// kRead (heapq reading its tables): views and triggers off, and the statements of a connection
//   together stop after a number of SQLite's steps in proportion to the store's size, far more
//   than reading its every row takes: a view or a damaged file never makes a command hang.
// kQuery (heapq sql, read-only): a PRAGMA only asks (no value), but for those whose argument
//   names what to inspect (table_info(objects)). Its work is not bounded: a user's query may be
//   long on purpose, and Ctrl-C stops it (heapq sql leaves SIGINT to its default).
#include "hardening.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <unordered_map>

#include "dialect.h"
#include "heapq/base/keyed_hash.h"

namespace heapq::store {

namespace {

// How often the progress handler runs, in SQLite's virtual machine steps.
constexpr int kStepsPerCall = 10000;
// Reading every row of a store takes about 0.2 steps per byte of its file (2 million steps for
// the 10 MB of 117,000 objects and their references); a connection may take 16 per byte, and
// 10^7 steps at least (a few tenths of a second).
constexpr int64_t kStepsPerByte = 16;
constexpr int64_t kMinSteps = 10'000'000;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool one_of(const std::string& name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

int authorize(void* data, int action, const char* a3, const char* a4, const char*,
              const char* view_or_trigger) {
  Guard& guard = *static_cast<Guard*>(data);
  auto refuse = [&](const std::string& why) {
    // From a view or a trigger, the store asked for it; otherwise the user's SQL did.
    guard.refusal =
        view_or_trigger ? bad_input(why + " (in " + view_or_trigger + ")") : usage_error(why);
    return SQLITE_DENY;
  };
  if (action == SQLITE_FUNCTION && a4) {
    const std::string name = lower(a4);
    if (one_of(name, {"fts3_tokenizer", "load_extension"}))
      return refuse(name + "() is refused: it reaches into heapq's own memory");
  }
  if (action == SQLITE_PRAGMA && a3) {
    const std::string name = lower(a3);
    if (one_of(name, {"temp_store_directory", "data_store_directory", "soft_heap_limit",
                      "hard_heap_limit", "trusted_schema", "writable_schema"}))
      return refuse("PRAGMA " + name + " is refused on a store");
    if (guard.access == Access::kQuery && a4 &&
        !one_of(name, {"table_info", "table_xinfo", "table_list", "index_info", "index_xinfo",
                       "index_list", "foreign_key_list", "foreign_key_check", "integrity_check",
                       "quick_check"}))
      return refuse("PRAGMA " + name +
                    " with a value: the store is opened read-only; pass --write to run "
                    "statements that change it");
  }
  return SQLITE_OK;
}

int bound_work(void* data) {
  Guard& guard = *static_cast<Guard*>(data);
  if (guard.calls_left-- > 0) return 0;
  guard.refusal = bad_input(
      "reading the store takes far more work than its size justifies: it is not a store heapq "
      "made, or it is damaged");
  return 1;
}

Result<int64_t> pragma_value(Database& db, const char* sql) {
  auto st = db.prepare(sql);
  if (!st) return st.error();
  if (st->step() != SQLITE_ROW) return db.error();
  return st->int64(0);
}

}  // namespace

Status harden(Database& db, Access access) {
  Guard& guard = db.guard();
  guard.access = access;
  struct Switch {
    int option, value;
  };
  const bool read = access == Access::kRead;
  const Switch switches[] = {
      {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
      {SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0},
      {SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0},
      {SQLITE_DBCONFIG_DEFENSIVE, access != Access::kLoad},
      {SQLITE_DBCONFIG_ENABLE_VIEW, !read},
      {SQLITE_DBCONFIG_ENABLE_TRIGGER, !read},
  };
  for (const Switch& s : switches)
    if (sqlite3_db_config(db.get(), s.option, s.value, nullptr) != SQLITE_OK)
      return io_error(db.path() + ": cannot harden the SQLite connection");
  sqlite3_set_authorizer(db.get(), authorize, &guard);
  if (!read) return Ok{};
  auto pages = pragma_value(db, "PRAGMA page_count");
  if (!pages) return pages.error();
  auto page_size = pragma_value(db, "PRAGMA page_size");
  if (!page_size) return page_size.error();
  const int64_t steps = std::max(kMinSteps, *pages * *page_size * kStepsPerByte);
  guard.calls_left = steps / kStepsPerCall;
  sqlite3_progress_handler(db.get(), kStepsPerCall, bound_work, &guard);
  return Ok{};
}

const std::vector<std::pair<std::string, std::string>>& own_schema() {
  static const auto objects = [] {
    auto db = Database::open(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    Status s =
        db ? db->exec(schema_sql(Dialect::kSqlite, SchemaPart::kTables)) : Status(db.error());
    if (s) s = db->exec(schema_sql(Dialect::kSqlite, SchemaPart::kAfterRows));
    if (!s) throw std::logic_error("schemas/store.sql: " + s.error().message);
    auto st = db->prepare("SELECT type, name FROM sqlite_schema");
    if (!st) throw std::logic_error(st.error().message);
    std::vector<std::pair<std::string, std::string>> out;
    while (st->step() == SQLITE_ROW) out.emplace_back(st->text(0), st->text(1));
    return out;
  }();
  return objects;
}

Status check_schema(Database& db, bool only_own) {
  struct Found {
    std::string type, name;
    bool is_virtual;
  };
  std::unordered_map<std::string, Found, KeyedHash> found;  // by name, as SQLite compares names
  auto st =
      db.prepare("SELECT type, name, sql LIKE 'CREATE VIRTUAL%' FROM sqlite_schema ORDER BY rowid");
  if (!st) return st.error();
  int rc;
  std::vector<std::string> order;
  while ((rc = st->step()) == SQLITE_ROW) {
    std::string name(st->text(1));
    order.push_back(lower(name));
    found[order.back()] = {std::string(st->text(0)), std::move(name), st->int64(2) != 0};
  }
  if (rc != SQLITE_DONE) return db.error();
  std::unordered_map<std::string, std::string, KeyedHash> own;  // name: type
  for (const auto& [type, name] : own_schema()) own.emplace(lower(name), type);
  for (const auto& [name, type] : own) {
    if (type != "table" || name.starts_with("sqlite_")) continue;
    auto it = found.find(name);
    if (it == found.end()) return bad_input(db.path() + ": not a heapq store: no table " + name);
    if (it->second.type != "table" || it->second.is_virtual)
      return bad_input(db.path() + ": " + name + " is " +
                       (it->second.is_virtual ? "a virtual table" : "a " + it->second.type) +
                       ", not heapq's table: the store was not made by heapq load, or was "
                       "changed since");
  }
  if (!only_own) return Ok{};
  for (const std::string& name : order) {
    const Found& f = found[name];
    auto it = own.find(name);
    if (it == own.end() || it->second != f.type)
      return bad_input(db.path() + ": the " + f.type + " \"" + f.name +
                       "\" is not heapq's: dumps are appended only to a store as heapq load "
                       "makes it (drop it with heapq sql --write)");
  }
  return Ok{};
}

}  // namespace heapq::store
