#include "pg_db.h"

#include <arpa/inet.h>

#include <atomic>
#include <cstring>

#include "heapq/base/utf8.h"
#include "heapq/store/store.h"

namespace heapq {

namespace {
std::atomic<bool> g_cancelled{false};
}  // namespace

namespace store {

namespace {

constexpr size_t kCopyBuffer = 1 << 20;
// heapq's bounds on waiting, where the URL, the role or the database sets none.
constexpr const char* kLockTimeout = "1min";
constexpr const char* kStatementTimeout = "30min";

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

namespace {

// Connections whose statements cancel_server_statements() cancels: libpq's PGcancel of each,
// in slots a signal handler reads without locking.
constexpr int kCancelSlots = 64;
std::atomic<PGcancel*> g_cancels[kCancelSlots];
std::atomic<int> g_cancelling{0};  // handlers inside cancel_server_statements

std::function<void(const std::string&)>& notice_printer() {
  static std::function<void(const std::string&)> print;
  return print;
}

void print_notice(void* arg, const char* message) {
  const auto& print = notice_printer();
  if (!print) return;
  std::string_view m(message);
  while (!m.empty() && m.back() == '\n') m.remove_suffix(1);
  print(static_cast<const std::string*>(arg)->c_str() + std::string(": the server says: ") +
        escape_controls(m));
}

}  // namespace

PgConnection::CancelSlot::CancelSlot(PGconn* conn) {
  PGcancel* cancel = PQgetCancel(conn);
  for (int i = 0; cancel && i < kCancelSlots; ++i) {
    PGcancel* empty = nullptr;
    if (g_cancels[i].compare_exchange_strong(empty, cancel)) {
      index_ = i;
      return;
    }
  }
  PQfreeCancel(cancel);  // more connections than slots: this one is not cancelled on a signal
}

PgConnection::CancelSlot& PgConnection::CancelSlot::operator=(CancelSlot&& o) noexcept {
  if (this != &o) {
    this->~CancelSlot();
    index_ = std::exchange(o.index_, -1);
  }
  return *this;
}

PgConnection::CancelSlot::~CancelSlot() {
  if (index_ < 0) return;
  PGcancel* cancel = g_cancels[index_].exchange(nullptr);
  while (g_cancelling.load() != 0) {
  }  // a handler may still be using it
  PQfreeCancel(cancel);
  index_ = -1;
}

// heapq's connections: functions and operators are PostgreSQL's own (pg_catalog alone in the
// search path: one a stranger adds to schema heapq never stands in for a built-in, whatever
// its argument types), every table is named heapq.NAME; no wait is unbounded unless the URL,
// the role or the database sets it longer; the server's notices escaped.
Status PgConnection::setup() {
  notices_ = std::make_unique<NoticeSource>(NoticeSource{url_.redacted()});
  PQsetNoticeProcessor(conn_.get(), print_notice, &notices_->name);
  cancel_ = CancelSlot(conn_.get());
  // JIT compiling heapq's queries costs more than it saves (a second for a group-by that runs
  // in a tenth): off for heapq's own work.
  HEAPQ_RETURN_IF_ERROR(exec("SET search_path = pg_catalog; SET jit = off"));
  for (const auto& [setting, bound] : {std::pair{"lock_timeout", kLockTimeout},
                                       std::pair{"statement_timeout", kStatementTimeout}}) {
    HEAPQ_ASSIGN_OR_RETURN(PgResult r, query(std::string("SHOW ") + setting));
    if (PQntuples(r.get()) == 1 && pg_bytes(r.get(), 0, 0) == "0")
      HEAPQ_RETURN_IF_ERROR(exec(std::string("SET ") + setting + " = '" + bound + "'"));
  }
  return Ok{};
}

Result<PgConnection> PgConnection::connect(const std::string& url) {
  PgConnection c;
  c.url_ = UrlSecrets(url);
  const char* keys[] = {"dbname", "fallback_application_name", "client_encoding", nullptr};
  const char* values[] = {url.c_str(), "heapq", "UTF8", nullptr};
  c.conn_.reset(PQconnectdbParams(keys, values, 1));
  if (!c.conn_) return io_error(c.name() + ": cannot connect: out of memory");
  if (PQstatus(c.conn_.get()) != CONNECTION_OK)
    return io_error(c.name() + ": cannot connect to the server: " +
                    c.url_.scrub(message_of(PQerrorMessage(c.conn_.get()))));
  HEAPQ_RETURN_IF_ERROR(c.setup());
  return c;
}

std::string PgConnection::table(std::string_view name) const {
  std::string out = "heapq.";
  if (char* quoted = PQescapeIdentifier(conn_.get(), name.data(), name.size())) {
    out += quoted;
    PQfreemem(quoted);
  }
  return out;
}

Error PgConnection::error(std::string_view what) const {
  std::string message = name() + ": ";
  if (!what.empty()) message += std::string(what) + ": ";
  message += url_.scrub(message_of(conn_ ? PQerrorMessage(conn_.get()) : "not connected"));
  if (!conn_ || PQstatus(conn_.get()) != CONNECTION_OK)
    return io_error(message + " (the connection to the server is lost)");
  return bad_input(message);
}

Error PgConnection::error_of(const PGresult* r) const {
  if (!r) return error();
  if (!conn_ || PQstatus(conn_.get()) != CONNECTION_OK) return error();
  const char* field = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  const std::string_view state = field ? field : "";
  // The primary message alone: libpq's whole text spans lines ("LINE 1: ...", a caret).
  const char* primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
  const std::string message =
      name() + ": " + url_.scrub(message_of(primary ? primary : PQresultErrorMessage(r)));
  // Class 08 (connection exception) and 57P (the server shutting down or ending the session):
  // the connection is gone though libpq has not seen its end yet.
  if (state.starts_with("08") || state.starts_with("57P"))
    return io_error(message + " (the connection to the server is lost)");
  // A statement cancelled (by a signal, or by its time running out) or a lock not had in
  // time: the server's state, not the store's content.
  if (state == "57014" && server_statements_cancelled())
    return {ExitCode::kInterrupted, message + " (interrupted)"};
  if (state == "57014" || state == "55P03")
    return io_error(message +
                    " (statement_timeout and lock_timeout bound heapq's waits: "
                    "options=-c%20statement_timeout=2h in the URL allows more)");
  return bad_input(message);
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
  PgResult r(PQexec(db.get(), ("COPY " + db.table(table) + " FROM STDIN (FORMAT binary)").c_str()));
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

std::string server_text(std::string_view s) {
  std::string text;
  text.reserve(s.size());
  for (char c : s) c ? text += c : text += "\u2400";
  return text;
}

void PgCopy::add_text(std::string_view s) {
  if (s.find('\0') == std::string_view::npos) {
    field_length(static_cast<int32_t>(s.size()));
    buffer_.append(s);
    return;
  }
  const std::string text = server_text(s);
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

void cancel_server_statements() noexcept {
  g_cancelled = true;
  ++store::g_cancelling;
  for (auto& slot : store::g_cancels)
    if (PGcancel* cancel = slot.load()) {
      char error[256];
      PQcancel(cancel, error, sizeof error);
    }
  --store::g_cancelling;
}

bool server_statements_cancelled() noexcept {
  return g_cancelled;
}

void set_server_notices(std::function<void(const std::string&)> print) {
  store::notice_printer() = std::move(print);
}

}  // namespace heapq
