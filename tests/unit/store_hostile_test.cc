// A store is read as if a stranger wrote it: rows edited with heapq sql --write give an
// answer or a "damaged store" error, never a crash or an allocation the file does not justify.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "heapq/dominators.h"
#include "heapq/stats.h"
#include "heapq/store.h"
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
    ASSERT_TRUE(writer->add("small.json", loaded.graph.value(), loaded.report).ok());
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
      EXPECT_NE(graph.error().message.find("damaged store"), std::string::npos) << graph.error().message;
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

// The store's name is checked when the store is renamed to it, not only when the load starts.
TEST_F(StoreHostile, AStoreCreatedDuringTheLoadIsKept) {
  const std::string path = (dir_ / "race.db").string();
  auto writer = StoreWriter::create(path);
  ASSERT_TRUE(writer.ok());
  auto loaded = testing::load_text(testing::kSmallDump);
  ASSERT_TRUE(writer->add("small.json", loaded.graph.value(), loaded.report).ok());
  std::filesystem::copy_file(store_, path);  // another load finished first
  Status s = writer->finish();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ExitCode::kUsage);
  EXPECT_NE(s.error().message.find("--force"), std::string::npos) << s.error().message;
  EXPECT_EQ(std::filesystem::file_size(path), std::filesystem::file_size(store_));
  auto replacing = StoreWriter::create(path);
  ASSERT_TRUE(replacing->add("small.json", loaded.graph.value(), loaded.report).ok());
  EXPECT_TRUE(replacing->finish(true).ok());
}

}  // namespace
}  // namespace heapq
