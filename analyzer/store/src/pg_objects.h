// What heapq makes in schema heapq on a server (schemas/store.sql), and the check that the
// schema holds nothing else: the role that owns the schema may be a stranger to the role that
// reads or loads, and a view, rule, policy, trigger or function there would run as the latter.
#pragma once

#include <string>
#include <vector>

#include "pg_db.h"

namespace heapq::store {

// heapq's objects in the schema, read from schemas/store.sql.
struct ServerObjects {
  struct Function {
    std::string name, arguments, language, body;  // arguments as pg_get_function_identity_arguments
  };
  struct Partitioned {
    std::string name;
    // What makes a partition's keys and indexes, the partition's name written "{}": the same
    // as its table's, so that ATTACH adopts them rather than building them under its lock.
    std::vector<std::string> keys;
  };
  std::vector<std::string> tables, views, triggers;
  std::vector<Function> functions;
  std::vector<Partitioned> partitioned;
};
const ServerObjects& server_objects();

// In a transaction just begun (before any other statement, so that its snapshot comes after):
// locks heapq's tables against change (ACCESS SHARE: no reader or loader waits) and refuses
// (exit status 2, naming it) anything in schema heapq that heapq does not make, or that
// depends on a function, operator, type or relation that is neither PostgreSQL's nor heapq's.
Status lock_and_check_server_objects(PgConnection& db);

}  // namespace heapq::store
