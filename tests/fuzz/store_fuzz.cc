// libFuzzer target: a store edited by a stranger (heapq sql --write, a hex editor) is read back,
// analysed, queried and appended to, which must give an answer or an error, never crash or hang,
// and never run what the store holds as heapq's SQL.
// The input is a list of edits (table, column, row, value) applied to a store of a small dump;
// the store itself is made once. Build and run with tests/fuzz/run.sh (needs clang).
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/retainers.h"
#include "heapq/analyze/stats.h"
#include "heapq/answer/store_analyses.h"
#include "heapq/model/load.h"
#include "heapq/store/store.h"

namespace {

const char* kDump =
    R"({"type":"META", "format":"memprof", "version":1})"
    "\n"
    R"({"type":"ROOT", "root":"vm", "references":["0x100", "0x500", "0x700"], "reference_names":["a", "b", "c"]})"
    "\n"
    R"({"address":"0x100", "type":"CLASS", "class":"0x110", "name":"String", "references":[], "memsize":500})"
    "\n"
    R"({"address":"0x110", "type":"CLASS", "class":"0x110", "singleton":true, "references":["0x100"], "reference_names":["x"], "memsize":400})"
    "\n"
    R"({"address":"0x300", "type":"CLASS", "class":"0x110", "name":"Foo", "references":[], "memsize":600})"
    "\n"
    R"({"address":"0x500", "type":"OBJECT", "class":"0x300", "references":["0x600"], "reference_names":["@h"], "file":"app/foo.rb", "line":3, "method":"new", "memsize":40})"
    "\n"
    R"({"address":"0x600", "type":"HASH", "class":"0x300", "references":["0x700", "0x710"], "reference_names":["[1]", "[2]"], "memsize":160})"
    "\n"
    R"({"address":"0x700", "type":"DATA", "class":"0x100", "struct":"weakmap", "references":["0x710"], "reference_names":["k"], "memsize":40})"
    "\n"
    R"({"address":"0x710", "type":"STRING", "class":"0x100", "references":[], "file":"lib/x.rb", "line":9, "memsize":40})"
    "\n"
    R"({"address":"0x800", "type":"IMEMO", "imemo_type":"cref", "references":["0x300"], "reference_names":[null], "memsize":40})"
    "\n"
    R"({"type":"END", "records":10})"
    "\n";

struct Column {
  const char* table;
  const char* column;
};
constexpr Column kColumns[] = {
    {"objects", "id"},
    {"objects", "address"},
    {"objects", "type"},
    {"objects", "class_id"},
    {"objects", "memsize"},
    {"objects", "site_id"},
    {"objects", "generation"},
    {"objects", "dump_id"},
    {"refs", "from_id"},
    {"refs", "seq"},
    {"refs", "to_id"},
    {"refs", "name_id"},
    {"roots", "seq"},
    {"roots", "category_id"},
    {"roots", "target"},
    {"classes", "id"},
    {"classes", "address"},
    {"classes", "object"},
    {"classes", "name_id"},
    {"sites", "id"},
    {"sites", "file_id"},
    {"sites", "line"},
    {"sites", "method_id"},
    {"strings", "id"},
    {"strings", "value"},
    {"dumps", "id"},
    {"dumps", "edges"},
    {"dumps", "objects"},
    {"dumps", "lines"},
    {"dumps", "named_refs"},
    {"dumps", "end_records"},
    {"class_records", "object"},
    {"class_records", "name_id"},
    {"weak_holders", "object"},
    {"graph_columns", "data"},
    {"graph_columns", "chunk"},
    {"class_edges", "data"},
    {"dump_issues", "line"},
};

void remove_stores();

// The store of kDump, made on first use; it and the edited copy are removed at exit.
const std::string& pristine() {
  static const std::string path = [] {
    std::string p = std::filesystem::temp_directory_path() /
                    ("heapq-store-fuzz-" + std::to_string(::getpid()) + ".db");
    std::filesystem::remove(p);
    auto input = heapq::memory_input(kDump, "fuzz.json");
    heapq::LoadReport report;
    auto graph = heapq::load_dump(*input, {}, report);
    auto writer = heapq::StoreWriter::create(p);
    if (!graph || !writer ||
        !writer->add("fuzz.json", *graph, report, heapq::analyses_for_store(*graph)) ||
        !writer->finish())
      std::abort();
    return p;
  }();
  // Registered after path is made, so it runs before path is destroyed.
  [[maybe_unused]] static const bool removed_at_exit = std::atexit(remove_stores) == 0;
  return path;
}

std::string edited() {
  return pristine() + ".edit";
}
// What a schema object's name writes if heapq ever runs it as SQL.
std::string trap() {
  return pristine() + ".trap";
}

void remove_stores() {
  std::error_code ignored;
  for (const std::string& p : {pristine(), edited(), edited() + "-journal", trap()})
    std::filesystem::remove(p, ignored);
}

std::string hex(const uint8_t* p, size_t n) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) out += {kHex[p[i] >> 4], kHex[p[i] & 15]};
  return out;
}

std::string quoted(const char* format, const std::string& text) {
  char* sql = sqlite3_mprintf(format, text.c_str());
  std::string out = sql ? sql : "";
  sqlite3_free(sql);
  return out;
}

