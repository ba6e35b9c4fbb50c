#include "pg_objects.h"

#include <algorithm>
#include <cctype>

#include "dialect.h"

namespace heapq::store {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The statements of SQL text without its comments; a $$ ... $$ body is one piece of text.
std::vector<std::string> statements(std::string_view sql) {
  std::vector<std::string> out;
  std::string current;
  bool in_body = false;
  for (size_t at = 0; at < sql.size();) {
    if (!in_body && sql.substr(at, 2) == "--") {
      at = std::min(sql.find('\n', at), sql.size());
      continue;
    }
    if (sql.substr(at, 2) == "$$") {
      in_body = !in_body;
      current += "$$";
      at += 2;
      continue;
    }
    if (!in_body && sql[at] == ';') {
      if (!trim(current).empty()) out.emplace_back(trim(current));
      current.clear();
    } else {
      current += sql[at];
    }
    ++at;
  }
  return out;
}

// The word after `prefix` at the start of `statement` (CREATE TABLE name ...), or empty.
std::string name_after(std::string_view statement, std::string_view prefix) {
  if (!statement.starts_with(prefix)) return {};
  statement.remove_prefix(prefix.size());
  statement = trim(statement);
  size_t end = 0;
  while (end < statement.size() &&
         (std::isalnum(static_cast<unsigned char>(statement[end])) || statement[end] == '_'))
    ++end;
  return std::string(statement.substr(0, end));
}

// "(a, b)" following `marker` in `text`, or empty.
std::string list_after(std::string_view text, std::string_view marker) {
  const size_t at = text.find(marker);
  if (at == std::string_view::npos) return {};
  const size_t open = text.find('(', at + marker.size());
  const size_t close = text.find(')', open);
  if (open == std::string_view::npos || close == std::string_view::npos) return {};
  return std::string(text.substr(open, close - open + 1));
}

ServerObjects read_server_objects() {
  ServerObjects objects;
  std::vector<std::string> all = statements(schema_sql(Dialect::kPostgres, SchemaPart::kTables));
  for (std::string& s : statements(schema_sql(Dialect::kPostgres, SchemaPart::kAfterRows)))
    all.push_back(std::move(s));
  for (const std::string& s : all) {
    if (std::string name = name_after(s, "CREATE TABLE"); !name.empty()) {
      if (s.find("PARTITION BY LIST") != std::string::npos)
        objects.partitioned.push_back(
            {name, {"ALTER TABLE {} ADD PRIMARY KEY " + list_after(s, "PRIMARY KEY")}});
      objects.tables.push_back(std::move(name));
    } else if (std::string view = name_after(s, "CREATE VIEW"); !view.empty()) {
      objects.views.push_back(std::move(view));
    } else if (std::string trigger = name_after(s, "CREATE TRIGGER"); !trigger.empty()) {
      objects.triggers.push_back(std::move(trigger));
    } else if (std::string function = name_after(s, "CREATE FUNCTION"); !function.empty()) {
      const size_t body = s.find("$$");
      const std::string_view head(s.data(), body);
      const std::string arguments = list_after(s, function);
      const size_t language = head.find("LANGUAGE ");
      objects.functions.push_back({function, lower(arguments.substr(1, arguments.size() - 2)),
                                   name_after(head.substr(language), "LANGUAGE"),
                                   s.substr(body + 2, s.rfind("$$") - body - 2)});
    } else if (s.starts_with("CREATE INDEX")) {
      const size_t on = s.find(" ON ");
      const std::string table = name_after(std::string_view(s).substr(on + 1), "ON");
      for (ServerObjects::Partitioned& p : objects.partitioned)
        if (p.name == table) p.keys.push_back("CREATE INDEX ON {} " + list_after(s, " ON "));
    }
  }
  return objects;
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Whether a relation of schema heapq is heapq's: its tables, their dumps' partitions (NAME_dN,
// also the tables of a load under way), its views, and indexes and sequences of any name
// (what they depend on is checked apart).
bool own_relation(const ServerObjects& own, std::string_view name, char kind) {
  if (kind == 'i' || kind == 'I' || kind == 'S') return true;
  if (kind == 'v') return contains(own.views, name);
  if (kind != 'r' && kind != 'p') return false;
  if (contains(own.tables, name)) return true;
  const size_t d = name.rfind("_d");
  if (kind != 'r' || d == std::string_view::npos || d + 2 == name.size() ||
      name.find_first_not_of("0123456789", d + 2) != std::string_view::npos)
    return false;
  return std::any_of(
      own.partitioned.begin(), own.partitioned.end(),
      [&](const ServerObjects::Partitioned& p) { return p.name == name.substr(0, d); });
}

const char* kind_name(char kind) {
  switch (kind) {
    case 'r':
      return "table";
    case 'p':
      return "partitioned table";
    case 'v':
      return "view";
    case 'm':
      return "materialized view";
    case 'f':
      return "foreign table";
    case 'c':
      return "composite type";
    default:
      return "relation";
  }
}

Error refused(const PgConnection& db, const std::string& what) {
  return bad_input(db.name() + ": schema heapq holds " + what +
                   ", which heapq does not make: the store is refused, for that would run as "
                   "whoever reads it (its owner may drop it)");
}

// Objects hung on heapq's tables that run code, or stand outside heapq's own: a row each,
// described by the server.
constexpr const char* kForeignObjects = R"sql(
WITH s AS (SELECT oid FROM pg_namespace WHERE nspname = 'heapq'),
     rel AS (SELECT c.oid FROM pg_class c, s WHERE c.relnamespace = s.oid)
SELECT 'rule ' || r.rulename || ' on ' || c.relname
  FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
  WHERE r.ev_class IN (SELECT oid FROM rel) AND r.rulename <> '_RETURN'
UNION ALL SELECT 'row-level security policy ' || p.polname || ' on ' || c.relname
  FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid WHERE p.polrelid IN (SELECT oid FROM rel)
UNION ALL SELECT 'a partition of ' || p.relname || ' outside the schema'
  FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
  WHERE i.inhparent IN (SELECT oid FROM rel) AND i.inhrelid NOT IN (SELECT oid FROM rel)
UNION ALL SELECT 'operator ' || o.oprname FROM pg_operator o, s WHERE o.oprnamespace = s.oid
UNION ALL SELECT 'type ' || t.typname FROM pg_type t, s
  WHERE t.typnamespace = s.oid AND t.typrelid = 0 AND NOT EXISTS (
    SELECT 1 FROM pg_type e WHERE e.oid = t.typelem AND e.typrelid IN (SELECT oid FROM rel))
UNION ALL SELECT 'collation ' || x.collname FROM pg_collation x, s WHERE x.collnamespace = s.oid
UNION ALL SELECT 'conversion ' || x.conname FROM pg_conversion x, s WHERE x.connamespace = s.oid
UNION ALL SELECT 'operator class ' || x.opcname FROM pg_opclass x, s WHERE x.opcnamespace = s.oid
UNION ALL SELECT 'operator family ' || x.opfname FROM pg_opfamily x, s WHERE x.opfnamespace = s.oid
UNION ALL SELECT pg_describe_object(d.classid, d.objid, d.objsubid) || ', which uses ' ||
       pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid)
  FROM pg_depend d WHERE (
    (d.classid = 'pg_class'::regclass AND d.objid IN (SELECT oid FROM rel))
    OR (d.classid = 'pg_attrdef'::regclass AND d.objid IN (
      SELECT oid FROM pg_attrdef WHERE adrelid IN (SELECT oid FROM rel)))
    OR (d.classid = 'pg_constraint'::regclass AND d.objid IN (
      SELECT oid FROM pg_constraint WHERE conrelid IN (SELECT oid FROM rel)))
    OR (d.classid = 'pg_rewrite'::regclass AND d.objid IN (
      SELECT oid FROM pg_rewrite WHERE ev_class IN (SELECT oid FROM rel)))
    OR (d.classid = 'pg_trigger'::regclass AND d.objid IN (
      SELECT oid FROM pg_trigger WHERE tgrelid IN (SELECT oid FROM rel)))
  ) AND (
    (d.refclassid = 'pg_proc'::regclass AND d.refobjid IN (
      SELECT p.oid FROM pg_proc p, s WHERE p.pronamespace <> s.oid AND
        (p.pronamespace <> 'pg_catalog'::regnamespace OR p.provolatile = 'v')))
    OR (d.refclassid = 'pg_operator'::regclass AND d.refobjid IN (
      SELECT oid FROM pg_operator WHERE oprnamespace <> 'pg_catalog'::regnamespace))
    OR (d.refclassid = 'pg_type'::regclass AND d.refobjid IN (
      SELECT t.oid FROM pg_type t, s
      WHERE t.typnamespace NOT IN (s.oid, 'pg_catalog'::regnamespace)))
    OR (d.refclassid = 'pg_class'::regclass AND d.refobjid IN (
      SELECT c.oid FROM pg_class c, s
      WHERE c.relnamespace NOT IN (s.oid, 'pg_catalog'::regnamespace)))
    OR (d.refclassid = 'pg_collation'::regclass AND d.refobjid IN (
      SELECT oid FROM pg_collation WHERE collnamespace <> 'pg_catalog'::regnamespace))
    OR (d.refclassid = 'pg_opclass'::regclass AND d.refobjid IN (
      SELECT oid FROM pg_opclass WHERE opcnamespace <> 'pg_catalog'::regnamespace))
  )
)sql";

Status check_relations(PgConnection& db, const ServerObjects& own) {
  HEAPQ_ASSIGN_OR_RETURN(
      PgResult r, db.query("SELECT c.relname, c.relkind::text, c.relrowsecurity, "
                           "c.relforcerowsecurity FROM pg_class c JOIN pg_namespace n ON "
                           "n.oid = c.relnamespace WHERE n.nspname = 'heapq' ORDER BY c.relname"));
  std::vector<std::string> tables;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    const std::string name(pg_bytes(r.get(), i, 0));
    const char kind = pg_bytes(r.get(), i, 1).empty() ? '?' : pg_bytes(r.get(), i, 1)[0];
    if (!own_relation(own, name, kind))
      return refused(db, std::string(kind_name(kind)) + " " + name);
    if (pg_int(r.get(), i, 2) || pg_int(r.get(), i, 3))
      return refused(db, "row-level security on " + name);
    if (kind == 'r' || kind == 'p') tables.push_back(name);
  }
  for (const std::string& t : own.tables)
    if (!contains(tables, t))
      return bad_input(db.name() + ": not a heapq store: schema heapq has no table " + t);
  return Ok{};
}

