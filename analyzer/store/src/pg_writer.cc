// ServerWriter: a dump into the PostgreSQL store. Each of the dump's tables is a table of its own
// (objects_d42, CHECK (dump_id = 42)), filled by COPY and indexed on one of two connections at
// once; one short transaction then adds the dumps row and attaches them all as partitions
// (schemas/store.sql), so the dump appears whole or not at all.
//
// Until then the tables are outside the store (no partitions, no dumps row). A load holds a
// session lock on its dump's number while it works; a load that died (killed, its server
// restarted) leaves tables whose lock anyone can take, and the next load drops them.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "heapq/store/store.h"
#include "pg_db.h"
#include "pg_objects.h"
#include "pg_schema.h"
#include "write_dump_rows.h"
#include "write_profile_rows.h"

namespace heapq {

using store::PgConnection;
using store::PgCopy;

bool is_server_url(std::string_view input) {
  return input.starts_with("postgresql://") || input.starts_with("postgres://");
}

namespace {

// Any number, the same for every heapq (the schema's lock is 1751474545, in the one-key space):
// with a dump's number, the lock held while that dump is loaded.
constexpr int kLoadLock = 1751474546;

std::string load_lock(const char* fn, int64_t dump) {
  return "SELECT " + std::string(fn) + "(" + std::to_string(kLoadLock) + ", " +
         std::to_string(dump % 2147483647) + ")";
}

// Each partitioned table and the statements that give a partition of it, named by `{}`, the
// keys and indexes the table has (which ATTACH then adopts instead of building them under its
// lock): heapq's own, not read from the server.
std::map<std::string, std::string> partitioned_tables() {
  std::map<std::string, std::string> tables;
  for (const store::ServerObjects::Partitioned& p : store::server_objects().partitioned) {
    std::string& statements = tables[p.name];
    for (const std::string& key : p.keys) statements += (statements.empty() ? "" : "; ") + key;
  }
  return tables;
}

std::string with_table(std::string_view statements, const std::string& table) {
  std::string out;
  for (size_t at = 0;;) {
    const size_t mark = statements.find("{}", at);
    out += statements.substr(at, mark - at);
    if (mark == std::string_view::npos) return out;
    out += table;
    at = mark + 2;
  }
}

// Whether anything hangs on the gems table that would run as the load (its rows are added
// outside the dump's transaction, under a lock that keeps it so).
constexpr const char* kGemsUntouched =
    "SELECT (SELECT count(*) FROM pg_trigger WHERE tgrelid = 'heapq.gems'::regclass"
    "   AND NOT tgisinternal)"
    " + (SELECT count(*) FROM pg_rewrite WHERE ev_class = 'heapq.gems'::regclass)"
    " + (SELECT count(*) FROM pg_policy WHERE polrelid = 'heapq.gems'::regclass)"
    " + (SELECT count(*) FROM pg_class WHERE oid = 'heapq.gems'::regclass"
    "   AND (relkind <> 'r' OR relrowsecurity))"
    " + (SELECT count(*) FROM pg_attrdef WHERE adrelid = 'heapq.gems'::regclass)"
    " + (SELECT count(*) FROM pg_constraint WHERE conrelid = 'heapq.gems'::regclass"
    "   AND contype NOT IN ('p', 'u'))"
    " + (SELECT count(*) FROM pg_index WHERE indrelid = 'heapq.gems'::regclass"
    "   AND (indexprs IS NOT NULL OR indpred IS NOT NULL))";

}  // namespace

class ServerWriter::Impl final {
 public:
  // One connection's share of a dump's tables.
  class Lane final : public store::RowTarget {
   public:
    Lane(Impl& w, PgConnection& db) : w_(w), db_(db) {}

    Result<std::unique_ptr<store::TableRows>> rows(std::string_view table, int columns) override {
      std::string into(table);
      std::string then;
      if (const auto p = w_.partitioned.find(into); p != w_.partitioned.end()) {
        const std::string id = std::to_string(w_.dump);
        into += "_d" + id;
        // The CHECK lets ATTACH PARTITION trust the rows without reading them again.
        Status s = db_.exec("CREATE TABLE " + db_.table(into) + " (LIKE " + db_.table(p->first) +
                            " INCLUDING DEFAULTS INCLUDING STORAGE, CHECK (dump_id = " + id + "))");
        if (!s) return s.error();
        made.push_back(p->first);
        then = with_table(p->second, db_.table(into));
      } else if (!w_.adding) {
        // Any other table (the dumps row) is written in the transaction that attaches the
        // partitions, which checks the store again, its tables locked.
        if (Status s = store::begin_store_transaction(w_.db, true); !s) return s.error();
        w_.adding = true;
      }
      auto copy = PgCopy::begin(db_, into, columns, std::move(then));
      if (!copy) return copy.error();
      return std::unique_ptr<store::TableRows>(std::move(*copy));
    }

