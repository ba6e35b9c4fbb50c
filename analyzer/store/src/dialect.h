// schemas/store.sql in either of the store's dialects: the one text holds SQLite's schema and,
// next to it, what PostgreSQL does differently (the file's head says how).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace heapq::store {

enum class Dialect { kSqlite, kPostgres };

enum class SchemaPart {
  kTables,     // what makes the tables, before any row
  kAfterRows,  // what follows the "-- @after-rows" line: indexes, triggers, views
};

// The part's statements in the dialect: the lines of the other dialect's sections left out,
// and for PostgreSQL the words the file's head lists replaced.
std::string schema_sql(Dialect dialect, SchemaPart part);

// One of heapq's own statements, written for SQLite (? for parameters, tables by their bare
// names), as a server runs it: $1, $2, ..., and each of `tables` after FROM or JOIN named
// heapq.TABLE (a server's connections search pg_catalog alone). heapq's statements have no ?
// and no such word elsewhere.
std::string postgres_statement(std::string_view sql, const std::vector<std::string>& tables);

}  // namespace heapq::store
