// The command line on arguments and inputs a careless user or an attacker gives it: every
// one ends with an exit status and a message, never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_dumps.h"

namespace heapq {
namespace {

using testing::run_cli;

class CliHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("heapq-cli-hostile-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    dump_ = (dir_ / "small.json").string();
    std::ofstream(dump_) << testing::kSmallDump;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  std::string dump_;
};

TEST_F(CliHostile, DashesWhereTheCommandGoes) {
  EXPECT_EQ(run_cli({"-"}).status, 1);
  EXPECT_EQ(run_cli({"--"}).status, 1);
  EXPECT_EQ(run_cli({"---"}).status, 1);
  EXPECT_EQ(run_cli({"--quiet", "--", "stats", (dir_ / "x").string()}).status, 3);
  EXPECT_EQ(run_cli({"--quiet", "--", "stats", dump_}).status, 0);
  EXPECT_EQ(run_cli({"--", "stats"}).status, 1);
}

}  // namespace
}  // namespace heapq