    Result<int64_t> gem_id(std::string_view name, std::string_view version) override {
      return w_.gem_id(name, version);
    }

    RowTarget* beside() override { return this == &w_.main ? &w_.side : nullptr; }

    std::vector<std::string> made;  // the tables whose partitions it made for this dump

   private:
    Impl& w_;
    PgConnection& db_;
  };

  PgConnection db;    // the main lane's, and the transaction that adds the dump
  PgConnection more;  // the second lane's
  PgConnection gems;  // gems rows are shared: added outside the dumps' transactions
  std::map<std::string, std::string> partitioned;
  int64_t dump = 0;
  bool adding = false;  // in the transaction that adds the dump
  Lane main{*this, db};
  Lane side{*this, more};

  Result<int64_t> gem_id(std::string_view name, std::string_view version) {
    const std::vector<std::optional<std::string>> params = {store::server_text(name),
                                                            store::server_text(version)};
    HEAPQ_RETURN_IF_ERROR(gems.exec("BEGIN; LOCK TABLE ONLY heapq.gems IN ROW EXCLUSIVE MODE"));
    Result<int64_t> id = add_gem(params);
    if (Status s = gems.exec(id ? "COMMIT" : "ROLLBACK"); id && !s) return s.error();
    return id;
  }

  Result<int64_t> add_gem(const std::vector<std::optional<std::string>>& params) {
    HEAPQ_ASSIGN_OR_RETURN(store::PgResult untouched, gems.query(kGemsUntouched));
    if (store::pg_int(untouched.get(), 0, 0) != 0)
      return bad_input(gems.name() +
                       ": heapq.gems has a trigger, rule, policy, default or check that heapq "
                       "does not make: the store is refused");
    HEAPQ_RETURN_IF_ERROR(
        gems.query("INSERT INTO heapq.gems (name, version) VALUES ($1, $2) "
                   "ON CONFLICT (name, version) DO NOTHING",
                   params));
    HEAPQ_ASSIGN_OR_RETURN(
        store::PgResult found,
        gems.query("SELECT id FROM heapq.gems WHERE name = $1 AND version = $2", params));
    if (PQntuples(found.get()) != 1) return gems.error("gems");
    return store::pg_int(found.get(), 0, 0);
  }

  // Drops the tables of dump `id` (partitions never attached) that are there.
  Status drop(int64_t id) {
    std::string sql;
    for (const auto& [table, _] : partitioned)
      sql += (sql.empty() ? "DROP TABLE IF EXISTS " : ", ") +
             db.table(table + "_d" + std::to_string(id));
    return db.exec(sql);
  }

