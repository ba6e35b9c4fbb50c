// The SQLite store: a graph written by StoreWriter reads back the same, through the graph
// columns and through the rows; heapq commands answer the same on a dump and on its store.
#include "heapq/store/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>

#include "cli_run.h"
#include "heapq/analyze/dominators.h"
#include "heapq/answer/ask/load.h"
#include "heapq/answer/store_analyses.h"
#include "heapq/read/dump_time.h"
#include "main_help.h"
#include "test_dumps.h"

namespace heapq {
namespace {

// A memprof dump with named references, a weak map, a singleton class and a bad line.
const char* kMemprofDump =
    R"J({"type":"META", "format":"memprof", "version":1, "ruby_version":"3.1.7", "pid":1})J"
    "\n"
    R"J({"type":"ROOT", "root":"global_tbl", "references":["0x500", "0x700", "0x999"]})J"
    "\n"
    R"J({"address":"0x300", "type":"CLASS", "class":"0x310", "name":"Foo", "references":["0x310"], "reference_names":["(class)"], "memsize":600})J"
    "\n"
    R"J({"address":"0x310", "type":"CLASS", "class":"0x320", "singleton":true, "references":["0x300"], "memsize":400})J"
    "\n"
    R"J({"address":"0x500", "type":"OBJECT", "class":"0x300", "class_name":"Foo", "references":["0x300", "0x600"], "reference_names":["(class)", "@items"], "memsize":40, "file":"app.rb", "line":3, "generation":5})J"
    "\n"
    R"J({"address":"0x600", "type":"ARRAY", "class":"0x400", "class_name":"Array", "references":["0x800"], "memsize":40})J"
    "\n"
    R"J({"address":"0x700", "type":"DATA", "class":"0x400", "struct":"weakmap", "references":["0x800"], "memsize":80})J"
    "\n"
    R"J({"address":"0x800", "type":"STRING", "class":"0x410", "class_name":"String", "references":[], "memsize":40})J"
    "\n"
    "{\"address\": broken\n"
    R"J({"address":"0x900", "type":"IMEMO", "imemo_type":"ment", "references":["0x600"], "memsize":40})J"
    "\n"
    R"J({"type":"END", "records":10})J"
    "\n";

// No allocation tracing (no sites or generations) and memsizes of 4 GB and more.
const char* kUntracedDump =
    R"J({"type":"ROOT", "root":"vm", "references":["0x100", "0x200"]})J"
    "\n"
    R"J({"address":"0x100", "type":"CLASS", "name":"String", "memsize":5000000000})J"
    "\n"
    R"J({"address":"0x200", "type":"STRING", "class":"0x100", "memsize":4294967295})J"
    "\n";

class Store : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("heapq-store-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Writes the dumps (text) into a new store.
  std::string write_store(std::vector<std::string> dumps, const std::string& name = "s.db") {
    auto writer = StoreWriter::create(path(name));
    EXPECT_TRUE(writer.ok()) << writer.error().message;
    for (size_t i = 0; i < dumps.size(); ++i) {
      auto loaded = testing::load_text(dumps[i]);
      EXPECT_TRUE(loaded.graph.ok());
      auto id = writer->add("dump" + std::to_string(i + 1) + ".json", loaded.graph.value(),
                            loaded.report, analyses_for_store(loaded.graph.value()));
      EXPECT_TRUE(id.ok()) << id.error().message;
    }
    Status s = writer->finish();
    EXPECT_TRUE(s.ok()) << s.error().message;
    return path(name);
  }

  std::filesystem::path dir_;
};

void expect_same_graph(const HeapGraph& a, const HeapGraph& b) {
  ASSERT_EQ(a.object_count(), b.object_count());
  ASSERT_EQ(a.edge_count(), b.edge_count());
  EXPECT_EQ(a.has_reference_names(), b.has_reference_names());
  EXPECT_EQ(a.has_weak_holders(), b.has_weak_holders());
  for (uint32_t i = 0; i <= a.object_count(); ++i) {
    const ObjectId o(i);
    ASSERT_EQ(a.references(o).size(), b.references(o).size()) << i;
    for (size_t r = 0; r < a.references(o).size(); ++r) {
      EXPECT_EQ(a.references(o)[r], b.references(o)[r]);
      EXPECT_EQ(a.string(a.reference_name(o, r)), b.string(b.reference_name(o, r)));
    }
    if (i == a.object_count()) break;  // the virtual root has no fields
    EXPECT_EQ(a.address(o), b.address(o));
    EXPECT_EQ(a.type(o), b.type(o));
    EXPECT_EQ(a.class_name(a.class_of(o)), b.class_name(b.class_of(o)));
    EXPECT_EQ(a.memsize(o), b.memsize(o));
    EXPECT_EQ(a.site(o), b.site(o));
    EXPECT_EQ(a.generation(o), b.generation(o));
    EXPECT_EQ(a.holds_weakly(o), b.holds_weakly(o));
    EXPECT_EQ(a.added_class_edge(o), b.added_class_edge(o));
    EXPECT_EQ(a.string(a.own_name(o)), b.string(b.own_name(o)));
    EXPECT_EQ(b.find(a.address(o)), a.find(a.address(o)));
  }
  ASSERT_EQ(a.roots().size(), b.roots().size());
  for (size_t r = 0; r < a.roots().size(); ++r) {
    EXPECT_EQ(a.string(a.roots()[r].category), b.string(b.roots()[r].category));
    EXPECT_EQ(a.roots()[r].target, b.roots()[r].target);
  }
  ASSERT_EQ(a.class_count(), b.class_count());
  for (uint32_t c = 0; c < a.class_count(); ++c) {
    EXPECT_EQ(a.class_info(ClassId(c)).address, b.class_info(ClassId(c)).address);
    EXPECT_EQ(a.class_info(ClassId(c)).object, b.class_info(ClassId(c)).object);
  }
  ASSERT_EQ(a.site_count(), b.site_count());
  for (uint32_t s = 0; s < a.site_count(); ++s) {
    EXPECT_EQ(a.string(a.site_info(SiteId(s)).file), b.string(b.site_info(SiteId(s)).file));
    EXPECT_EQ(a.site_info(SiteId(s)).line, b.site_info(SiteId(s)).line);
  }
  EXPECT_EQ(a.strings().size(), b.strings().size());
}

// The objects table's analyses are the dominator tree's, and distance is known exactly for the
// objects the roots keep alive (weak maps' references do not count for either).
void expect_analyses(const std::string& store, const HeapGraph& g) {
  HeapDominators dom = HeapDominators::compute(g);
  auto rows = run_sql(
      store, "SELECT id, idom, retained_bytes, retained_count, distance FROM objects ORDER BY id",
      false);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->rows.size(), g.object_count());
  for (const auto& row : rows->rows) {
    ObjectId o(static_cast<uint32_t>(std::get<int64_t>(row[0])));
    EXPECT_EQ(std::get<int64_t>(row[2]), static_cast<int64_t>(dom.retained_bytes(o)));
    EXPECT_EQ(std::get<int64_t>(row[3]), static_cast<int64_t>(dom.retained_count(o)));
    EXPECT_EQ(std::holds_alternative<std::monostate>(row[1]), !dom.reachable(o));
    EXPECT_EQ(std::holds_alternative<std::monostate>(row[4]), !dom.reachable(o));
    if (!dom.reachable(o)) continue;
    const int64_t idom = dom.idom(o) == g.virtual_root() ? -1 : int64_t(dom.idom(o).value());
    EXPECT_EQ(std::get<int64_t>(row[1]), idom);
  }
}

void expect_same_report(const LoadReport& a, const LoadReport& b) {
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.lines, b.lines);
  EXPECT_EQ(a.objects, b.objects);
  EXPECT_EQ(a.roots, b.roots);
  EXPECT_EQ(a.bad_lines, b.bad_lines);
  ASSERT_EQ(a.first_bad_lines.size(), b.first_bad_lines.size());
  for (size_t i = 0; i < a.first_bad_lines.size(); ++i) {
    EXPECT_EQ(a.first_bad_lines[i].line, b.first_bad_lines[i].line);
    EXPECT_EQ(a.first_bad_lines[i].message, b.first_bad_lines[i].message);
  }
  EXPECT_EQ(a.dangling_references, b.dangling_references);
  EXPECT_EQ(a.dangling_classes, b.dangling_classes);
  EXPECT_EQ(a.missing_end, b.missing_end);
  EXPECT_EQ(a.end_records, b.end_records);
  EXPECT_EQ(a.damage, b.damage);
}

