#include "store/server_schema.h"

#include <string>

#include "store/dialect.h"
#include "store/dump_rows.h"

namespace heapq::store {

namespace {

// Any number, the same for every heapq: the lock under which a store's schema is made.
constexpr int64_t kSchemaLock = 1751474545;

class TypesTarget final : public RowTarget {
 public:
  explicit TypesTarget(PgConnection& db) : db_(db) {}
  Result<std::unique_ptr<TableRows>> rows(std::string_view table, int columns) override {
    auto copy = PgCopy::begin(db_, std::string(table), columns);
    if (!copy) return copy.error();
    return std::unique_ptr<TableRows>(std::move(*copy));
  }
  Result<int64_t> gem_id(std::string_view, std::string_view) override {
    return db_.error("no gems here");
  }

 private:
  PgConnection& db_;
};

}  // namespace

Status check_server_schema(PgConnection& db) {
  auto info = db.query("SELECT to_regclass('heapq.store_info') IS NOT NULL");
  if (!info) return info.error();
  if (!pg_int(info->get(), 0, 0))
    return bad_input(db.name() + ": no heapq store in this database (heapq load --to " + db.name() +
                     " makes one)");
  auto version = db.query("SELECT max(version) FROM store_info WHERE application = 'heapq'");
  if (!version) return version.error();
  const int64_t v = pg_int(version->get(), 0, 0);
  if (v != kStoreSchemaVersion)
    return bad_input(db.name() + ": not a store of this version of heapq (schema version " +
                     std::to_string(v) + ", expected " + std::to_string(kStoreSchemaVersion) + ")");
  return Ok{};
}

Status make_server_schema(PgConnection& db) {
  HEAPQ_RETURN_IF_ERROR(
      db.exec("BEGIN; SELECT pg_advisory_xact_lock(" + std::to_string(kSchemaLock) + ")"));
  auto there = db.query("SELECT to_regnamespace('heapq') IS NOT NULL");
  Status s = there ? Status(Ok{}) : Status(there.error());
  if (s && !pg_int(there->get(), 0, 0)) {
    s = db.exec("CREATE SCHEMA heapq");
    if (s) s = db.exec(schema_sql(Dialect::kPostgres, SchemaPart::kTables));
    if (s) s = db.exec(schema_sql(Dialect::kPostgres, SchemaPart::kAfterRows));
    TypesTarget types(db);
    if (s) s = write_types(types);
  }
  if (s) s = check_server_schema(db);
  if (s) s = db.exec("COMMIT");
  if (!s) (void)db.exec("ROLLBACK");
  return s;
}

}  // namespace heapq::store