Status check_functions_and_triggers(PgConnection& db, const ServerObjects& own) {
  HEAPQ_ASSIGN_OR_RETURN(
      PgResult f,
      db.query("SELECT p.proname, pg_get_function_identity_arguments(p.oid), l.lanname, p.prosrc,"
               " p.prokind::text = 'f' AND NOT p.prosecdef AND p.proconfig IS NULL"
               " FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang"
               " WHERE p.pronamespace = 'heapq'::regnamespace"));
  for (int i = 0; i < PQntuples(f.get()); ++i) {
    const std::string_view name = pg_bytes(f.get(), i, 0);
    const bool same = std::any_of(own.functions.begin(), own.functions.end(), [&](const auto& o) {
      return o.name == name && o.arguments == pg_bytes(f.get(), i, 1) &&
             lower(o.language) == pg_bytes(f.get(), i, 2) && o.body == pg_bytes(f.get(), i, 3) &&
             pg_int(f.get(), i, 4);
    });
    if (!same)
      return refused(db, "function " + std::string(name) + "(" +
                             std::string(pg_bytes(f.get(), i, 1)) + ") as it is defined");
  }
  HEAPQ_ASSIGN_OR_RETURN(
      PgResult t,
      db.query("SELECT t.tgname, c.relname, p.pronamespace = 'heapq'::regnamespace, p.proname"
               " FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
               " JOIN pg_proc p ON p.oid = t.tgfoid"
               " WHERE c.relnamespace = 'heapq'::regnamespace AND NOT t.tgisinternal"));
  for (int i = 0; i < PQntuples(t.get()); ++i)
    if (!contains(own.triggers, pg_bytes(t.get(), i, 0)) || !pg_int(t.get(), i, 2) ||
        !std::any_of(own.functions.begin(), own.functions.end(),
                     [&](const auto& o) { return o.name == pg_bytes(t.get(), i, 3); }))
      return refused(db, "trigger " + std::string(pg_bytes(t.get(), i, 0)) + " on " +
                             std::string(pg_bytes(t.get(), i, 1)));
  return Ok{};
}

}  // namespace

