// The store's schema on a PostgreSQL server: made once, checked by every connection.
#pragma once

#include "store/pg_db.h"

namespace heapq::store {

// The schema version this heapq reads and writes (store_info.version; SQLite's user_version).
inline constexpr int64_t kStoreSchemaVersion = 6;

// Makes the schema heapq and its tables where there is none (one load at a time makes it), or
// checks the version of the one there.
Status make_server_schema(PgConnection& db);

// Refuses (exit status 2) a database without heapq's store, or with a store of another version.
Status check_server_schema(PgConnection& db);

}  // namespace heapq::store
