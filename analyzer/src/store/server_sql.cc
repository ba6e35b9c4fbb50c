// heapq sql on a PostgreSQL server: read-only unless asked otherwise, rows streamed to the sink.
#include <charconv>
#include <cstdlib>
#include <string>

#include "heapq/store.h"
#include "store/pg_db.h"
#include "store/server_schema.h"

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
  HEAPQ_RETURN_IF_ERROR(store::check_server_schema(*db));
  if (!write) {
    // Read-only by the server itself: one statement (the extended protocol takes no more, so
    // none can end the transaction and start another), in a transaction that has taken its
    // snapshot (no SET TRANSACTION can make it writable any more).
    HEAPQ_RETURN_IF_ERROR(db->exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT 1"));
    if (!PQsendQueryParams(db->get(), std::string(sql).c_str(), 0, nullptr, nullptr, nullptr,
                           nullptr, 0))
      return db->error();
    HEAPQ_RETURN_IF_ERROR(stream_results(*db, sink, false));
    return db->exec("ROLLBACK");
  }
  HEAPQ_RETURN_IF_ERROR(db->exec("BEGIN"));
  if (!PQsendQuery(db->get(), std::string(sql).c_str())) return db->error();
  HEAPQ_RETURN_IF_ERROR(stream_results(*db, sink, true));
  return db->exec("COMMIT");
}

}  // namespace heapq