TEST_F(Store, GraphAndReportReadBackTheSame) {
  for (const char* dump : {testing::kSmallDump, kMemprofDump, kUntracedDump}) {
    std::string store = write_store({dump});
    EXPECT_TRUE(is_sqlite_file(store));
    auto original = testing::load_text(dump);
    LoadReport report;
    auto graph = read_store(store, 0, report);
    ASSERT_TRUE(graph.ok()) << graph.error().message;
    expect_same_graph(original.graph.value(), *graph);
    expect_same_report(original.report, report);
    std::filesystem::remove(store);
  }
}

// Analyses made up for each object, so that what the store writes can only come from them.
class MadeUpAnalyses : public DumpAnalyses {
 public:
  ObjectId idom(ObjectId o) const override {
    return o.value() == 0 ? ObjectId::none() : ObjectId(0);
  }
  uint64_t retained_bytes(ObjectId o) const override { return 1000 + o.value(); }
  uint32_t retained_count(ObjectId o) const override { return 2000 + o.value(); }
  uint32_t distance(ObjectId o) const override { return 3000 + o.value(); }
  uint64_t unreachable_count() const override { return 11; }
  uint64_t unreachable_bytes() const override { return 12; }
};

TEST_F(Store, WritesTheAnalysesItIsHandedAndComputesNone) {
  auto loaded = testing::load_text(testing::kSmallDump);
  ASSERT_TRUE(loaded.graph.ok());
  const std::string store = path("made_up.db");
  {
    auto writer = StoreWriter::create(store);
    ASSERT_TRUE(writer.ok()) << writer.error().message;
    std::promise<std::unique_ptr<const DumpAnalyses>> analyses;
    analyses.set_value(std::make_unique<MadeUpAnalyses>());
    ASSERT_TRUE(
        writer->add("small.json", *loaded.graph, loaded.report, analyses.get_future()).ok());
    ASSERT_TRUE(writer->finish().ok());
  }
  auto rows = run_sql(
      store, "SELECT id, idom, retained_bytes, retained_count, distance FROM objects ORDER BY id",
      false);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->rows.size(), loaded.graph->object_count());
  for (const auto& row : rows->rows) {
    const int64_t id = std::get<int64_t>(row[0]);
    EXPECT_EQ(std::holds_alternative<std::monostate>(row[1]), id == 0);
    if (id != 0) {
      EXPECT_EQ(std::get<int64_t>(row[1]), 0);
    }
    EXPECT_EQ(std::get<int64_t>(row[2]), 1000 + id);
    EXPECT_EQ(std::get<int64_t>(row[3]), 2000 + id);
    EXPECT_EQ(std::get<int64_t>(row[4]), 3000 + id);
  }
  auto dump = run_sql(store, "SELECT unreachable_objects, unreachable_bytes FROM dumps", false);
  ASSERT_TRUE(dump.ok()) << dump.error().message;
  ASSERT_EQ(dump->rows.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(dump->rows[0][0]), 11);
  EXPECT_EQ(std::get<int64_t>(dump->rows[0][1]), 12);
}

