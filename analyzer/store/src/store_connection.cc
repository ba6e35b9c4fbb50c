// How a command reaches a store it reads: what names one (a file, a URL, "#N" for a dump), and
// the one connection it reads it on, its dumps listed as it opens.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "heapq/store/store.h"
#include "read_dump.h"
#include "read_fleet.h"
#include "row_source.h"

namespace heapq {

namespace {

// A server's URL: '#' after the URL's user and password is heapq's, and a dump's number must
// follow it (a '#' of the URL itself is written %23 there, as in any URL).
StoreRef parse_server_ref(const std::string& url) {
  size_t from = url.find("://") + 3;
  if (const size_t stop = url.find_first_of("@/", from);
      stop != std::string::npos && url[stop] == '@')
    from = stop + 1;
  const size_t hash = url.rfind('#');
  if (hash == std::string::npos || hash < from) return {url, 0};
  const std::string number = url.substr(hash + 1);
  if (number.empty() || number.size() > 9 ||
      number.find_first_not_of("0123456789") != std::string::npos)
    return {url.substr(0, hash), kNotADumpNumber};
  const int64_t n = std::stoll(number);
  return {url.substr(0, hash), n == 0 ? -1 : n};
}

}  // namespace

StoreRef parse_store_ref(const std::string& path) {
  if (is_server_url(path)) return parse_server_ref(path);
  const size_t hash = path.rfind('#');
  std::error_code ec;
  if (hash == std::string::npos || hash + 1 == path.size() || std::filesystem::exists(path, ec))
    return {path, 0};
  const std::string number = path.substr(hash + 1);
  if (number.size() > 9 || number.find_first_not_of("0123456789") != std::string::npos)
    return {path, 0};
  const int64_t n = std::stoll(number);
  return {path.substr(0, hash), n == 0 ? -1 : n};  // -1: "#0", refused by read_store
}

bool is_store(const StoreRef& ref) {
  return is_server_url(ref.file) || is_sqlite_file(ref.file);
}

bool has_sqlite_header(std::string_view head) {
  return head == std::string_view("SQLite format 3", kSqliteHeaderBytes);  // with its final NUL
}

bool is_sqlite_file(const std::string& path) {
  // Only a regular file can be a store. A pipe or a FIFO must not be opened here: what this
  // read took would be missing when the dump reader opens the path again.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  char head[kSqliteHeaderBytes] = {};
  // fstat again: the path may have been replaced since; pread leaves nothing consumed.
  bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  bool magic = regular && ::pread(fd, head, sizeof head, 0) == static_cast<ssize_t>(sizeof head) &&
               has_sqlite_header({head, sizeof head});
  ::close(fd);
  return magic;
}

namespace {

// The dumps table, in id order: what a store says of each dump.
constexpr std::string_view kListDumps =
    "SELECT id, path, pid, dumped_at, gc_count, host, started_at, app FROM dumps ORDER BY id";

Result<std::vector<StoredDump>> list_dumps(store::RowSource& db, bool server) {
  auto rows = db.query(kListDumps, {});
  // A file whose dumps table is not heapq's (its columns): no store, as SQLite says why.
  if (!rows && !server)
    return bad_input(db.name() + ": not a heapq store (" +
                     rows.error().message.substr(db.name().size() + 2) + ")");
  if (!rows) return rows.error();
  std::vector<StoredDump> out;
  for (;;) {
    HEAPQ_ASSIGN_OR_RETURN(const bool more, (*rows)->next());
    if (!more) return out;
    const store::RowCursor& r = **rows;
    StoredDump& d = out.emplace_back();
    d.id = r.int64(0);
    d.source = std::string(r.text(1));
    d.origin = {r.is_null(2) || r.int64(2) < 0 ? 0 : static_cast<uint64_t>(r.int64(2)),
                std::string(r.text(3)), r.is_null(4) ? -1 : r.int64(4), std::string(r.text(5)),
                std::string(r.text(6))};
    d.app = std::string(r.text(7));
  }
}

}  // namespace

StoreConnection::StoreConnection(std::string name, std::unique_ptr<store::RowSource> db,
                                 std::vector<StoredDump> dumps)
    : name_(std::move(name)), db_(std::move(db)), dumps_(std::move(dumps)) {}
StoreConnection::StoreConnection(StoreConnection&&) noexcept = default;
StoreConnection& StoreConnection::operator=(StoreConnection&&) noexcept = default;
StoreConnection::~StoreConnection() = default;

Result<StoreConnection> StoreConnection::open(const std::string& store) {
  const bool server = is_server_url(store);
  HEAPQ_ASSIGN_OR_RETURN(std::unique_ptr<store::RowSource> db, store::open_row_source(store));
  HEAPQ_ASSIGN_OR_RETURN(std::vector<StoredDump> dumps, list_dumps(*db, server));
  return StoreConnection(input_name(store), std::move(db), std::move(dumps));
}

Result<HeapGraph> StoreConnection::read(int64_t dump, LoadReport& report, StoredDump* which,
                                        bool references, const std::string& app_root) {
  if (dumps_.empty()) return bad_input(name_ + ": the store holds no dump");
  if (dump == kNotADumpNumber)
    return usage_error(name_ + ": what follows '#' is not a dump's number (#1, #2, ... up to " +
                       "999999999; a '#' of the URL itself is written %23)");
  if (dump < 0)
    return usage_error(name_ + "#0: dumps are numbered from 1 (" + name_ +
                       " alone reads the last)");
  const StoredDump* found = find_stored_dump(dumps_, dump);
  if (!found)
    return bad_input(name_ + ": no dump #" + std::to_string(dump) + " in the store (it holds #" +
                     std::to_string(dumps_.front().id) + " to #" +
                     std::to_string(dumps_.back().id) + ")");
  if (which) *which = *found;
  return StoreReader(*db_, found->id, references, app_root).read(report);
}

Result<FleetData> StoreConnection::fleet(const std::string& app, std::optional<int64_t> since) {
  return store::read_fleet(*db_, app, since);
}

Result<std::vector<StoredDump>> list_stored_dumps(const std::string& path) {
  HEAPQ_ASSIGN_OR_RETURN(StoreConnection db, StoreConnection::open(path));
  return db.dumps();
}

const StoredDump* find_stored_dump(const std::vector<StoredDump>& dumps, int64_t id) {
  if (id == 0) return dumps.empty() ? nullptr : &dumps.back();
  for (const StoredDump& d : dumps)
    if (d.id == id) return &d;
  return nullptr;
}

Result<HeapGraph> read_store(const std::string& path, int64_t dump, LoadReport& report,
                             StoredDump* which, bool references, const std::string& app_root) {
  HEAPQ_ASSIGN_OR_RETURN(StoreConnection db, StoreConnection::open(path));
  return db.read(dump, report, which, references, app_root);
}

Result<FleetData> read_fleet(const std::string& store, const std::string& app,
                             std::optional<int64_t> since) {
  HEAPQ_ASSIGN_OR_RETURN(StoreConnection db, StoreConnection::open(store));
  return db.fleet(app, since);
}

}  // namespace heapq
