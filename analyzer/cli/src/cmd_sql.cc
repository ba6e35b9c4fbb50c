// heapq sql: SQL on a store, printed as an aligned table, JSON rows or CSV.
#include "command.h"
#include "heapq/render/sql.h"
#include "output.h"

namespace heapq::cli {

namespace {

struct SqlOptions {
  bool write = false;  // the store opened read-write
};

constexpr Option<SqlOptions> kOptions[] = {
    Bind<SqlOptions>::flag<&SqlOptions::write>(
        "write", "allow statements that change the store (it is opened read-only otherwise)"),
};

int run(const GlobalOptions& global, const Invocation<SqlOptions>& in) {
  if (in.inputs.size() != 2)
    return report_error(usage_error("sql takes STORE and one SQL text (see heapq sql --help)"));
  const std::string store = parse_store_ref(in.inputs[0]).file;
  const std::string& sql = in.inputs[1];
  auto sink = render::sql_renderer(global.format, {global.width},
                                   [](std::string_view s) { return emit(s); });
  Status s = run_sql(store, sql, in.values.write, *sink);
  if (s) s = sink->finish();
  return s ? 0 : report_error(s.error());
}
}  // namespace

const Command kSqlCommand = {
    "sql",
    "run SQL on a store (heapq load): tables of objects, references, roots, classes, sites",
    "heapq sql [--format text|json|csv] [--write] STORE \"SELECT ...\"\n"
    "heapq sql [--format text|json|csv] [--write] postgresql://... \"SELECT ...\"",
    "Runs the SQL on the store and prints the rows: an aligned table (text, NULL shown as NULL),\n"
    "a JSON array of row objects (--format json; an infinite or NaN real is null there), or CSV\n"
    "with a header line (--format csv). Control characters of text values are escaped in text\n"
    "and CSV as \\n, \\t, \\e, \\xhh or \\uhhhh (a dump's strings never drive the terminal); JSON\n"
    "has them exactly.\n"
    "Several statements may be given, separated by ';': the rows of each one that returns rows\n"
    "are printed in turn, as SQLite produces them (the text table waits for its last row). The\n"
    "store is opened read-only: a statement that would change it is refused (exit status 1)\n"
    "unless --write is given. An SQL error exits with status 2 and SQLite's message.\n\n"
    "Tables: dumps, objects, refs, roots, classes, sites, gems, strings, types,\n"
    "class_records, weak_holders, dump_issues, stack_frames, block_sites, graph_columns,\n"
    "class_edges; views objects_v, refs_v, roots_v, sites_v\n"
    "with names spelled out. Join and filter on integer columns (id, address, dump_id),\n"
    "which are indexed; address_hex is for reading. The schema, documented, is\n"
    "schemas/store.sql; heapq sql STORE \"SELECT sql FROM sqlite_schema\" prints it.\n"
    "Every row carries its dump_id (dumps.id). Sampled profiles (heapq load P.pb.gz) are\n"
    "in profiles and profile_sites (its profile_id), numbered apart from the dumps.\n\n"
    "On a server (heapq load --to URL), the same tables and views are in the schema heapq, and\n"
    "the SQL is PostgreSQL's: read-only, it is one statement that reads (SELECT, WITH, VALUES,\n"
    "TABLE, SHOW, EXPLAIN without ANALYZE), run in a read-only transaction; --write runs any\n"
    "statements in one transaction. Either way the SQL runs with the rights of the role the URL\n"
    "connects as: a function a SELECT calls (dblink_exec, lo_import, pg_advisory_lock) does what\n"
    "that role may do. Give analysts a role that may only read (README: Many processes). The\n"
    "store is checked first: anything in the schema heapq does not make is refused. For\n"
    "example:\n"
    "  heapq sql app.db \"SELECT class, count(*), sum(memsize) FROM objects_v\n"
    "                    WHERE dump_id = 1 GROUP BY class ORDER BY 3 DESC LIMIT 10\"\n",
    specs_of<kOptions>,
    run_bound<kOptions, run>,
    render::kSqlFormats,
};

}  // namespace heapq::cli
