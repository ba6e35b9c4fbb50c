// Where StoreReader reads a dump's rows from, whatever the backend: a SQLite file (hardened
// as store/hardening.h says) or a PostgreSQL server.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "heapq/base/result.h"

namespace heapq::store {

// A query's rows, one at a time.
class RowCursor {
 public:
  virtual ~RowCursor() = default;
  // The next row; false after the last.
  virtual Result<bool> next() = 0;
  virtual int64_t int64(int col) const = 0;
  virtual bool is_null(int col) const = 0;
  virtual std::string_view text(int col) const = 0;
};

class RowSource {
 public:
  virtual ~RowSource() = default;
  // The store's name in messages: its path, or its URL without a password.
  virtual const std::string& name() const = 0;
  // Runs `sql` with its parameters, written ? in it (an integer or a text each).
  using Param = std::variant<int64_t, std::string>;
  virtual Result<std::unique_ptr<RowCursor>> query(std::string_view sql,
                                                   const std::vector<Param>& params) = 0;
  // Runs `sql`, whose one parameter (written ?) is the dump's id.
  Result<std::unique_ptr<RowCursor>> select(std::string_view sql, int64_t dump) {
    return query(sql, {dump});
  }
  // The blobs of `table` (graph_columns, class_edges) named `column` for the dump, in chunk
  // order, copied to where buffer(total bytes) says; false when there is none.
  virtual Result<bool> read_column(std::string_view table, int64_t dump, std::string_view column,
                                   const std::function<char*(size_t)>& buffer) = 0;
  // Another connection to the store, to read on another thread.
  virtual Result<std::unique_ptr<RowSource>> another() = 0;
};

// Runs `sql` on db and calls row(cursor) with each of its rows, in order.
template <typename Row>
Status each_row(RowSource& db, std::string_view sql, const std::vector<RowSource::Param>& params,
                Row row) {
  auto rows = db.query(sql, params);
  if (!rows) return rows.error();
  for (;;) {
    auto more = (*rows)->next();
    if (!more) return more.error();
    if (!*more) return Ok{};
    row(static_cast<const RowCursor&>(**rows));
  }
}

// A connection for heapq's own reads of a store: a SQLite file (hardened: tables only, work
// bounded by the file's size) or a server's URL (postgresql://...), checked to be a heapq
// store of this schema version.
Result<std::unique_ptr<RowSource>> open_row_source(const std::string& store);

}  // namespace heapq::store
