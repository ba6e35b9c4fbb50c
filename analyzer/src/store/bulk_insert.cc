#include "store/bulk_insert.h"

#include <algorithm>
#include <cstddef>

namespace heapq::store {

namespace {
// SQLite allows 32766 parameters per statement (since 3.32); stay well under it.
constexpr int kMaxParameters = 4000;
}  // namespace

std::string BulkInsert::statement_text(const std::string& table, int columns, int rows) {
  std::string row = "(?";
  for (int c = 1; c < columns; ++c) row += ",?";
  row += ")";
  std::string sql = "INSERT INTO " + table + " VALUES " + row;
  sql.reserve(sql.size() + (row.size() + 1) * rows);
  for (int r = 1; r < rows; ++r) sql += "," + row;
  return sql;
}

Result<BulkInsert> BulkInsert::prepare(Database& db, const std::string& table, int columns) {
  const int rows = std::max(1, kMaxParameters / columns);
  BulkInsert b(db, columns, rows);
  auto many = db.prepare(statement_text(table, columns, rows));
  if (!many) return many.error();
  auto one = db.prepare(statement_text(table, columns, 1));
  if (!one) return one.error();
  b.many_ = std::move(*many);
  b.one_ = std::move(*one);
  b.values_.reserve(b.batch_values());
  return b;
}

Status BulkInsert::write(Statement& stmt, size_t first, int rows) {
  const int n = rows * columns_;
  for (int i = 0; i < n; ++i) {
    if (nulls_[first + i])
      stmt.bind_null(i + 1);
    else
      stmt.bind(i + 1, values_[first + i]);
  }
  if (stmt.step() != SQLITE_DONE) {
    Error e = db_->error();
    stmt.reset();
    return e;
  }
  stmt.reset();
  return Ok{};
}

Status BulkInsert::flush_batches() {
  size_t at = 0;
  for (; at + batch_values() <= values_.size(); at += batch_values())
    if (Status s = write(many_, at, rows_); !s) return s;
  values_.erase(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(at));
  nulls_.erase(nulls_.begin(), nulls_.begin() + static_cast<std::ptrdiff_t>(at));
  return Ok{};
}

Status BulkInsert::finish() {
  if (Status s = flush_batches(); !s) return s;
  size_t at = 0;
  for (; at + columns_ <= values_.size(); at += columns_)
    if (Status s = write(one_, at, 1); !s) return s;
  values_.clear();
  nulls_.clear();
  return Ok{};
}

}  // namespace heapq::store
