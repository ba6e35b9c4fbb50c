// A store is input from a stranger: heapq hardens every connection it opens on one, and reads
// a store only where heapq's own tables are what they claim to be.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sqlite_db.h"

namespace heapq::store {

// Hardens a connection for what it is for; hardening.cc says what is refused, and why. With
// kRead, the connection's statements together may do work in proportion to the store's size.
Status harden(Database& db, Access access);

// The tables, indexes, triggers and views that schemas/store.sql makes (SQLite's own among
// them), as (type, name).
const std::vector<std::pair<std::string, std::string>>& own_schema();

// Refuses (exit status 2, naming the store and the object) a store in which one of heapq's
// tables is missing or is not an ordinary table; with `only_own`, also a store that holds any
// table, index, trigger or view that heapq does not make.
Status check_schema(Database& db, bool only_own);

}  // namespace heapq::store
