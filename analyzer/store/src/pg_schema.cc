#include "pg_schema.h"

#include <string>

#include "dialect.h"
#include "pg_objects.h"
#include "write_dump_rows.h"

namespace heapq::store {

namespace {

// Any number, the same for every heapq: the lock under which a store's schema is made.
constexpr int64_t kSchemaLock = 1751474545;
constexpr const char* kSchemaThere =
    "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'heapq')";

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

Status check_version(PgConnection& db) {
  HEAPQ_ASSIGN_OR_RETURN(
      PgResult version,
      db.query("SELECT max(version) FROM heapq.store_info WHERE application = 'heapq'"));
  const int64_t v = pg_int(version.get(), 0, 0);
  if (v != kStoreSchemaVersion)
    return bad_input(db.name() + ": not a store of this version of heapq (schema version " +
                     std::to_string(v) + ", expected " + std::to_string(kStoreSchemaVersion) + ")");
  return Ok{};
}

// Makes the schema in a database that has none, under a lock taken only then: a store's readers
// and loaders never wait for it.
Status make_schema_once(PgConnection& db) {
  HEAPQ_RETURN_IF_ERROR(
      db.exec("BEGIN; SELECT pg_advisory_xact_lock(" + std::to_string(kSchemaLock) + ")"));
  // Read from the table, not through the server's cache of names, which the advisory lock does
  // not refresh: a schema another load made while this one waited is seen.
  auto there = db.query(kSchemaThere);
  Status s = there ? Status(Ok{}) : Status(there.error());
  if (s && !pg_int(there->get(), 0, 0)) {
    // A schema this transaction makes holds nothing but heapq's: its names may go unqualified.
    s = db.exec("CREATE SCHEMA heapq; SET LOCAL search_path = heapq");
    if (s) s = db.exec(schema_sql(Dialect::kPostgres, SchemaPart::kTables));
    if (s) s = db.exec(schema_sql(Dialect::kPostgres, SchemaPart::kAfterRows));
    TypesTarget types(db);
    if (s) s = write_types(types);
  }
  if (s) s = db.exec("COMMIT");
  if (!s) (void)db.exec("ROLLBACK");
  return s;
}

}  // namespace

Status begin_store_transaction(PgConnection& db, bool write) {
  HEAPQ_RETURN_IF_ERROR(
      db.exec(write ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
  Status s = lock_and_check_server_objects(db);
  if (s) s = check_version(db);
  if (!s) (void)db.exec("ROLLBACK");
  return s;
}

Status make_server_schema(PgConnection& db) {
  HEAPQ_ASSIGN_OR_RETURN(PgResult there, db.query(kSchemaThere));
  if (!pg_int(there.get(), 0, 0)) HEAPQ_RETURN_IF_ERROR(make_schema_once(db));
  HEAPQ_RETURN_IF_ERROR(begin_store_transaction(db, true));
  return db.exec("COMMIT");
}

}  // namespace heapq::store
