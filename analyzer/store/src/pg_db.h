// A thin layer over libpq: a connection to a PostgreSQL server holding heapq's store, queries
// with binary results, rows read one at a time, COPY in binary format; errors as values that
// never show a password.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "heapq/base/result.h"
#include "pg_url.h"
#include "table_rows.h"

namespace heapq::store {

struct PgResultFree {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, PgResultFree>;

// A value of a binary-format result: an integer of any width, or the bytes of text or bytea.
int64_t pg_int(const PGresult* r, int row, int col);
std::string_view pg_bytes(const PGresult* r, int row, int col);

// Text as the server keeps it: PostgreSQL's text holds no NUL character, written U+2400 (SYMBOL
// FOR NULL) instead, by COPY and parameters alike.
std::string server_text(std::string_view s);

class PgConnection {
 public:
  PgConnection() = default;
  PgConnection(PgConnection&&) noexcept = default;
  PgConnection& operator=(PgConnection&&) noexcept = default;

  // Connects (exit status 3 when the server cannot be reached) and works in the schema heapq.
  static Result<PgConnection> connect(const std::string& url);

  PGconn* get() const { return conn_.get(); }
  // The URL without its password, for messages.
  const std::string& name() const { return url_.redacted(); }
  // heapq.NAME, NAME quoted by libpq: a table of the store, by a name heapq chose.
  std::string table(std::string_view name) const;

  // Runs statements that return no rows we need (one or several, no parameters).
  Status exec(const std::string& sql);
  // One statement with text parameters ($1, $2, ...; nullopt: NULL) and binary results.
  Result<PgResult> query(std::string_view sql,
                         const std::vector<std::optional<std::string>>& params = {});

  // "URL: the server's message": exit status 3 when the connection is gone, 2 otherwise.
  Error error(std::string_view what = {}) const;
  Error error_of(const PGresult* r) const;

 private:
  struct Close {
    void operator()(PGconn* c) const { PQfinish(c); }
  };
  // Where the connection's statements are cancelled from (cancel_server_statements).
  class CancelSlot {
   public:
    CancelSlot() = default;
    explicit CancelSlot(PGconn* conn);
    CancelSlot(CancelSlot&& o) noexcept : index_(std::exchange(o.index_, -1)) {}
    CancelSlot& operator=(CancelSlot&& o) noexcept;
    ~CancelSlot();

   private:
    int index_ = -1;
  };
  // What a notice of the server is printed with (its processor's argument: it does not move).
  struct NoticeSource {
    std::string name;
  };
  Status setup();

  UrlSecrets url_;
  std::unique_ptr<NoticeSource> notices_;
  CancelSlot cancel_;
  std::unique_ptr<PGconn, Close> conn_;  // last: finished first, before what its notices use
};

// A query's rows one at a time (libpq's single-row mode): a result of any size is never held
// whole. At most one cursor per connection is open at a time.
class PgCursor {
 public:
  static Result<PgCursor> open(PgConnection& db, std::string_view sql,
                               const std::vector<std::optional<std::string>>& params);
  PgCursor(PgCursor&& o) noexcept : db_(o.db_), row_(std::move(o.row_)), done_(o.done_) {
    o.done_ = true;
  }
  ~PgCursor();

  // The next row; false after the last.
  Result<bool> next();
  const PGresult* row() const { return row_.get(); }

 private:
  explicit PgCursor(PgConnection& db) : db_(&db) {}
  PgConnection* db_;
  PgResult row_;
  bool done_ = false;
};

// A table's rows through COPY ... FROM STDIN (FORMAT binary): every column of the table, in
// order; integers as BIGINT. A NUL character, which PostgreSQL's text cannot hold, is written
// as U+2400 (SYMBOL FOR NULL). `then`, statements run once the rows are in (the table's
// indexes), is part of finish().
class PgCopy final : public TableRows {
 public:
  static Result<std::unique_ptr<PgCopy>> begin(PgConnection& db, const std::string& table,
                                               int columns, std::string then = {});
  ~PgCopy() override;
  void add(int64_t v) override;
  void add_null() override;
  void add_text(std::string_view s) override;
  void add_blob(std::string_view bytes) override;
  Status end_row() override;
  Status finish() override;

 private:
  PgCopy(PgConnection& db, int columns, std::string then)
      : db_(&db), columns_(columns), then_(std::move(then)) {}
  void field_length(int32_t n);
  Status put(std::string_view bytes);
  Status flush();

  PgConnection* db_;
  int columns_;
  std::string then_;
  int in_row_ = 0;
  bool open_ = true;
  Status pending_ = Ok{};  // the first failure of a write that could not return it
  std::string buffer_;
};

}  // namespace heapq::store
