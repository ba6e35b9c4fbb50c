// Multi-row INSERTs of integer rows: many rows per statement execution, fewer trips through
// SQLite's VDBE than one row at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/sqlite_db.h"

namespace heapq::store {

class BulkInsert {
 public:
  // columns: the number of values per row of `table`.
  static Result<BulkInsert> prepare(Database& db, const std::string& table, int columns);

  // Appends one value of the current row (nullopt: NULL); a row is complete after `columns`
  // values. Every int64_t is a value: an address or memsize of 2^63 is one, not a marker.
  void add(int64_t v) {
    values_.push_back(v);
    nulls_.push_back(false);
  }
  void add(std::optional<int64_t> v) {
    values_.push_back(v.value_or(0));
    nulls_.push_back(!v);
  }
  // Writes the buffered rows once a statement's worth is complete.
  Status maybe_flush() { return values_.size() >= batch_values() ? flush_batches() : Status(Ok{}); }
  // Writes every complete buffered row.
  Status finish();

 private:
  BulkInsert(Database& db, int columns, int rows) : db_(&db), columns_(columns), rows_(rows) {}
  size_t batch_values() const { return static_cast<size_t>(columns_) * rows_; }
  static std::string statement_text(const std::string& table, int columns, int rows);
  Status write(Statement& stmt, size_t first, int rows);
  Status flush_batches();

  Database* db_;
  int columns_;
  int rows_;  // per execution of many_
  Statement many_, one_;
  std::vector<int64_t> values_;
  std::vector<bool> nulls_;  // parallel to values_
};

}  // namespace heapq::store
