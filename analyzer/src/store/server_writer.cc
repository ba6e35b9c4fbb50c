// ServerWriter: a dump into the PostgreSQL store, one transaction of COPYs into tables of the
// dump's own, attached as partitions (schemas/store.sql) once complete.
#include <string>
#include <unordered_set>
#include <vector>

#include "heapq/store.h"
#include "store/dialect.h"
#include "store/dump_rows.h"
#include "store/pg_db.h"
#include "store/server_schema.h"

namespace heapq {

using store::PgConnection;
using store::PgCopy;

bool is_server_url(std::string_view input) {
  return input.starts_with("postgresql://") || input.starts_with("postgres://");
}

class ServerWriter::Impl final : public store::RowTarget {
 public:
  PgConnection db;
  PgConnection gems;  // gems rows are shared: added outside the dumps' transactions
  std::unordered_set<std::string> partitioned;
  int64_t dump = 0;
  std::vector<std::string> parts;  // the tables of this dump's partitions, made so far

  Result<std::unique_ptr<store::TableRows>> rows(std::string_view table, int columns) override {
    std::string into(table);
    if (partitioned.contains(into)) {
      const std::string id = std::to_string(dump);
      into += "_d" + id;
      // The CHECK lets ATTACH PARTITION trust the rows without reading them again.
      Status s = db.exec("CREATE TABLE " + into + " (LIKE " + std::string(table) +
                         " INCLUDING DEFAULTS, CHECK (dump_id = " + id + "))");
      if (!s) return s.error();
      parts.emplace_back(table);
    }
    auto copy = PgCopy::begin(db, into, columns);
    if (!copy) return copy.error();
    return std::unique_ptr<store::TableRows>(std::move(*copy));
  }

  Result<int64_t> gem_id(std::string_view name, std::string_view version) override {
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
  HEAPQ_ASSIGN_OR_RETURN(impl->gems, PgConnection::connect(url));
  auto tables = impl->db.query(
      "SELECT c.relname FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid"
      " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'heapq'");
  if (!tables) return tables.error();
  for (int i = 0; i < PQntuples(tables->get()); ++i)
    impl->partitioned.emplace(store::pg_bytes(tables->get(), i, 0));
  return ServerWriter(std::move(impl));
}

Result<int64_t> ServerWriter::add(const std::string& source, const HeapGraph& g,
                                  const LoadReport& report, const DumpTags& tags) {
  Impl& w = *impl_;
  // Memory for sorting as the partitions' indexes are built (the server's default, 64 MB, makes
  // a dump of millions of objects sort on disk).
  HEAPQ_RETURN_IF_ERROR(w.db.exec("BEGIN; SET LOCAL maintenance_work_mem = '256MB'"));
  // A sequence: loads running at once get their numbers without waiting for each other.
  auto next = w.db.query("SELECT nextval(pg_get_serial_sequence('heapq.dumps', 'id'))");
  if (!next) return next.error();
  w.dump = store::pg_int(next->get(), 0, 0);
  w.parts.clear();
  Status s = store::write_dump_rows(w, w.dump, source, g, report, tags);
  // Attached last: each waits only for other loads' attaching, not for their COPYs. ATTACH
  // builds the partition's indexes from its complete rows.
  const std::string id = std::to_string(w.dump);
  for (const std::string& table : w.parts) {
    if (!s) break;
    s = w.db.exec("ALTER TABLE " + table + " ATTACH PARTITION " + table + "_d" + id +
                  " FOR VALUES IN (" + id + ")");
  }
  if (s) s = w.db.exec("COMMIT");
  if (!s) {
    (void)w.db.exec("ROLLBACK");
    return s.error();
  }
  return w.dump;
}

}  // namespace heapq
