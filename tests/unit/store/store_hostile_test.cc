// A store is read as if a stranger wrote it: rows edited with heapq sql --write give an
// answer or a "damaged store" error, never a crash or an allocation the file does not justify.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "hardening.h"
#include "heapq/analyze/dominators.h"
#include "heapq/analyze/stats.h"
#include "heapq/answer/store_analyses.h"
#include "heapq/store/store.h"
#include "test_dumps.h"

namespace heapq {
namespace {

class StoreHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("heapq-store-hostile-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    store_ = (dir_ / "s.db").string();
    std::filesystem::remove(store_);
    auto writer = StoreWriter::create(store_);
    ASSERT_TRUE(writer.ok()) << writer.error().message;
    auto loaded = testing::load_text(testing::kSmallDump);
    ASSERT_TRUE(loaded.graph.ok());
    ASSERT_TRUE(writer
                    ->add("small.json", loaded.graph.value(), loaded.report,
                          analyses_for_store(loaded.graph.value()))
                    .ok());
    ASSERT_TRUE(writer->finish().ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void edit(const std::string& sql) {
    auto s = run_sql(store_, sql, true);
    ASSERT_TRUE(s.ok()) << s.error().message;
  }
  // Reads the store and runs the analyses on it: an answer or a bad-input error.
  void expect_answer_or_damaged(bool references) {
    LoadReport report;
    auto graph = read_store(store_, 0, report, nullptr, references);
    if (!graph.ok()) {
      EXPECT_EQ(graph.error().code, ExitCode::kBadInput) << graph.error().message;
      EXPECT_NE(graph.error().message.find("damaged store"), std::string::npos)
          << graph.error().message;
      return;
    }
    const HeapGraph& g = graph.value();
    HeapStats s = compute_stats(g);
    EXPECT_EQ(s.objects, g.object_count());
    for (const ClassTotals& c : s.by_class) EXPECT_FALSE(g.class_name(c.cls).empty());
    if (references) HeapDominators::compute(g);
  }

  std::filesystem::path dir_;
  std::string store_;
};

TEST_F(StoreHostile, NullClassIsNoClass) {
  edit("UPDATE objects SET class_id = NULL WHERE id = 4");
  LoadReport report;
  auto graph = read_store(store_, 0, report, nullptr, false);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  const HeapGraph& g = graph.value();
  EXPECT_EQ(g.class_name(g.class_of(ObjectId(4))), "(no class)");
  compute_stats(g);
}

TEST_F(StoreHostile, EditedRowsAreAnswerOrDamaged) {
  const char* edits[] = {
      "UPDATE objects SET class_id = -1 WHERE id = 4",
      "UPDATE objects SET class_id = 1000000 WHERE id = 4",
      "UPDATE objects SET site_id = -5 WHERE id = 4",
      "UPDATE objects SET type = 99 WHERE id = 4",
      "UPDATE objects SET id = 2000000000 WHERE id = 8",
      "UPDATE dumps SET edges = -1",
      "UPDATE dumps SET edges = 9000000000000000000",
      "UPDATE dumps SET edges = 4000000000",
      "UPDATE refs SET from_id = 2000000000 WHERE from_id = 4",
      "UPDATE refs SET to_id = -3 WHERE seq = 0",
      "UPDATE roots SET target = -1",
      "UPDATE classes SET object = -7",
      "UPDATE class_records SET name_id = 99999",
      "DELETE FROM strings WHERE id = 3",
  };
  for (const char* sql : edits) {
    SCOPED_TRACE(sql);
    SetUp();  // a fresh store for each edit
    edit(sql);
    expect_answer_or_damaged(false);
    expect_answer_or_damaged(true);
  }
}

// heapq's own reads see tables only, and stop after work in proportion to the store's size.
TEST_F(StoreHostile, ReadsAreBoundedByTheStoresSize) {
  auto db = store::Database::open(store_, SQLITE_OPEN_READONLY);
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(store::harden(*db, store::Access::kRead).ok());
  auto rows = db->prepare("SELECT count(*) FROM objects, refs, strings");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_EQ(rows->step(), SQLITE_ROW);
  EXPECT_FALSE(db->prepare("SELECT * FROM objects_v").ok());  // no views
  auto endless = db->prepare(
      "WITH RECURSIVE r(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r");
  ASSERT_TRUE(endless.ok());
  EXPECT_EQ(endless->step(), SQLITE_INTERRUPT);
  const Error e = db->error();
  EXPECT_EQ(e.code, ExitCode::kBadInput);
  EXPECT_EQ(e.message.rfind(store_ + ": ", 0), 0u) << e.message;
  EXPECT_NE(e.message.find("not a store heapq made, or it is damaged"), std::string::npos)
      << e.message;
}

// heapq sql: read-only PRAGMAs ask, they do not set; none reaches beyond the connection.
TEST_F(StoreHostile, SqlRefusesPragmasThatReachBeyondTheStore) {
  for (const char* sql : {"PRAGMA temp_store_directory = '/tmp'", "PRAGMA data_store_directory",
                          "PRAGMA trusted_schema = 1", "PRAGMA writable_schema = ON",
                          "PRAGMA soft_heap_limit = 1", "PRAGMA hard_heap_limit = 1"})
    for (bool write : {false, true}) {
      SCOPED_TRACE(sql);
      auto refused = run_sql(store_, sql, write);
      ASSERT_FALSE(refused.ok());
      EXPECT_EQ(refused.error().code, ExitCode::kUsage);
      EXPECT_NE(refused.error().message.find("is refused on a store"), std::string::npos)
          << refused.error().message;
    }
  auto set = run_sql(store_, "PRAGMA cache_size = 10", false);
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.error().message.find("pass --write"), std::string::npos) << set.error().message;
  EXPECT_TRUE(run_sql(store_, "PRAGMA cache_size = 10", true).ok());
  for (const char* sql :
       {"PRAGMA user_version", "PRAGMA table_info(objects)", "PRAGMA index_list('objects')",
        "PRAGMA integrity_check", "SELECT * FROM pragma_table_info('refs')"}) {
    auto asked = run_sql(store_, sql, false);
    EXPECT_TRUE(asked.ok()) << sql << ": " << asked.error().message;
  }
}

// The store's name is checked when the store is renamed to it, not only when the load starts.
TEST_F(StoreHostile, AStoreCreatedDuringTheLoadIsKept) {
  const std::string path = (dir_ / "race.db").string();
  auto writer = StoreWriter::create(path);
  ASSERT_TRUE(writer.ok());
  auto loaded = testing::load_text(testing::kSmallDump);
  ASSERT_TRUE(writer
                  ->add("small.json", loaded.graph.value(), loaded.report,
                        analyses_for_store(loaded.graph.value()))
                  .ok());
  std::filesystem::copy_file(store_, path);  // another load finished first
  Status s = writer->finish();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ExitCode::kUsage);
  EXPECT_NE(s.error().message.find("--force"), std::string::npos) << s.error().message;
  EXPECT_EQ(std::filesystem::file_size(path), std::filesystem::file_size(store_));
  auto replacing = StoreWriter::create(path);
  ASSERT_TRUE(replacing
                  ->add("small.json", loaded.graph.value(), loaded.report,
                        analyses_for_store(loaded.graph.value()))
                  .ok());
  EXPECT_TRUE(replacing->finish(true).ok());
}

// graph_columns chunks are sized against the dump's object count before any is read in:
// columns planted longer than the dump (here, consistently, so that they would make a graph)
// are refused and the rows read instead.
TEST_F(StoreHostile, ColumnsLongerThanTheDumpAreRefusedBeforeTheyAreRead) {
  LoadReport before;
  auto graph = read_store(store_, 0, before, nullptr, false);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  const size_t objects = graph->object_count();
  for (const auto& [column, bytes] : {std::pair{"address", 8},
                                      {"type", 1},
                                      {"class", 4},
                                      {"memsize", 8},
                                      {"site", 4},
                                      {"generation", 4}})
    edit("INSERT INTO graph_columns VALUES (1, '" + std::string(column) + "', 1, zeroblob(" +
         std::to_string(bytes * 100000) + "))");
  LoadReport after;
  auto planted = read_store(store_, 0, after, nullptr, false);
  ASSERT_TRUE(planted.ok()) << planted.error().message;
  EXPECT_EQ(planted->object_count(), objects);
  expect_answer_or_damaged(false);
  expect_answer_or_damaged(true);
}

}  // namespace
}  // namespace heapq