TEST_F(Store, TheMemprofDumpCoversNamesWeakMapsAndBadLines) {
  auto loaded = testing::load_text(kMemprofDump);
  ASSERT_TRUE(loaded.graph.ok());
  EXPECT_TRUE(loaded.graph->has_reference_names());
  EXPECT_TRUE(loaded.graph->has_weak_holders());
  EXPECT_EQ(loaded.report.bad_lines, 1u);
  EXPECT_EQ(loaded.report.dangling_references, 1u);
}

TEST_F(Store, RowsGiveTheSameGraphWithoutTheColumns) {
  // The ObjectSpace dump has class edges heapq added (class_edges, not refs rows).
  for (const char* dump : {testing::kSmallDump, kMemprofDump, kUntracedDump}) {
    std::string store = write_store({dump});
    auto original = testing::load_text(dump);
    // An edit of the objects drops the dump's graph columns (a trigger); the rows remain.
    auto edit = run_sql(store, "UPDATE objects SET memsize = memsize WHERE id = 0", true);
    ASSERT_TRUE(edit.ok()) << edit.error().message;
    auto left = run_sql(store, "SELECT count(*) FROM graph_columns", false);
    ASSERT_TRUE(left.ok());
    EXPECT_EQ(std::get<int64_t>(left->rows[0][0]), 0);
    LoadReport report;
    auto graph = read_store(store, 1, report);
    ASSERT_TRUE(graph.ok()) << graph.error().message;
    expect_same_graph(original.graph.value(), *graph);
    std::filesystem::remove(store);
  }
}

