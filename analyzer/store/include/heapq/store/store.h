// The heapq store: heap dumps and sampled profiles saved as rows (schemas/store.sql), so that a
// dump is parsed once, reopened without parsing, and queried with SQL. A store is a SQLite file
// (StoreWriter: written whole into a temporary file renamed over it by finish()) or a schema on
// a PostgreSQL server (ServerWriter: many loads at once, each dump one transaction); both are
// read through StoreConnection, one connection a command. Dumps and profiles are numbered
// 1, 2, ... in load order. Implementations in src/ are named by backend (sqlite_*, pg_*) and by
// direction (read_*, write_*).
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "heapq/base/result.h"
#include "heapq/model/fleet_data.h"
#include "heapq/model/heap_graph.h"
#include "heapq/read/load_report.h"
#include "heapq/read/sampled_profile.h"

namespace heapq {

namespace store {
class RowSource;
}

// Whether the file starts with SQLite's header ("SQLite format 3\0"); false when unreadable.
bool is_sqlite_file(const std::string& path);
// Whether these first bytes of a file (kSqliteHeaderBytes of them) are SQLite's header.
inline constexpr size_t kSqliteHeaderBytes = 16;
bool has_sqlite_header(std::string_view head);

// A store and one dump in it, parsed from "STORE.db" (dump 0: the last one) or "STORE.db#N"
// (N >= 1; "#0" gives dump -1, which read_store refuses).
// A path that names an existing file is taken whole, '#' included.
struct StoreRef {
  std::string file;
  int64_t dump = 0;
};
// In a server's URL, '#' after the user and password always selects a dump: what follows must
// be its number, else the dump is kNotADumpNumber, which read_store refuses.
inline constexpr int64_t kNotADumpNumber = -2;
StoreRef parse_store_ref(const std::string& path);

// What `heapq load` records of a dump beside its rows (dumps.host, app, labels).
struct DumpTags {
  std::string host;  // empty: the dump's own (memprof's META), else unknown
  std::string app;   // empty: none
  std::vector<std::pair<std::string, std::string>> labels;  // KEY=VALUE, in the order given
};

struct StoredDump {
  int64_t id = 0;
  std::string source;  // the dump's path as it was loaded
  DumpOrigin origin;   // which process, and when, as the dump said (memprof's META)
  std::string app;     // heapq load --app; empty: none
};

// What the analyses say of each object and of the dump, as a store keeps them (objects.idom,
// retained_bytes, retained_count, distance; the dump's reachable and unreachable sizes). The
// layer that runs the analyses computes them: the store only writes them.
class DumpAnalyses {
 public:
  virtual ~DumpAnalyses() = default;
  // The immediate dominator: the virtual root for what only the roots hold, none if unreachable.
  virtual ObjectId idom(ObjectId o) const = 0;
  virtual uint64_t retained_bytes(ObjectId o) const = 0;  // o may be the virtual root
  virtual uint32_t retained_count(ObjectId o) const = 0;
  virtual uint32_t distance(ObjectId o) const = 0;  // references from the roots; UINT32_MAX: none
  virtual uint64_t unreachable_count() const = 0;
  virtual uint64_t unreachable_bytes() const = 0;
};
// Analyses still being computed (on another core) while the rows that do not need them are
// written.
using PendingAnalyses = std::future<std::unique_ptr<const DumpAnalyses>>;

// Where heapq load writes dumps and sampled profiles: a store file (StoreWriter) or a server
// (ServerWriter), each dump or profile numbered by the store.
class DumpWriter {
 public:
  virtual ~DumpWriter() = default;
  // The store in messages: its file as named, or a server's URL without its password.
  virtual const std::string& name() const = 0;
  // Adds one dump with its analyses (dominators, retained sizes, distances); returns its id.
  virtual Result<int64_t> add(const std::string& source, const HeapGraph& graph,
                              const LoadReport& report, PendingAnalyses analyses,
                              const DumpTags& tags) = 0;
  // Adds one sampled profile with its live estimates by site (profile_site_counts); returns
  // its id in the profiles table.
  virtual Result<int64_t> add_profile(const std::string& source, const SampledProfile& profile,
                                      const std::vector<FleetCount>& sites,
                                      const DumpTags& tags) = 0;
};

// Writes a new store. Nothing appears under the final name before finish() succeeds; the
// destructor removes the temporary file of an unfinished store.
class StoreWriter final : public DumpWriter {
 public:
  // Fails (exit status 3) when the temporary file cannot be created.
  static Result<StoreWriter> create(const std::string& path);
  // Adds dumps to an existing store: a copy of it is written and renamed over it (finish(true)),
  // so that an interrupted append leaves the store as it was. Its dumps keep their numbers.
  static Result<StoreWriter> append(const std::string& path);
  StoreWriter(StoreWriter&&) noexcept;
  StoreWriter& operator=(StoreWriter&&) noexcept;
  ~StoreWriter();

