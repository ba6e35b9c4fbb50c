// heapq sql on a PostgreSQL server: read-only unless asked otherwise, rows streamed to the sink.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <string>

#include "heapq/store/store.h"
#include "pg_db.h"
#include "pg_schema.h"

namespace heapq {

using store::PgConnection;
using store::PgResult;

namespace {

// Type OIDs of PostgreSQL's catalog (pg_type.h, stable across versions).
constexpr Oid kBool = 16, kInt8 = 20, kInt2 = 21, kInt4 = 23, kOid = 26, kFloat4 = 700,
              kFloat8 = 701, kNumeric = 1700;

// A value of a text-format result as heapq sql shows SQLite's: integers and reals as numbers
// (a numeric that is whole and fits in 64 bits as an integer: sum() of BIGINTs is numeric).
SqlValue column_value(const PGresult* r, int col) {
  if (PQgetisnull(r, 0, col)) return std::monostate{};
  const std::string_view text(PQgetvalue(r, 0, col), static_cast<size_t>(PQgetlength(r, 0, col)));
  const Oid type = PQftype(r, col);
  if (type == kBool) return int64_t(text == "t");
  if (type == kInt8 || type == kInt2 || type == kInt4 || type == kOid || type == kNumeric) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && end == text.data() + text.size()) return v;
  }
  if (type == kFloat4 || type == kFloat8 || type == kNumeric) {
    const std::string s(text);
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (end && *end == '\0') return d;
  }
  return std::string(text);
}

// The words of SQL text, upper-cased, and its other characters one by one; comments skipped.
// Enough to read what kind of statement it is: the server parses it.
class Words {
 public:
  explicit Words(std::string_view sql) : sql_(sql) {}
  std::string next() {
    skip_blanks();
    if (at_ >= sql_.size()) return {};
    if (!std::isalpha(static_cast<unsigned char>(sql_[at_])) && sql_[at_] != '_')
      return std::string(1, sql_[at_++]);
    std::string word;
    while (at_ < sql_.size() && (std::isalnum(static_cast<unsigned char>(sql_[at_])) ||
                                 sql_[at_] == '_' || sql_[at_] == '$'))
      word += static_cast<char>(std::toupper(static_cast<unsigned char>(sql_[at_++])));
    return word;
  }

 private:
  void skip_blanks() {
    for (;;) {
      while (at_ < sql_.size() && std::isspace(static_cast<unsigned char>(sql_[at_]))) ++at_;
      if (sql_.substr(at_, 2) == "--") {
        at_ = std::min(sql_.find('\n', at_), sql_.size());
      } else if (sql_.substr(at_, 2) == "/*") {
        int depth = 0;  // PostgreSQL's comments nest
        do {
          if (sql_.substr(at_, 2) == "/*")
            ++depth, at_ += 2;
          else if (sql_.substr(at_, 2) == "*/")
            --depth, at_ += 2;
          else
            ++at_;
        } while (depth > 0 && at_ < sql_.size());
      } else {
        return;
      }
    }
  }
  std::string_view sql_;
  size_t at_ = 0;
};

// Why `sql` is not one statement that only reads, or nothing: heapq sql without --write runs
// SELECT, WITH, VALUES, TABLE, SHOW and EXPLAIN without ANALYZE (the transaction it runs in is
// read-only as well; COPY and the like do not ask it).
std::optional<std::string> not_a_read(std::string_view sql) {
  Words words(sql);
  std::string first = words.next();
  while (first == "(") first = words.next();
  if (first == "SELECT" || first == "WITH" || first == "VALUES" || first == "TABLE" ||
      first == "SHOW")
    return std::nullopt;
  if (first == "EXPLAIN") {
    std::string option = words.next();
    int depth = option == "(" ? 1 : 0;
    while (depth > 0 || option == "ANALYZE" || option == "ANALYSE" || option == "VERBOSE") {
      if (option == "ANALYZE" || option == "ANALYSE")
        return "EXPLAIN ANALYZE runs the statement it explains";
      option = words.next();
      if (option.empty()) break;
      depth += option == "(" ? 1 : option == ")" ? -1 : 0;
    }
    return std::nullopt;
  }
  if (first.empty()) return "no statement";
  return first + " is not a statement that only reads (SELECT, WITH, VALUES, TABLE, SHOW, EXPLAIN)";
}

std::string sqlstate(const PGresult* r) {
  const char* code = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  return code ? code : "";
}

// Runs what was sent, each statement's rows to the sink in turn.
Status stream_results(PgConnection& db, SqlSink& sink, bool write) {
  PQsetSingleRowMode(db.get());
  Status status = Ok{};
  bool columns_sent = false;
  std::vector<SqlValue> row;
  while (PgResult r{PQgetResult(db.get())}) {
    if (!status) continue;  // drained after an error
    const ExecStatusType st = PQresultStatus(r.get());
    if (st == PGRES_SINGLE_TUPLE || st == PGRES_TUPLES_OK) {
      const int columns = PQnfields(r.get());
      if (!columns_sent) {
        std::vector<std::string> names;
        for (int c = 0; c < columns; ++c) names.emplace_back(PQfname(r.get(), c));
        status = sink.columns(names);
        columns_sent = true;
      }
      if (st == PGRES_TUPLES_OK) {
        columns_sent = false;  // the statement's end
        continue;
      }
      row.resize(static_cast<size_t>(columns));
      for (int c = 0; c < columns; ++c) row[static_cast<size_t>(c)] = column_value(r.get(), c);
      if (status) status = sink.row(row);
    } else if (st == PGRES_COMMAND_OK || st == PGRES_EMPTY_QUERY) {
      columns_sent = false;
    } else {
      const std::string code = sqlstate(r.get());
      if (!write && code == "25006")  // read_only_sql_transaction
        status = usage_error(db.name() +
                             ": the store is opened read-only; pass --write to run statements "
                             "that change it");
      else if (!write && code == "42601" &&
               std::string_view(PQresultErrorMessage(r.get())).find("multiple commands") !=
                   std::string_view::npos)
        status = usage_error(db.name() +
                             ": read-only, a server runs one statement at a time: give them one "
                             "by one");
      else
        status = db.error_of(r.get());
    }
  }
  return status;
}

}  // namespace

Status run_server_sql(const std::string& url, std::string_view sql, bool write, SqlSink& sink) {
  auto db = PgConnection::connect(url);
  if (!db) return db.error();
  if (!write)
    if (auto refusal = not_a_read(sql))
      return usage_error(db->name() + ": read-only: " + *refusal + "; pass --write to run it");
  // Read-only by the server itself too: one statement (the extended protocol takes no more, so
  // none can end the transaction and start another), in a transaction that has taken its
  // snapshot (no SET TRANSACTION can make it writable any more). The user's statement names
  // heapq's tables bare: the schema is searched after pg_catalog.
  HEAPQ_RETURN_IF_ERROR(store::begin_store_transaction(*db, write));
  HEAPQ_RETURN_IF_ERROR(db->exec("SET search_path = pg_catalog, heapq"));
  const std::string text(sql);
  if (!write) {
    if (!PQsendQueryParams(db->get(), text.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0))
      return db->error();
    HEAPQ_RETURN_IF_ERROR(stream_results(*db, sink, false));
    return db->exec("ROLLBACK");
  }
  if (!PQsendQuery(db->get(), text.c_str())) return db->error();
  HEAPQ_RETURN_IF_ERROR(stream_results(*db, sink, true));
  return db->exec("COMMIT");
}

}  // namespace heapq