TEST_F(Store, AddedClassEdgesAreNotRefsRows) {
  std::string store = write_store({testing::kSmallDump});
  auto original = testing::load_text(testing::kSmallDump);
  size_t added = 0, dump_refs = 0;
  const HeapGraph& g = original.graph.value();
  for (uint32_t i = 0; i < g.object_count(); ++i) {
    added += g.added_class_edge(ObjectId(i));
    dump_refs += g.references(ObjectId(i)).size();
  }
  ASSERT_GT(added, 0u);
  auto rows = run_sql(store, "SELECT count(*) FROM refs", false);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(std::get<int64_t>(rows->rows[0][0]), int64_t(dump_refs - added));
}

TEST_F(Store, OpensWithoutReferencesForCommandsThatNeedNone) {
  std::string store = write_store({testing::kSmallDump});
  auto original = testing::load_text(testing::kSmallDump);
  LoadReport report;
  auto graph = read_store(store, 0, report, nullptr, /*references=*/false);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  ASSERT_EQ(graph->object_count(), original.graph->object_count());
  for (uint32_t i = 0; i < graph->object_count(); ++i) {
    EXPECT_TRUE(graph->references(ObjectId(i)).empty());
    EXPECT_EQ(graph->class_name(graph->class_of(ObjectId(i))),
              original.graph->class_name(original.graph->class_of(ObjectId(i))));
  }
  EXPECT_EQ(graph->roots().size(), original.graph->roots().size());
}

TEST_F(Store, AnalysesAreStored) {
  for (const char* dump : {testing::kSmallDump, kMemprofDump}) {
    std::string store = write_store({dump});
    expect_analyses(store, testing::load_text(dump).graph.value());
    std::filesystem::remove(store);
  }
  std::string store = write_store({testing::kSmallDump});
  // Foo (0x500) is held by the root; its Hash is one step further.
  auto hash = run_sql(store, "SELECT distance, idom FROM objects WHERE address = 0x600", false);
  ASSERT_TRUE(hash.ok());
  EXPECT_EQ(std::get<int64_t>(hash->rows[0][0]), 2);
}

TEST_F(Store, SeveralDumpsOneStore) {
  std::string store = write_store({testing::kSmallDump, kMemprofDump});
  auto dumps = list_stored_dumps(store);
  ASSERT_TRUE(dumps.ok());
  ASSERT_EQ(dumps->size(), 2u);
  EXPECT_EQ((*dumps)[1].source, "dump2.json");
  LoadReport report;
  StoredDump which;
  auto last = read_store(store, 0, report, &which);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(which.id, 2);
  EXPECT_EQ(report.format, DumpFormat::kMemprof);
  auto first = read_store(store, 1, report, &which);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->object_count(), testing::load_text(testing::kSmallDump).graph->object_count());
  auto missing = read_store(store, 3, report);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ExitCode::kBadInput);
  EXPECT_NE(missing.error().message.find("no dump #3"), std::string::npos);
}

// The paths of the store's dumps, in id order.
std::vector<std::string> stored_paths(const std::string& store) {
  auto dumps = list_stored_dumps(store);
  EXPECT_TRUE(dumps.ok()) << dumps.error().message;
  std::vector<std::string> out;
  for (const StoredDump& d : dumps.ok() ? *dumps : std::vector<StoredDump>{})
    out.push_back(d.source);
  return out;
}