  // Temporary files of earlier loads of this store whose process is gone (killed before it
  // could remove them).
  static std::vector<std::string> stale_temp_paths(const std::string& path);
  // The temporary file being written (heapq/temp_file.h), removed by the destructor unless
  // finish() renamed it.
  const std::string& temp_path() const;

  const std::string& name() const override;
  Result<int64_t> add(const std::string& source, const HeapGraph& graph, const LoadReport& report,
                      PendingAnalyses analyses, const DumpTags& tags = {}) override;
  Result<int64_t> add_profile(const std::string& source, const SampledProfile& profile,
                              const std::vector<FleetCount>& sites,
                              const DumpTags& tags = {}) override;

  // Builds the indexes, makes the file durable and renames it to the final name. Without
  // `replace`, a file that appeared under that name meanwhile is kept and the store is not
  // written (exit status 1): the check and the rename are one step.
  Status finish(bool replace = false);

 private:
  class Impl;
  explicit StoreWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Whether INPUT names a PostgreSQL server ("postgresql://..." or "postgres://..."), not a file.
bool is_server_url(std::string_view input);
// The URL with its password (user:PASSWORD@, password=PASSWORD) replaced by "***": what
// messages and answers show of a server.
std::string redact_url(std::string_view url);
// How messages and answers name an input: a server's URL redacted, any other as given.
std::string input_name(std::string_view input);
// Cancels the statement that each of the process's connections to a server is running, and
// marks them interrupted: a load then commits nothing more. Safe in a signal handler.
void cancel_server_statements() noexcept;
bool server_statements_cancelled() noexcept;
// Where the NOTICE and WARNING messages of servers go, each a line naming its server, control
// characters escaped; nowhere by default.
void set_server_notices(std::function<void(const std::string&)> print);
// A store to read: a server's URL, or a file that starts with SQLite's header.
bool is_store(const StoreRef& ref);

// Writes dumps into the store on a PostgreSQL server, which many loads (of many hosts) write
// at once. Each dump is one transaction: its rows go by COPY into tables of their own, indexed
// and attached as partitions of the store's tables before it commits; nothing of it is visible
// before, and nothing stays of a load that fails or is killed. Makes the schema on first use.
class ServerWriter final : public DumpWriter {
 public:
  // Fails with exit status 3 when the server cannot be reached, 2 when its store is of another
  // schema version.
  static Result<ServerWriter> connect(const std::string& url);
  ServerWriter(ServerWriter&&) noexcept;
  ServerWriter& operator=(ServerWriter&&) noexcept;
  ~ServerWriter();

  // The URL without its password.
  const std::string& name() const override;
  // Each dump, and each profile, in one transaction of its own.
  Result<int64_t> add(const std::string& source, const HeapGraph& graph, const LoadReport& report,
                      PendingAnalyses analyses, const DumpTags& tags = {}) override;
  Result<int64_t> add_profile(const std::string& source, const SampledProfile& profile,
                              const std::vector<FleetCount>& sites,
                              const DumpTags& tags = {}) override;