  // Drops the tables of loads that died before adding their dump.
  Status drop_abandoned() {
    std::string names;
    for (const auto& [table, _] : partitioned) names += (names.empty() ? "" : "|") + table;
    auto r = db.query(
        "SELECT DISTINCT substring(c.relname FROM '_d([0-9]{1,18})$')::bigint"
        " FROM pg_class c WHERE c.relnamespace = 'heapq'::regnamespace AND c.relkind = 'r'"
        " AND NOT c.relispartition AND c.relname ~ ('^(' || $1 || ')_d[0-9]{1,18}$')"
        " AND substring(c.relname FROM '_d([0-9]{1,18})$')::bigint NOT IN"
        " (SELECT id FROM heapq.dumps)",
        {names});
    if (!r) return r.error();
    for (int i = 0; i < PQntuples(r->get()); ++i) {
      const int64_t id = store::pg_int(r->get(), i, 0);
      auto mine = db.query(load_lock("pg_try_advisory_lock", id));
      if (!mine) return mine.error();
      if (!store::pg_int(mine->get(), 0, 0)) continue;  // its load is still at work
      Status s = drop(id);
      if (Status u = db.exec(load_lock("pg_advisory_unlock", id)); s && !u) s = u;
      if (!s) return s;
    }
    return Ok{};
  }
};

ServerWriter::ServerWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ServerWriter::ServerWriter(ServerWriter&&) noexcept = default;
ServerWriter& ServerWriter::operator=(ServerWriter&&) noexcept = default;
ServerWriter::~ServerWriter() = default;

const std::string& ServerWriter::name() const {
  return impl_->db.name();
}

Result<ServerWriter> ServerWriter::connect(const std::string& url) {
  auto impl = std::make_unique<Impl>();
  HEAPQ_ASSIGN_OR_RETURN(impl->db, PgConnection::connect(url));
  HEAPQ_RETURN_IF_ERROR(store::make_server_schema(impl->db));
  HEAPQ_ASSIGN_OR_RETURN(impl->more, PgConnection::connect(url));
  HEAPQ_ASSIGN_OR_RETURN(impl->gems, PgConnection::connect(url));
  // Memory for sorting as the indexes are built (the server's default, 64 MB, makes a dump of
  // millions of objects sort on disk); no parallel workers for them: the two connections keep
  // the cores busy already (a big dump loads 20 % faster without).
  for (PgConnection* c : {&impl->db, &impl->more})
    HEAPQ_RETURN_IF_ERROR(
        c->exec("SET maintenance_work_mem = '256MB'; SET max_parallel_maintenance_workers = 0"));
  impl->partitioned = partitioned_tables();
  HEAPQ_RETURN_IF_ERROR(impl->drop_abandoned());
  return ServerWriter(std::move(impl));
}

Result<int64_t> ServerWriter::add(const std::string& source, const HeapGraph& g,
                                  const LoadReport& report, PendingAnalyses analyses,
                                  const DumpTags& tags) {
  Impl& w = *impl_;
  // A sequence: loads running at once get their numbers without waiting for each other.
  auto next = w.db.query("SELECT nextval(pg_get_serial_sequence('heapq.dumps', 'id'))");
  if (!next) return next.error();
  w.dump = store::pg_int(next->get(), 0, 0);
  HEAPQ_RETURN_IF_ERROR(w.db.exec(load_lock("pg_advisory_lock", w.dump)));
  w.adding = false;
  w.main.made.clear();
  w.side.made.clear();
  Status s = store::write_dump_rows(w.main, w.dump, source, g, report, std::move(analyses), tags);
  if (s && !w.adding) {
    s = store::begin_store_transaction(w.db, true);
    w.adding = s.ok();
  }
  // Each ATTACH waits for other loads' attaching, which is quick: the partitions come with
  // their indexes.
  const std::string id = std::to_string(w.dump);
  for (const auto* lane : {&w.main, &w.side})
    for (const std::string& table : lane->made) {
      if (!s) break;
      s = w.db.exec("ALTER TABLE " + w.db.table(table) + " ATTACH PARTITION " +
                    w.db.table(table + "_d" + id) + " FOR VALUES IN (" + id + ")");
    }
  // Interrupted (a signal cancelled what ran): nothing of the dump is committed.
  if (s && server_statements_cancelled())
    s = Error{ExitCode::kInterrupted, w.db.name() + ": interrupted"};
  if (s) s = w.db.exec("COMMIT");
  if (!s) {
    if (w.adding) (void)w.db.exec("ROLLBACK");
    (void)w.drop(w.dump);
  }
  (void)w.db.exec(load_lock("pg_advisory_unlock", w.dump));
  if (!s) return s.error();
  return w.dump;
}

Result<int64_t> ServerWriter::add_profile(const std::string& source, const SampledProfile& profile,
                                          const std::vector<FleetCount>& sites,
                                          const DumpTags& tags) {
  Impl& w = *impl_;
  auto next = w.db.query("SELECT nextval(pg_get_serial_sequence('heapq.profiles', 'id'))");
  if (!next) return next.error();
  const int64_t id = store::pg_int(next->get(), 0, 0);
  // Its tables are not partitioned: the rows go in the transaction the first of them begins,
  // which checks the store, its tables locked.
  w.adding = false;
  Status s = store::write_profile_rows(w.main, id, source, profile, sites, tags);
  if (s && server_statements_cancelled())
    s = Error{ExitCode::kInterrupted, w.db.name() + ": interrupted"};
  if (s) s = w.db.exec("COMMIT");
  if (!s && w.adding) (void)w.db.exec("ROLLBACK");
  w.adding = false;
  if (!s) return s.error();
  return id;
}

}  // namespace heapq