// Runs sql on the store in WAL mode and closes it without a checkpoint: the change stays in
// the -wal, as a process killed while it had the store open leaves it.
void change_in_wal(const std::string& store, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(store.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
  ASSERT_GT(std::filesystem::file_size(store + "-wal"), 0u);
}

// Leaves beside the store the hot journal of a process killed in the middle of a transaction
// (one that renamed its dumps), which the next reader of the file rolls back onto it.
void leave_hot_journal(const std::string& store) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(store.c_str(), &db), SQLITE_OK);
  // A small cache: the journal is synced and the file written before the commit.
  ASSERT_EQ(sqlite3_exec(db,
                         "PRAGMA cache_size = 1; BEGIN; UPDATE dumps SET path = 'unfinished.json';"
                         "INSERT INTO graph_columns VALUES (99, 'x', 0, zeroblob(4000000));",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  std::filesystem::copy_file(store + "-journal", store + "-hot");
  sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  std::filesystem::rename(store + "-hot", store + "-journal");
}

void expect_nothing_beside(const std::string& store) {
  for (const char* suffix : {"-wal", "-shm", "-journal"})
    EXPECT_FALSE(std::filesystem::exists(store + suffix)) << suffix;
  auto check = run_sql(store, "PRAGMA integrity_check", false);
  ASSERT_TRUE(check.ok()) << check.error().message;
  EXPECT_EQ(std::get<std::string>(check->rows.at(0).at(0)), "ok");
}

TEST_F(Store, AppendKeepsWhatTheWalOfTheStoreHolds) {
  const std::string store = write_store({testing::kSmallDump, testing::kSmallDump});
  change_in_wal(store, "UPDATE dumps SET path = 'renamed.json' WHERE id = 2");
  ASSERT_EQ(stored_paths(store), (std::vector<std::string>{"dump1.json", "renamed.json"}));
  auto writer = StoreWriter::append(store);
  ASSERT_TRUE(writer.ok()) << writer.error().message;
  auto loaded = testing::load_text(kMemprofDump);
  ASSERT_TRUE(writer
                  ->add("dump3.json", loaded.graph.value(), loaded.report,
                        analyses_for_store(loaded.graph.value()))
                  .ok());
  Status s = writer->finish(true);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(stored_paths(store),
            (std::vector<std::string>{"dump1.json", "renamed.json", "dump3.json"}));
  expect_nothing_beside(store);
  LoadReport report;
  auto graph = read_store(store, 3, report);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  expect_same_graph(loaded.graph.value(), *graph);
}

// Sampled profiles beside dumps: their live estimates by site read back for the fleet, numbered
// on across an append; a process that has dumps is seen through them, not its profiles.
TEST_F(Store, ProfilesBesideDumpsForTheFleet) {
  auto profile = [](uint64_t pid, int64_t second) {
    SampledProfile p;
    p.host = "web-1";
    p.pid = pid;
    p.started = "2026-11-28T09:00:00+00:00";
    p.period = 32;
    p.time_nanos = (int64_t{1'795'000'000} + second) * 1'000'000'000;
    return p;
  };
  auto sites = [](uint64_t leaked) {
    return std::vector<FleetCount>{{"Leak", "app.rb", "remember", 3, leaked, 40 * leaked},
                                   {"String", "", "", 0, 64, 2560}};
  };
  const std::string store = path("profiles.db");
  {
    auto writer = StoreWriter::create(store);
    ASSERT_TRUE(writer.ok()) << writer.error().message;
    auto loaded = testing::load_text(kMemprofDump);  // pid 1
    ASSERT_TRUE(writer
                    ->add("dump.json", loaded.graph.value(), loaded.report,
                          analyses_for_store(loaded.graph.value()))
                    .ok());
    DumpTags tags;
    tags.app = "shop";
    EXPECT_EQ(writer->add_profile("p1.pb.gz", profile(7, 0), sites(320), tags).value(), 1);
    EXPECT_EQ(writer->add_profile("p2.pb.gz", profile(7, 60), sites(640), tags).value(), 2);
    SampledProfile of_the_dumped = profile(1, 0);
    of_the_dumped.host = of_the_dumped.started = "";
    EXPECT_EQ(writer->add_profile("d.pb.gz", of_the_dumped, sites(1)).value(), 3);
    ASSERT_TRUE(writer->finish().ok());
  }
  auto writer = StoreWriter::append(store);
  ASSERT_TRUE(writer.ok()) << writer.error().message;
  EXPECT_EQ(writer->add_profile("p3.pb.gz", profile(7, 120), sites(960)).value(), 4);
  ASSERT_TRUE(writer->finish(true).ok());

  auto fleet = read_fleet(store, "", std::nullopt);
  ASSERT_TRUE(fleet.ok()) << fleet.error().message;
  ASSERT_EQ(fleet->dumps.size(), 4u) << "the dump and pid 7's three profiles";
  EXPECT_EQ(fleet->dumps[0].period, 0u);
  for (size_t i = 1; i < 4; ++i) {
    const FleetDump& d = fleet->dumps[i];
    EXPECT_EQ(d.period, 32u);
    EXPECT_EQ(d.origin.pid, 7u);
    EXPECT_EQ(d.origin.host, "web-1");
    EXPECT_EQ(d.origin.started, "2026-11-28T09:00:00+00:00");
    EXPECT_EQ(d.objects, 320 * i + 64);
    ASSERT_EQ(fleet->counts[i].size(), 2u);
    EXPECT_EQ(fleet->counts[i][0].count, 320 * i);
    EXPECT_EQ(fleet->counts[i][0].line, 3u);
    EXPECT_EQ(fleet->counts[i][1].file, "");
  }
  EXPECT_EQ(fleet->dumps[1].origin.time, "2026-11-18T11:06:40.000000Z");
  EXPECT_EQ(fleet->dumps[1].app, "shop");
  // --app and --since choose among profiles as among dumps.
  EXPECT_EQ(read_fleet(store, "shop", std::nullopt).value().dumps.size(), 2u);
  EXPECT_EQ(read_fleet(store, "", epoch_microseconds("2026-11-18T11:08:00Z")).value().dumps.size(),
            2u)
      << "the dump (taken when loaded: it says no time) and the last profile";
}

// One load takes dumps and sampled profiles in the order given, through the one DumpWriter
// interface either store implements, and tells the command line each one added (what a load a
// signal stops says it added) while it is being written.
TEST_F(Store, OneLoadOfDumpsAndProfiles) {
  const std::string dump = path("d.json");
  std::ofstream(dump) << kMemprofDump;
  const std::string profile = HEAPQ_FIXTURES_DIR "/profiles/widgets.pb.gz";
  StoreLoadOptions options;
  options.output = path("both.db");
  std::vector<std::string> added, writing;
  StoreLoadHooks hooks;
  hooks.added = [&](const std::string& what) { added.push_back(what); };
  hooks.writing = [&](const std::string& store, bool on) {
    writing.push_back((on ? "+" : "-") + std::filesystem::path(store).filename().string());
  };
  auto a = answer_load({profile, dump, profile}, options, InputOptions{}, hooks);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(added, (std::vector<std::string>{"profile #1", "#1", "profile #2"}));
  EXPECT_EQ(writing, (std::vector<std::string>{"+both.db", "-both.db", "+both.db", "-both.db",
                                               "+both.db", "-both.db"}));
  ASSERT_EQ(a->profiles.size(), 2u);
  EXPECT_EQ(a->profiles[1].path, profile);
  EXPECT_GT(a->profiles[0].objects, 0u);
  ASSERT_EQ(a->dumps.size(), 1u);
  auto rows = run_sql(options.output, "SELECT count(*) FROM profiles", false);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_EQ(std::get<int64_t>(rows->rows.at(0).at(0)), 2);
}

TEST_F(Store, AReplacedStoreLeavesNothingOfItsOwnBeside) {
  for (bool wal : {true, false}) {
    SCOPED_TRACE(wal ? "wal" : "journal");
    const std::string store = write_store({testing::kSmallDump, testing::kSmallDump, kMemprofDump});
    if (wal)
      change_in_wal(store, "DELETE FROM dumps WHERE id = 3");
    else
      leave_hot_journal(store);
    for (bool append : {false, true}) {
      auto writer = append ? StoreWriter::append(store) : StoreWriter::create(store);
      ASSERT_TRUE(writer.ok()) << writer.error().message;
      auto loaded = testing::load_text(testing::kSmallDump);
      ASSERT_TRUE(writer
                      ->add("new.json", loaded.graph.value(), loaded.report,
                            analyses_for_store(loaded.graph.value()))
                      .ok());
      Status s = writer->finish(true);
      ASSERT_TRUE(s.ok()) << s.error().message;
    }
    EXPECT_EQ(stored_paths(store), (std::vector<std::string>{"new.json", "new.json"}));
    expect_nothing_beside(store);
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      std::filesystem::remove(store + suffix);
  }
}

TEST_F(Store, StoreReferences) {
  std::string store = write_store({testing::kSmallDump});
  EXPECT_EQ(parse_store_ref(store).file, store);
  EXPECT_EQ(parse_store_ref(store).dump, 0);
  EXPECT_EQ(parse_store_ref(store + "#2").file, store);
  EXPECT_EQ(parse_store_ref(store + "#2").dump, 2);
  EXPECT_EQ(parse_store_ref(store + "#x").file, store + "#x");
  // A file whose name has a '#' is taken whole.
  std::string odd = path("odd#3");
  std::ofstream(odd) << "x";
  EXPECT_EQ(parse_store_ref(odd).file, odd);
  EXPECT_FALSE(is_sqlite_file(odd));
}

TEST_F(Store, OtherSqliteFilesAreNotStores) {
  std::string other = path("other.db");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE dumps (id)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  ASSERT_TRUE(is_sqlite_file(other));
  LoadReport report;
  auto graph = read_store(other, 0, report);
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.error().code, ExitCode::kBadInput);
  EXPECT_NE(graph.error().message.find("not a heapq store"), std::string::npos)
      << graph.error().message;
}

TEST_F(Store, AnUnfinishedStoreLeavesNothing) {
  {
    auto writer = StoreWriter::create(path("gone.db"));
    ASSERT_TRUE(writer.ok());
    EXPECT_TRUE(std::filesystem::exists(writer->temp_path()));
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

TEST_F(Store, SqlIsReadOnlyUnlessAsked) {
  std::string store = write_store({testing::kSmallDump});
  auto refused = run_sql(store, "DELETE FROM objects", false);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ExitCode::kUsage);
  EXPECT_NE(refused.error().message.find("--write"), std::string::npos);
  auto bad = run_sql(store, "SELEKT 1", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ExitCode::kBadInput);
  EXPECT_NE(bad.error().message.find("syntax error"), std::string::npos);
  auto rows = run_sql(store, "SELECT 1 AS i, 2.5 AS f, 'x' AS s, NULL AS n, x'00ff' AS b", false);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->columns, (std::vector<std::string>{"i", "f", "s", "n", "b"}));
  EXPECT_EQ(std::get<int64_t>(rows->rows[0][0]), 1);
  EXPECT_EQ(std::get<double>(rows->rows[0][1]), 2.5);
  EXPECT_EQ(std::get<std::string>(rows->rows[0][2]), "x");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(rows->rows[0][3]));
  EXPECT_EQ(std::get<std::string>(rows->rows[0][4]), "X'00FF'");
  auto deleted =
      run_sql(store, "DELETE FROM objects WHERE id = 0; SELECT count(*) FROM objects", true);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(std::get<int64_t>(deleted->rows[0][0]), 8);
}

TEST_F(Store, ContradictoryRowsAreReportedNotFollowed) {
  std::string store = write_store({testing::kSmallDump});
  ASSERT_TRUE(run_sql(store, "UPDATE refs SET to_id = 12345 WHERE seq = 0", true).ok());
  LoadReport report;
  auto graph = read_store(store, 0, report);
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.error().code, ExitCode::kBadInput);
  EXPECT_NE(graph.error().message.find("damaged store"), std::string::npos)
      << graph.error().message;
}

