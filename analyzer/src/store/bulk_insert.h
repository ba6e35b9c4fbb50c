// Multi-row INSERTs of integer rows: many rows per statement execution, fewer trips through
// SQLite's VDBE than one row at a time.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "store/sqlite_db.h"

namespace heapq::store {

class BulkInsert {
 public:
  // A value that is written as NULL.
  static constexpr int64_t kNull = std::numeric_limits<int64_t>::min();

  // columns: the number of values per row of `table`.
  static Result<BulkInsert> prepare(Database& db, const std::string& table, int columns);

  // Appends one value of the current row; a row is complete after `columns` values.
  void add(int64_t v) { values_.push_back(v); }
  // Writes the buffered rows once a statement's worth is complete.
  Status maybe_flush() { return values_.size() >= batch_values() ? flush_batches() : Status(Ok{}); }
  // Writes every complete buffered row.
  Status finish();

 private:
  BulkInsert(Database& db, int columns, int rows) : db_(&db), columns_(columns), rows_(rows) {}
  size_t batch_values() const { return static_cast<size_t>(columns_) * rows_; }
  static std::string statement_text(const std::string& table, int columns, int rows);
  Status write(Statement& stmt, const int64_t* values, int rows);
  Status flush_batches();

  Database* db_;
  int columns_;
  int rows_;  // per execution of many_
  Statement many_, one_;
  std::vector<int64_t> values_;
};

}  // namespace heapq::store
