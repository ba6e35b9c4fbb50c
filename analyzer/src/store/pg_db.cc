#include "store/pg_db.h"

#include <arpa/inet.h>

#include <cstring>

#include "heapq/store.h"

namespace heapq {
namespace store {

namespace {

constexpr size_t kCopyBuffer = 1 << 20;

uint64_t big_endian(const char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = v << 8 | static_cast<unsigned char>(p[i]);
  return v;
}

void append_big_endian(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out += static_cast<char>(v >> (8 * i) & 0xff);
}

// libpq's message: its first line (the rest is hints for a terminal: "\tIs the server running
// locally...?", "LINE 1: ...").
std::string message_of(std::string_view m) {
  m = m.substr(0, m.find('\n'));
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.remove_suffix(1);
  return std::string(m.empty() ? "unknown error" : m);
}

}  // namespace

}  // namespace store

std::string redact_url(std::string_view url) {
  std::string out(url);
  // user:PASSWORD@host: the authority ends at the first '/', '?' or '#' after "//".
  if (const size_t scheme = out.find("://"); scheme != std::string::npos) {
    const size_t start = scheme + 3;
    const size_t end = out.find_first_of("/?#", start);
    const size_t at = out.rfind('@', end == std::string::npos ? out.size() : end);
    if (at != std::string::npos && at >= start) {
      const size_t colon = out.find(':', start);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // password=VALUE in the query (or a key/value string): up to the next '&' or space.
  for (size_t at = 0; (at = out.find("password=", at)) != std::string::npos;) {
    const bool key = at == 0 || out[at - 1] == '?' || out[at - 1] == '&' || out[at - 1] == ' ';
    at += 9;
    if (!key) continue;
    const size_t end = out.find_first_of("& #", at);
    out.replace(at, (end == std::string::npos ? out.size() : end) - at, "***");
  }
  return out;
}

namespace store {

int64_t pg_int(const PGresult* r, int row, int col) {
  const char* p = PQgetvalue(r, row, col);
  const int n = PQgetlength(r, row, col);
  if (PQgetisnull(r, row, col) || n <= 0 || n > 8) return 0;
  const uint64_t v = big_endian(p, static_cast<size_t>(n));
  const int bits = n * 8;
  if (bits == 64) return static_cast<int64_t>(v);
  const uint64_t sign = uint64_t(1) << (bits - 1);  // sign-extend a narrower integer
  return static_cast<int64_t>((v ^ sign) - sign);
}

std::string_view pg_bytes(const PGresult* r, int row, int col) {
  return {PQgetvalue(r, row, col), static_cast<size_t>(PQgetlength(r, row, col))};
}

Result<PgConnection> PgConnection::connect(const std::string& url) {
  PgConnection c;
  c.name_ = redact_url(url);
  const char* keys[] = {"dbname", "fallback_application_name", "client_encoding", nullptr};
  const char* values[] = {url.c_str(), "heapq", "UTF8", nullptr};
  c.conn_.reset(PQconnectdbParams(keys, values, 1));
  if (!c.conn_) return io_error(c.name_ + ": cannot connect: out of memory");
  if (PQstatus(c.conn_.get()) != CONNECTION_OK)
    return io_error(c.name_ +
                    ": cannot connect to the server: " + message_of(PQerrorMessage(c.conn_.get())));
  // JIT compiling heapq's queries costs more than it saves (a second for a group-by that runs
  // in a tenth): off for heapq's own work.
  if (Status s = c.exec("SET search_path = heapq; SET jit = off"); !s) return s.error();
  return c;
}

Error PgConnection::error(std::string_view what) const {
  std::string message = name_ + ": ";
  if (!what.empty()) message += std::string(what) + ": ";
  message += message_of(conn_ ? PQerrorMessage(conn_.get()) : "not connected");
  if (!conn_ || PQstatus(conn_.get()) != CONNECTION_OK)
    return io_error(message + " (the connection to the server is lost)");
  return bad_input(message);
}

Error PgConnection::error_of(const PGresult* r) const {
  if (!r) return error();
  if (!conn_ || PQstatus(conn_.get()) != CONNECTION_OK) return error();
  // Class 08 (connection exception) and 57P (the server shutting down or ending the session):
  // the connection is gone though libpq has not seen its end yet.
  const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  if (state &&
      (std::string_view(state).starts_with("08") || std::string_view(state).starts_with("57P")))
    return io_error(name_ + ": " + message_of(PQresultErrorMessage(r)) +
                    " (the connection to the server is lost)");
  // The primary message alone: libpq's whole text spans lines ("LINE 1: ...", a caret).
  const char* primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
  return bad_input(name_ + ": " + message_of(primary ? primary : PQresultErrorMessage(r)));
}

Status PgConnection::exec(const std::string& sql) {
  PgResult r(PQexec(conn_.get(), sql.c_str()));
  const ExecStatusType st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return error_of(r.get());
  return Ok{};
}

namespace {

struct Params {
  std::vector<const char*> values;
  explicit Params(const std::vector<std::optional<std::string>>& params) {
    for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  }
};

}  // namespace

Result<PgResult> PgConnection::query(std::string_view sql,
                                     const std::vector<std::optional<std::string>>& params) {
  Params p(params);
  PgResult r(PQexecParams(conn_.get(), std::string(sql).c_str(), static_cast<int>(params.size()),
                          nullptr, p.values.data(), nullptr, nullptr, 1));
  const ExecStatusType st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return error_of(r.get());
  return r;
}

Result<PgCursor> PgCursor::open(PgConnection& db, std::string_view sql,
                                const std::vector<std::optional<std::string>>& params) {
  Params p(params);
  if (!PQsendQueryParams(db.get(), std::string(sql).c_str(), static_cast<int>(params.size()),
                         nullptr, p.values.data(), nullptr, nullptr, 1))
    return db.error();
  PgCursor c(db);
  PQsetSingleRowMode(db.get());
  return c;
}

PgCursor::~PgCursor() {
  if (done_) return;
  // Abandoned before its end: what is still coming is cancelled and drained, so that the
  // connection is usable (a query whose last row was read has nothing more to cancel).
  PQconsumeInput(db_->get());
  if (PQisBusy(db_->get()))
    if (PGcancel* cancel = PQgetCancel(db_->get())) {
      char buf[256];
      PQcancel(cancel, buf, sizeof buf);
      PQfreeCancel(cancel);
    }
  while (PGresult* r = PQgetResult(db_->get())) PQclear(r);
}

Result<bool> PgCursor::next() {
  if (done_) return false;
  row_.reset(PQgetResult(db_->get()));
  const ExecStatusType st = row_ ? PQresultStatus(row_.get()) : PGRES_FATAL_ERROR;
  if (st == PGRES_SINGLE_TUPLE) return true;
  Error e = db_->error_of(row_.get());
  row_.reset();
  while (PGresult* r = PQgetResult(db_->get())) PQclear(r);
  done_ = true;
  if (st == PGRES_TUPLES_OK) return false;
  return e;
}

Result<std::unique_ptr<PgCopy>> PgCopy::begin(PgConnection& db, const std::string& table,
                                              int columns, std::string then) {
  PgResult r(PQexec(db.get(), ("COPY " + table + " FROM STDIN (FORMAT binary)").c_str()));
  if (!r || PQresultStatus(r.get()) != PGRES_COPY_IN) return db.error_of(r.get());
  std::unique_ptr<PgCopy> c(new PgCopy(db, columns, std::move(then)));
  c->buffer_.reserve(kCopyBuffer + 4096);
  c->buffer_.append("PGCOPY\n\377\r\n\0", 11);
  append_big_endian(c->buffer_, 0, 4);  // flags
  append_big_endian(c->buffer_, 0, 4);  // header extension
  return c;
}

PgCopy::~PgCopy() {
  if (!open_) return;
  PQputCopyEnd(db_->get(), "abandoned");
  while (PGresult* r = PQgetResult(db_->get())) PQclear(r);
}

void PgCopy::field_length(int32_t n) {
  if (in_row_++ == 0) append_big_endian(buffer_, static_cast<uint64_t>(columns_), 2);
  append_big_endian(buffer_, static_cast<uint32_t>(n), 4);
}

void PgCopy::add(int64_t v) {
  field_length(8);
  append_big_endian(buffer_, static_cast<uint64_t>(v), 8);
}

void PgCopy::add_null() {
  field_length(-1);
}

void PgCopy::add_text(std::string_view s) {
  if (s.find('\0') == std::string_view::npos) {
    field_length(static_cast<int32_t>(s.size()));
    buffer_.append(s);
    return;
  }
  std::string text;
  for (char c : s) c ? text += c : text += "\u2400";
  field_length(static_cast<int32_t>(text.size()));
  buffer_.append(text);
}

void PgCopy::add_blob(std::string_view bytes) {
  field_length(static_cast<int32_t>(bytes.size()));
  if (bytes.size() < kCopyBuffer) {
    buffer_.append(bytes);
    return;
  }
  // A big blob goes straight to libpq; what precedes it first.
  pending_ = flush();
  if (pending_) pending_ = put(bytes);
}

Status PgCopy::put(std::string_view bytes) {
  if (PQputCopyData(db_->get(), bytes.data(), static_cast<int>(bytes.size())) != 1)
    return db_->error("COPY");
  return Ok{};
}

Status PgCopy::flush() {
  Status s = buffer_.empty() ? Status(Ok{}) : put(buffer_);
  buffer_.clear();
  return s;
}

Status PgCopy::end_row() {
  if (in_row_ != columns_)
    return db_->error("a row of " + std::to_string(in_row_) + " values for " +
                      std::to_string(columns_) + " columns");
  in_row_ = 0;
  if (!pending_) return pending_;
  return buffer_.size() >= kCopyBuffer ? flush() : Status(Ok{});
}

Status PgCopy::finish() {
  append_big_endian(buffer_, 0xffff, 2);  // the trailer
  Status s = pending_ ? flush() : pending_;
  open_ = false;
  if (PQputCopyEnd(db_->get(), s ? nullptr : "failed") != 1 && s) s = db_->error("COPY");
  PgResult r(PQgetResult(db_->get()));
  if (s && (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK)) s = db_->error_of(r.get());
  while (PGresult* more = PQgetResult(db_->get())) PQclear(more);
  if (s && !then_.empty()) s = db_->exec(then_);
  return s;
}

}  // namespace store
}  // namespace heapq