const ServerObjects& server_objects() {
  static const ServerObjects objects = read_server_objects();
  return objects;
}

Status lock_and_check_server_objects(PgConnection& db) {
  const ServerObjects& own = server_objects();
  HEAPQ_ASSIGN_OR_RETURN(PgResult there, db.query("SELECT to_regnamespace('heapq') IS NOT NULL AND "
                                                  "to_regclass('heapq.store_info') IS NOT NULL"));
  if (!pg_int(there.get(), 0, 0))
    return bad_input(db.name() + ": no heapq store in this database (heapq load --to " + db.name() +
                     " makes one)");
  // ONLY: a partitioned table alone, not its every partition (thousands of locks).
  std::string lock = "LOCK TABLE";
  for (const std::string& t : own.tables)
    lock += (t == own.tables[0] ? " ONLY " : ", ONLY ") + db.table(t);
  if (Status s = db.exec(lock + " IN ACCESS SHARE MODE"); !s)
    return bad_input(db.name() + ": not a heapq store, or not one of this heapq (" +
                     s.error().message.substr(db.name().size() + 2) + ")");
  HEAPQ_RETURN_IF_ERROR(check_relations(db, own));
  HEAPQ_RETURN_IF_ERROR(check_functions_and_triggers(db, own));
  HEAPQ_ASSIGN_OR_RETURN(PgResult foreign, db.query(kForeignObjects));
  if (PQntuples(foreign.get()) > 0) return refused(db, std::string(pg_bytes(foreign.get(), 0, 0)));
  return Ok{};
}

}  // namespace heapq::store
