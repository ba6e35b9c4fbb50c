// The store's schema on a PostgreSQL server: made once, checked by every connection.
#pragma once

#include "pg_db.h"

namespace heapq::store {

// The schema version this heapq reads and writes (store_info.version; SQLite's user_version).
inline constexpr int64_t kStoreSchemaVersion = 7;

// Makes the schema heapq and its tables where there is none (one load at a time makes it), then
// checks it as begin_store_transaction does.
Status make_server_schema(PgConnection& db);

// Begins the transaction heapq works in on a store (read-only unless `write`; with one snapshot
// for every statement when read-only), and in it refuses (exit status 2) a database without
// heapq's store, with a store of another version, or with anything in schema heapq that heapq
// does not make (pg_objects.h).
Status begin_store_transaction(PgConnection& db, bool write);

}  // namespace heapq::store