// An object's stack number a stranger raised is refused, not made into that many stacks.
TEST_F(Store, StackNumbersTheFileDoesNotJustifyAreRefused) {
  const std::string dump =
      R"J({"type":"META", "format":"memprof", "version":1})J"
      "\n"
      R"J({"address":"0x510", "type":"STRING", "file":"/app/shop.rb", "line":3, "stack":1, "memsize":40})J"
      "\n"
      R"J({"type":"FRAME", "id":1, "file":"/app/shop.rb", "line":3, "method":"buy"})J"
      "\n"
      R"J({"type":"STACK", "id":1, "frames":[1]})J"
      "\n";
  std::string store = write_store({dump});
  LoadReport report;
  ASSERT_TRUE(read_store(store, 0, report).ok());
  ASSERT_TRUE(
      run_sql(store, "DELETE FROM graph_columns; UPDATE objects SET stack_id = 2000000000", true)
          .ok());
  auto graph = read_store(store, 0, report);
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.error().message.find("damaged store"), std::string::npos)
      << graph.error().message;
}

// A reference row from an object id a stranger raised (with one object's id raised further, so
// that the id is in range) is refused without memory for every id below it: the objects read
// tell how many there are, and that is all the references' index is made for.
TEST_F(Store, ReferencesFromFarIdsAskNoMemoryTheFileDoesNotJustify) {
  std::string store = write_store({testing::kSmallDump});
  LoadReport report;
  ASSERT_TRUE(read_store(store, 0, report).ok());
  ASSERT_TRUE(run_sql(store,
                      "DELETE FROM graph_columns;"
                      "UPDATE objects SET id = 2000000000 WHERE id = (SELECT max(id) FROM objects);"
                      "UPDATE refs SET from_id = 1999999999"
                      " WHERE from_id = (SELECT max(from_id) FROM refs)",
                      true)
                  .ok());
  auto graph = read_store(store, 0, report);
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.error().message.find("damaged store"), std::string::npos)
      << graph.error().message;
  rusage usage{};
  ASSERT_EQ(::getrusage(RUSAGE_SELF, &usage), 0);
  EXPECT_LT(usage.ru_maxrss, 1 << 20) << "peak KiB";  // 2e9 ids: 8 GB were asked for before
}

