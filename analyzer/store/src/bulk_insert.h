// A table's rows into SQLite: rows of integers many per statement execution (fewer trips
// through SQLite's virtual machine than one at a time), rows with text or a blob one by one.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "sqlite_db.h"
#include "table_rows.h"

namespace heapq::store {

class BulkInsert final : public TableRows {
 public:
  // columns: the number of values per row of `table`.
  static Result<std::unique_ptr<BulkInsert>> prepare(Database& db, std::string_view table,
                                                     int columns);

  void add(int64_t v) override { row_.push_back({Cell::kInt, v, {}}); }
  void add_null() override { row_.push_back({Cell::kNull, 0, {}}); }
  void add_text(std::string_view s) override {
    row_.push_back({Cell::kText, 0, row_texts_.emplace_back(s)});
  }
  void add_blob(std::string_view bytes) override { row_.push_back({Cell::kBlob, 0, bytes}); }
  Status end_row() override;
  Status finish() override;

 private:
  struct Cell {
    enum Kind : uint8_t { kInt, kNull, kText, kBlob } kind;
    int64_t value;
    std::string_view bytes;
  };
  BulkInsert(Database& db, int columns, int rows) : db_(&db), columns_(columns), rows_(rows) {}
  size_t batch_values() const { return static_cast<size_t>(columns_) * rows_; }
  static std::string statement_text(std::string_view table, int columns, int rows);
  Status step(Statement& stmt);
  Status write(Statement& stmt, size_t first, int rows);
  Status flush_batches();
  Status flush_rows();

  Database* db_;
  int columns_;
  int rows_;  // per execution of many_
  Statement many_, one_;
  std::vector<Cell> row_;              // the row being added
  std::deque<std::string> row_texts_;  // its texts' copies (a deque never moves them)
  std::vector<int64_t> values_;        // rows of integers waiting for a batch
  std::vector<bool> nulls_;            // parallel to values_
};

}  // namespace heapq::store