 private:
  class Impl;
  explicit ServerWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A store opened to read: one connection for all a command reads of it (its dumps listed once,
// as it opens, then read), a file's or a server's. Fails (exit status 2) on a file that is no
// heapq store or one of another schema version, or (3) when a server cannot be reached.
class StoreConnection {
 public:
  static Result<StoreConnection> open(const std::string& store);
  StoreConnection(StoreConnection&&) noexcept;
  StoreConnection& operator=(StoreConnection&&) noexcept;
  ~StoreConnection();

  // The store in messages: its path, or a server's URL without its password.
  const std::string& name() const { return name_; }
  // Its dumps, in id order.
  const std::vector<StoredDump>& dumps() const { return dumps_; }
  // read_store on this connection.
  Result<HeapGraph> read(int64_t dump, LoadReport& report, StoredDump* which = nullptr,
                         bool references = true, const std::string& app_root = {});
  // read_fleet on this connection.
  Result<FleetData> fleet(const std::string& app, std::optional<int64_t> since);

 private:
  StoreConnection(std::string name, std::unique_ptr<store::RowSource> db,
                  std::vector<StoredDump> dumps);
  std::string name_;
  std::unique_ptr<store::RowSource> db_;
  std::vector<StoredDump> dumps_;
};

// The dumps of a store (schemas/store.sql) of the app given (empty: all) taken at or after
// `since` (microseconds since 1970, read/dump_time.h; none: all), and their counts: one query
// per dump. Processes no such dump is of come from their sampled profiles
// (FleetDump::period), where the store has them.
Result<FleetData> read_fleet(const std::string& store, const std::string& app,
                             std::optional<int64_t> since);

// The dumps of a store, in id order.
Result<std::vector<StoredDump>> list_stored_dumps(const std::string& path);
// Dump `id` of a list (0: the last); null when the list has none such.
const StoredDump* find_stored_dump(const std::vector<StoredDump>& dumps, int64_t id);

// Rebuilds the graph of one dump (0: the last one) from the store's tables, and the report its
// load made (on a connection of its own: StoreConnection::read reads on one already open). Never
// parses JSON. Without references the graph has the objects and the roots only (for stats and
// sites, which do not follow references): faster to open. app_root: as LoadOptions::app_root, for
// memprof's stacks' app frames.
Result<HeapGraph> read_store(const std::string& path, int64_t dump, LoadReport& report,
                             StoredDump* which = nullptr, bool references = true,
                             const std::string& app_root = {});

// A value of a query's row: NULL, integer, real or text (a blob comes as text, X'hex' as SQL
// writes it).
using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;

// Receives a query's results as SQLite steps through them, so that a big result is never held
// whole: columns() once per statement that returns rows, then row() for each of its rows.
class SqlSink {
 public:
  virtual ~SqlSink() = default;
  virtual Status columns(const std::vector<std::string>& names) = 0;
  virtual Status row(const std::vector<SqlValue>& values) = 0;
};

// Runs SQL (one or more statements) on a store. Read-only unless `write`: a statement that
// would change the store is refused (exit status 1) before it runs. SQL errors carry SQLite's
// message (exit status 2).
Status run_sql(const std::string& path, std::string_view sql, bool write, SqlSink& sink);

// The same on a server (run_sql calls it for a postgresql:// URL). Read-only, it runs one
// statement in a read-only transaction; with `write`, any statements in one transaction.
Status run_server_sql(const std::string& url, std::string_view sql, bool write, SqlSink& sink);

// The same, collecting the rows of the last statement that returns rows.
struct SqlRows {
  std::vector<std::string> columns;
  std::vector<std::vector<SqlValue>> rows;
};
Result<SqlRows> run_sql(const std::string& path, std::string_view sql, bool write);

}  // namespace heapq