// heapq's commands on a dump and on its store.
class StoreCli : public Store {
 protected:
  int run(const std::vector<std::string>& args) {
    testing::CliRun r = testing::run_cli(args);
    out_ = std::move(r.out);
    err_ = std::move(r.err);
    return r.status;
  }
  // The JSON output with the input's path (also in its warnings) replaced by INPUT.
  std::string json_of(std::vector<std::string> args, const std::string& input) {
    args.insert(args.begin(), {"--format", "json"});
    EXPECT_EQ(run(args), 0) << err_;
    for (size_t at; (at = out_.find(input)) != std::string::npos;)
      out_.replace(at, input.size(), "INPUT");
    return out_;
  }
  std::string out_, err_;
};

TEST_F(StoreCli, CommandsAnswerTheSameOnADumpAndOnItsStore) {
  for (const char* text : {testing::kSmallDump, kMemprofDump}) {
    std::string dump = path("heap.json");
    std::ofstream(dump) << text;
    ASSERT_EQ(run({"load", "--force", dump}), 0) << err_;
    const std::string store = dump + ".db";
    const std::string target = text == testing::kSmallDump ? "0x710" : "0x800";
    for (std::vector<std::string> command :
         std::vector<std::vector<std::string>>{{"stats", "--top", "0", "--retained"},
                                               {"sites", "--retained"},
                                               {"sites", "--by", "gem"},
                                               {"dominators", "--top", "50"},
                                               {"dominators", "--depth", "4"},
                                               {"retainers", "--referrers", "", target},
                                               {"retainers", "", "String"}}) {
      auto with = [&](const std::string& input) {
        std::vector<std::string> args = command;
        if (args[0] == "retainers")
          args[std::find(args.begin(), args.end(), "") - args.begin()] = input;
        else
          args.push_back(input);
        return json_of(args, input);
      };
      EXPECT_EQ(with(dump), with(store)) << command[0];
      EXPECT_EQ(with(dump), with(store + "#1")) << command[0];
    }
  }
}

