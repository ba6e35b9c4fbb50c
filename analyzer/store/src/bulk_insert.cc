#include "bulk_insert.h"

#include <algorithm>
#include <cstddef>

namespace heapq::store {

namespace {
// SQLite allows 32766 parameters per statement (since 3.32); stay well under it.
constexpr int kMaxParameters = 4000;
}  // namespace

std::string BulkInsert::statement_text(std::string_view table, int columns, int rows) {
  std::string row = "(?";
  for (int c = 1; c < columns; ++c) row += ",?";
  row += ")";
  std::string sql = "INSERT INTO " + std::string(table) + " VALUES " + row;
  sql.reserve(sql.size() + (row.size() + 1) * rows);
  for (int r = 1; r < rows; ++r) sql += "," + row;
  return sql;
}

Result<std::unique_ptr<BulkInsert>> BulkInsert::prepare(Database& db, std::string_view table,
                                                        int columns) {
  const int rows = std::max(1, kMaxParameters / columns);
  std::unique_ptr<BulkInsert> b(new BulkInsert(db, columns, rows));
  auto many = db.prepare(statement_text(table, columns, rows));
  if (!many) return many.error();
  auto one = db.prepare(statement_text(table, columns, 1));
  if (!one) return one.error();
  b->many_ = std::move(*many);
  b->one_ = std::move(*one);
  b->values_.reserve(b->batch_values());
  b->row_.reserve(static_cast<size_t>(columns));
  return b;
}

Status BulkInsert::step(Statement& stmt) {
  if (stmt.step() != SQLITE_DONE) {
    Error e = db_->error();
    stmt.reset();
    return e;
  }
  stmt.reset();
  return Ok{};
}

Status BulkInsert::write(Statement& stmt, size_t first, int rows) {
  const int n = rows * columns_;
  for (int i = 0; i < n; ++i) {
    if (nulls_[first + i])
      stmt.bind_null(i + 1);
    else
      stmt.bind(i + 1, values_[first + i]);
  }
  return step(stmt);
}

Status BulkInsert::end_row() {
  if (row_.size() != static_cast<size_t>(columns_))
    return db_->error("a row of " + std::to_string(row_.size()) + " values for " +
                      std::to_string(columns_) + " columns");
  const bool ints =
      std::all_of(row_.begin(), row_.end(), [](const Cell& c) { return c.kind <= Cell::kNull; });
  if (ints) {
    for (const Cell& c : row_) {
      values_.push_back(c.value);
      nulls_.push_back(c.kind == Cell::kNull);
    }
    row_.clear();
    return values_.size() >= batch_values() ? flush_batches() : Status(Ok{});
  }
  // Text and blobs are bound where they are, for this one execution.
  if (Status s = flush_rows(); !s) return s;
  for (int i = 0; i < columns_; ++i) {
    const Cell& c = row_[static_cast<size_t>(i)];
    switch (c.kind) {
      case Cell::kInt:
        one_.bind(i + 1, c.value);
        break;
      case Cell::kNull:
        one_.bind_null(i + 1);
        break;
      case Cell::kText:
        one_.bind_text(i + 1, c.bytes);
        break;
      case Cell::kBlob:
        one_.bind_blob(i + 1, c.bytes);
        break;
    }
  }
  Status s = step(one_);
  row_.clear();
  row_texts_.clear();
  return s;
}

Status BulkInsert::flush_batches() {
  size_t at = 0;
  for (; at + batch_values() <= values_.size(); at += batch_values())
    if (Status s = write(many_, at, rows_); !s) return s;
  values_.erase(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(at));
  nulls_.erase(nulls_.begin(), nulls_.begin() + static_cast<std::ptrdiff_t>(at));
  return Ok{};
}

// Every buffered row of integers, the last ones one by one.
Status BulkInsert::flush_rows() {
  if (Status s = flush_batches(); !s) return s;
  for (size_t at = 0; at + columns_ <= values_.size(); at += columns_)
    if (Status s = write(one_, at, 1); !s) return s;
  values_.clear();
  nulls_.clear();
  return Ok{};
}

Status BulkInsert::finish() {
  if (!row_.empty()) return db_->error("an unfinished row");
  return flush_rows();
}

}  // namespace heapq::store
