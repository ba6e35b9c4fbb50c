// schemas/store.sql in either of the store's dialects: the one text holds SQLite's schema and,
// next to it, what PostgreSQL does differently (the file's head says how).
#pragma once

#include <string>

namespace heapq::store {

enum class Dialect { kSqlite, kPostgres };

enum class SchemaPart {
  kTables,     // what makes the tables, before any row
  kAfterRows,  // what follows the "-- @after-rows" line: indexes, triggers, views
};

// The part's statements in the dialect: the lines of the other dialect's sections left out,
// and for PostgreSQL the words the file's head lists replaced.
std::string schema_sql(Dialect dialect, SchemaPart part);

}  // namespace heapq::store