TEST_F(StoreCli, LoadAndSqlExitStatuses) {
  std::string dump = path("heap.json");
  std::ofstream(dump) << testing::kSmallDump;
  std::string store = path("two.db");
  ASSERT_EQ(run({"load", "-o", store, dump, dump}), 0) << err_;
  EXPECT_NE(out_.find("two.db#2"), std::string::npos) << out_;
  EXPECT_EQ(run({"load", "-o", store, dump}), 1);
  EXPECT_NE(err_.find("--force"), std::string::npos);
  EXPECT_EQ(run({"load", "--force", "-o", store, dump}), 0);
  EXPECT_EQ(run({"load", "-o", path("x.db"), path("missing.json")}), 3);
  EXPECT_FALSE(std::filesystem::exists(path("x.db")));
  EXPECT_EQ(run({"stats", store + "#9"}), 2);

  ASSERT_EQ(run({"--format", "csv", "sql", store, "SELECT id, 'a,\"b\"' AS t FROM dumps"}), 0)
      << err_;
  EXPECT_EQ(out_, "id,t\r\n1,\"a,\"\"b\"\"\"\r\n");
  ASSERT_EQ(run({"--format", "csv", "sql", store, "SELECT 1 AS a; SELECT 2 AS b, NULL AS c"}), 0)
      << err_;
  EXPECT_EQ(out_, "a\r\n1\r\nb,c\r\n2,\r\n");
  ASSERT_EQ(run({"--format", "json", "sql", store,
                 "SELECT count(*) AS n FROM objects_v WHERE class = 'String'"}),
            0);
  EXPECT_NE(out_.find("\"n\": 2"), std::string::npos) << out_;
  ASSERT_EQ(
      run({"sql", store, "SELECT type, count(*) AS n FROM objects_v GROUP BY type ORDER BY type"}),
      0);
  EXPECT_NE(out_.find("CLASS   4\n"), std::string::npos) << out_;
  EXPECT_EQ(run({"sql", store, "DROP TABLE objects"}), 1);
  EXPECT_NE(err_.find("--write"), std::string::npos);
  EXPECT_EQ(run({"sql", store, "SELECT nope FROM objects"}), 2);
  EXPECT_NE(err_.find("no such column: nope"), std::string::npos) << err_;
  EXPECT_EQ(run({"sql", dump, "SELECT 1"}), 2);
  EXPECT_EQ(run({"sql", store}), 1);
}

}  // namespace
}  // namespace heapq
