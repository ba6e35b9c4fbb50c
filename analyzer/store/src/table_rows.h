// Where the store's writers put rows: a table's rows in bulk (SQLite: multi-row INSERTs;
// PostgreSQL: COPY), whatever the backend. The rows a dump makes are written once, by
// write_dump_rows (store/write_dump_rows.h), for both.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "heapq/base/result.h"

namespace heapq::store {

// One table's rows, values appended column by column, end_row() after each row. A text is
// copied (a temporary will do); a blob's bytes must stay until the row's end_row() returns.
class TableRows {
 public:
  virtual ~TableRows() = default;
  // Every int64_t is a value: an address or memsize of 2^63 is one, not a marker.
  virtual void add(int64_t v) = 0;
  virtual void add_null() = 0;
  void add(std::optional<int64_t> v) { v ? add(*v) : add_null(); }
  virtual void add_text(std::string_view s) = 0;  // UTF-8
  virtual void add_blob(std::string_view bytes) = 0;
  // Ends the row; writes what is buffered once there is enough of it.
  virtual Status end_row() = 0;
  // Writes every row still buffered. Nothing may be added after it.
  virtual Status finish() = 0;
};

class RowTarget {
 public:
  virtual ~RowTarget() = default;
  // The rows of `table`, which has `columns` columns, all given in their order. One table's
  // rows at a time: finish() them before asking for the next table's.
  virtual Result<std::unique_ptr<TableRows>> rows(std::string_view table, int columns) = 0;
  // gems.id of a gem (the row added when there is none), in a store shared by all dumps.
  virtual Result<int64_t> gem_id(std::string_view name, std::string_view version) = 0;
  // A second target that takes other tables' rows at the same time, from another thread (a
  // server's second connection); none where rows go one table at a time (SQLite).
  virtual RowTarget* beside() { return nullptr; }
};

// Runs fn(rows) to add `table`'s rows (it has `columns` columns), then finishes them.
template <typename Fn>
Status write_table(RowTarget& to, std::string_view table, int columns, Fn fn) {
  auto rows = to.rows(table, columns);
  if (!rows) return rows.error();
  if (Status s = fn(**rows); !s) return s;
  return (*rows)->finish();
}

}  // namespace heapq::store