// An edit whose first byte is 0xf0 or more makes the store a stranger's, or queries it read-only
// (added to `queries`): byte 1 picks what, bytes 4-11 fill it in. Each ends, whatever the bytes.
std::string stranger_edit(const uint8_t* e, std::string& queries) {
  const std::string payload = hex(e + 4, 8);
  // A name that runs VACUUM INTO where pasted into SQL unquoted.
  std::string name = "x\"; COMMIT; VACUUM INTO '" + trap() + "'; BEGIN; --";
  for (int i = 4; i < 12 && e[i]; ++i) name += static_cast<char>(e[i]);
  switch (e[1] % 6) {
    case 0:
      return quoted("CREATE INDEX \"%w\" ON objects (id);", name);
    case 1:
      return quoted("CREATE VIEW \"%w\" AS SELECT 1;", name);
    case 2:
      return "CREATE TRIGGER t AFTER INSERT ON dumps BEGIN SELECT fts3_tokenizer('simple', X'" +
             payload + "'); END;";
    case 3:
      return "CREATE VIRTUAL TABLE t USING fts3(x);INSERT INTO t VALUES ('a b c');";
    case 4:
      return "DELETE FROM graph_columns;DROP TABLE objects;CREATE VIEW objects AS WITH RECURSIVE "
             "r(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM r) SELECT 1 AS dump_id, x AS id, x AS "
             "address, 5 AS type, NULL AS class_id, 40 AS memsize, NULL AS site_id, 0 AS "
             "generation, NULL AS idom, 40 AS retained_bytes, 1 AS retained_count, NULL AS "
             "distance FROM r;";
    default:
      queries +=
          "SELECT fts3_tokenizer('simple', X'" + payload + "');SELECT * FROM t WHERE t MATCH 'a';";
      return "";
  }
}

// One edit per 12 bytes: column, row, kind of value, then the value (or a stranger's edit, as
// above). Each is run on its own:
// one that fails (a constraint) leaves the others applied.
std::vector<std::string> edits(const uint8_t* data, size_t size, std::string& queries) {
  std::vector<std::string> sql;
  for (size_t at = 0; at + 12 <= size && at < 12 * 8; at += 12) {
    if (data[at] >= 0xf0) {
      sql.push_back(stranger_edit(data + at, queries));
      continue;
    }
    const Column& c = kColumns[data[at] % std::size(kColumns)];
    const int row = data[at + 1] % 16;
    int64_t v;
    std::memcpy(&v, data + at + 4, sizeof v);
    std::string value;
    switch (data[at + 2] % 6) {
      case 0:
        value = "NULL";
        break;
      case 1:
        value = std::to_string(v);
        break;
      case 2:
        value = std::to_string(v % 64 - 8);
        break;  // small ids, a few negative
      case 3:
        value = "X'" + hex(data + at + 4, 1 + data[at + 3] % 8) + "'";
        break;
      case 4:
        value = "CAST(X'" + hex(data + at + 4, 8) + "' AS TEXT)";
        break;
      default:
        value = std::to_string(static_cast<double>(v) / 3);
        break;
    }
    const std::string pick = std::string("(SELECT ") + c.column + " FROM " + c.table +
                             " LIMIT 1 OFFSET " + std::to_string(row) + ")";
    if (data[at + 3] % 5 == 0)
      sql.push_back(std::string("DELETE FROM ") + c.table + " WHERE " + c.column + " IS " + pick);
    else
      sql.push_back(std::string("UPDATE OR IGNORE ") + c.table + " SET " + c.column + " = " +
                    value + " WHERE " + c.column + " IS " + pick);
  }
  return sql;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string store = edited();
  std::filesystem::copy_file(pristine(), store, std::filesystem::copy_options::overwrite_existing);
  std::string queries;
  for (const std::string& sql : edits(data, size, queries)) (void)heapq::run_sql(store, sql, true);
  (void)heapq::run_sql(store, queries, false);
  for (bool references : {false, true}) {
    heapq::LoadReport report;
    auto graph = heapq::read_store(store, size % 3, report, nullptr, references);
    if (!graph) continue;
    const heapq::HeapGraph& g = *graph;
    heapq::compute_stats(g);
    if (!references) continue;
    heapq::HeapDominators dominators = heapq::HeapDominators::compute(g);
    heapq::compute_stats(g, heapq::SortKey::kBytes, &dominators, SIZE_MAX);
    heapq::ShortestPathTree tree = heapq::ShortestPathTree::compute(g);
    for (uint32_t i = 0; i < g.object_count(); ++i) tree.path_to(g, heapq::ObjectId(i));
  }
  // Appending builds every index again: only where the store was made a stranger's (an edit's
  // first byte 0xf0 or more), so that the plain edits keep their pace.
  bool strange = false;
  for (size_t at = 0; at + 12 <= size && at < 12 * 8; at += 12) strange |= data[at] >= 0xf0;
  if (!strange) return 0;
  if (auto writer = heapq::StoreWriter::append(store)) {
    heapq::LoadReport report;
    auto input = heapq::memory_input(kDump, "fuzz.json");
    auto graph = heapq::load_dump(*input, {}, report);
    if (!graph) std::abort();
    if (writer->add("fuzz.json", *graph, report, heapq::analyses_for_store(*graph)))
      (void)writer->finish(true);
  }
  if (std::filesystem::exists(trap())) std::abort();  // a name in the store ran as SQL
  return 0;
}
