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

#include "heapq/store.h"
#include "store/dump_rows.h"
#include "store/pg_db.h"
#include "store/server_schema.h"

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

// The partitioned tables and the statements that give one of their partitions, named by
// `{}`, the indexes and keys the partitioned table has (which ATTACH then adopts instead of
// building them under its lock).
Result<std::map<std::string, std::string>> partitioned_tables(PgConnection& db) {
  auto r = db.query(
      "SELECT t.relname,"
      " coalesce(string_agg(CASE WHEN i.indisprimary THEN 'ALTER TABLE {} ADD PRIMARY KEY ('"
      "   WHEN i.indisunique THEN 'ALTER TABLE {} ADD UNIQUE (' ELSE 'CREATE INDEX ON {} (' END"
      "   || (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.n)"
      "       FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)"
      "       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) || ')', '; '),"
      "   '')"
      " FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace"
      " LEFT JOIN pg_index i ON i.indrelid = t.oid"
      // Names that need no quoting: heapq's own (they go into statements and a pattern).
      " WHERE n.nspname = 'heapq' AND t.relkind = 'p' AND t.relname ~ '^[a-z_][a-z0-9_]*$'"
      " GROUP BY t.relname");
  if (!r) return r.error();
  std::map<std::string, std::string> tables;
  for (int i = 0; i < PQntuples(r->get()); ++i)
    tables.emplace(store::pg_bytes(r->get(), i, 0), store::pg_bytes(r->get(), i, 1));
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
        Status s = db_.exec("CREATE TABLE " + into + " (LIKE " + p->first +
                            " INCLUDING DEFAULTS INCLUDING STORAGE, CHECK (dump_id = " + id + "))");
        if (!s) return s.error();
        made.push_back(p->first);
        then = with_table(p->second, into);
      } else if (!w_.adding) {
        // Any other table (the dumps row) is written in the transaction that attaches the
        // partitions.
        if (Status s = w_.db.exec("BEGIN"); !s) return s.error();
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
    const std::vector<std::optional<std::string>> params = {std::string(name),
                                                            std::string(version)};
    auto added = gems.query(
        "INSERT INTO gems (name, version) VALUES ($1, $2) ON CONFLICT (name, version) DO NOTHING",
        params);
    if (!added) return added.error();
    auto found = gems.query("SELECT id FROM gems WHERE name = $1 AND version = $2", params);
    if (!found) return found.error();
    if (PQntuples(found->get()) != 1) return gems.error("gems");
    return store::pg_int(found->get(), 0, 0);
  }

  // Drops `tables` of `id` (partitions never attached).
  Status drop(int64_t id, const std::vector<std::string>& tables) {
    std::string sql;
    for (const std::string& t : tables)
      sql += (sql.empty() ? "DROP TABLE IF EXISTS " : ", ") + t + "_d" + std::to_string(id);
    return sql.empty() ? Status(Ok{}) : db.exec(sql);
  }

  // Drops the tables of loads that died before adding their dump.
  Status drop_abandoned() {
    std::string names;
    for (const auto& [table, _] : partitioned) names += (names.empty() ? "" : "|") + table;
    auto r = db.query(
        "SELECT m[2]::bigint, string_agg(m[1], ',') FROM ("
        " SELECT regexp_match(c.relname, '^(" +
        names +
        ")_d([0-9]{1,18})$') AS m FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = 'heapq' AND c.relkind = 'r' AND NOT c.relispartition) t"
        " WHERE m IS NOT NULL AND m[2]::bigint NOT IN (SELECT id FROM dumps) GROUP BY m[2]");
    if (!r) return r.error();
    for (int i = 0; i < PQntuples(r->get()); ++i) {
      const int64_t id = store::pg_int(r->get(), i, 0);
      auto mine = db.query(load_lock("pg_try_advisory_lock", id));
      if (!mine) return mine.error();
      if (!store::pg_int(mine->get(), 0, 0)) continue;  // its load is still at work
      std::vector<std::string> tables;
      const std::string_view list = store::pg_bytes(r->get(), i, 1);  // objects,refs,...
      for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        tables.emplace_back(list.substr(at, comma - at));
        at = comma + 1;
      }
      Status s = drop(id, tables);
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
  HEAPQ_ASSIGN_OR_RETURN(impl->partitioned, partitioned_tables(impl->db));
  HEAPQ_RETURN_IF_ERROR(impl->drop_abandoned());
  return ServerWriter(std::move(impl));
}

Result<int64_t> ServerWriter::add(const std::string& source, const HeapGraph& g,
                                  const LoadReport& report, const DumpTags& tags) {
  Impl& w = *impl_;
  // A sequence: loads running at once get their numbers without waiting for each other.
  auto next = w.db.query("SELECT nextval(pg_get_serial_sequence('heapq.dumps', 'id'))");
  if (!next) return next.error();
  w.dump = store::pg_int(next->get(), 0, 0);
  HEAPQ_RETURN_IF_ERROR(w.db.exec(load_lock("pg_advisory_lock", w.dump)));
  w.adding = false;
  w.main.made.clear();
  w.side.made.clear();
  Status s = store::write_dump_rows(w.main, w.dump, source, g, report, tags);
  if (s && !w.adding) s = w.db.exec("BEGIN");
  // Each ATTACH waits for other loads' attaching, which is quick: the partitions come with
  // their indexes.
  const std::string id = std::to_string(w.dump);
  for (const auto* lane : {&w.main, &w.side})
    for (const std::string& table : lane->made) {
      if (!s) break;
      s = w.db.exec("ALTER TABLE " + table + " ATTACH PARTITION " + table + "_d" + id +
                    " FOR VALUES IN (" + id + ")");
    }
  if (s) s = w.db.exec("COMMIT");
  if (!s) {
    if (w.adding) (void)w.db.exec("ROLLBACK");
    (void)w.drop(w.dump, w.main.made);
    (void)w.drop(w.dump, w.side.made);
  }
  (void)w.db.exec(load_lock("pg_advisory_unlock", w.dump));
  if (!s) return s.error();
  return w.dump;
}

}  // namespace heapq
