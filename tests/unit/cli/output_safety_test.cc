// Files heapq writes: never through a link planted beside them, never over one of its inputs.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "heapq/store.h"
#include "heapq/temp_file.h"
#include "test_dumps.h"

namespace heapq {
namespace {

using testing::run_cli;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class OutputSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("heapq-output-safety-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    dump_ = (dir_ / "small.json").string();
    std::ofstream(dump_) << testing::kSmallDump;
    victim_ = dir_ / "victim";
    std::ofstream(victim_) << "keep me";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Links every name a temporary file of `out` was once given (".NAME.tmp-PID") to the victim.
  void plant_link_for(const std::string& out) {
    std::filesystem::create_symlink(victim_,
                                    dir_ / ("." + out + ".tmp-" + std::to_string(::getpid())));
  }

  std::filesystem::path dir_, victim_;
  std::string dump_;
};

TEST_F(OutputSafety, AWriterNeverFollowsALinkPlantedAtItsTemporaryName) {
  for (const char* name : {"out.dot", "out.html", "out.db"}) plant_link_for(name);
  const std::string dot = (dir_ / "out.dot").string(), html = (dir_ / "out.html").string();
  ASSERT_EQ(run_cli({"--quiet", "viz", "-o", dot, dump_, "String"}).status, 0);
  ASSERT_EQ(run_cli({"--quiet", "report", "-o", html, dump_}).status, 0);
  ASSERT_EQ(run_cli({"--quiet", "load", "-o", (dir_ / "out.db").string(), dump_}).status, 0);
  EXPECT_EQ(read_file(victim_), "keep me");
  for (const char* name : {"out.dot", "out.html", "out.db"})
    EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::symlink_status(dir_ / name)))
        << name;
  EXPECT_NE(read_file(dot).find("digraph"), std::string::npos);
}

TEST_F(OutputSafety, TemporaryFilesAreNewFilesEachTime) {
  const std::string out = (dir_ / "out.svg").string();
  auto a = create_temp_beside(out), b = create_temp_beside(out);
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->path, b->path);
  for (const TempFile* t : {&*a, &*b}) {
    ::close(t->fd);
    EXPECT_EQ(std::filesystem::path(t->path).parent_path(), dir_);
    EXPECT_EQ(temp_file_owner(out, std::filesystem::path(t->path).filename().string()), ::getpid());
  }
  EXPECT_EQ(temp_file_owner(out, ".out.svg.tmp-123"), 123);  // as earlier versions named them
  EXPECT_FALSE(temp_file_owner(out, ".out.svg.tmp-"));
  EXPECT_FALSE(temp_file_owner(out, ".out.svg.tmp-12x"));
  EXPECT_FALSE(temp_file_owner(out, ".out.svg.tmp-12-notrandom"));
  EXPECT_FALSE(temp_file_owner(out, ".other.svg.tmp-123"));
  auto missing_dir = create_temp_beside((dir_ / "no" / "out.svg").string());
  ASSERT_FALSE(missing_dir);
  EXPECT_EQ(missing_dir.error().code, ExitCode::kIo);
}

TEST_F(OutputSafety, AnOutputThatIsAnInputIsRefused) {
  const std::string before = read_file(dump_);
  const std::string link = (dir_ / "hard.json").string();
  std::filesystem::create_hard_link(dump_, link);
  for (const std::string& out : {dump_, link, (dir_ / "." / "small.json").string()}) {
    auto viz = run_cli({"viz", "-o", out, dump_, "String"});
    EXPECT_EQ(viz.status, 1) << out;
    EXPECT_NE(viz.err.find("is also an input"), std::string::npos) << viz.err;
    EXPECT_EQ(run_cli({"report", "-o", out, dump_}).status, 1) << out;
    EXPECT_EQ(run_cli({"report", "-o", out, dump_, dump_}).status, 1) << out;
  }
  EXPECT_EQ(read_file(dump_), before);

  const std::string store = (dir_ / "small.db").string();
  ASSERT_EQ(run_cli({"--quiet", "load", "-o", store, dump_}).status, 0);
  const std::string stored = read_file(store);
  EXPECT_EQ(run_cli({"viz", "-o", store, store + "#1", "String"}).status, 1);
  EXPECT_EQ(run_cli({"report", "-o", store, store}).status, 1);
  EXPECT_EQ(run_cli({"load", "--append", "-o", store, store + "#1"}).status, 1);
  EXPECT_EQ(read_file(store), stored);
  // Another file, and a device, are written as before.
  EXPECT_EQ(run_cli({"--quiet", "viz", "-o", (dir_ / "out.dot").string(), store, "String"}).status,
            0);
  EXPECT_EQ(run_cli({"--quiet", "viz", "-o", "/dev/null", dump_, "String"}).status, 0);
}

}  // namespace
}  // namespace heapq
