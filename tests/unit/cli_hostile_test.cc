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

// A chain as deep as the heap: the dominator tree's text and JSON grow linearly with depth.
TEST_F(CliHostile, DeepDominatorTreesPrintInLinearSpace) {
  const int kDepth = 20'000;
  std::string chain = (dir_ / "chain.json").string();
  {
    std::ofstream out(chain);
    out << R"({"type":"ROOT", "root":"vm", "references":["0x1000"]})" "\n";
    for (int i = 0; i < kDepth; ++i) {
      char line[160];
      std::snprintf(line, sizeof line, R"({"address":"0x%x", "type":"OBJECT", "references":[%s%x%s], "memsize":40})" "\n",
                    0x1000 + 16 * i, i + 1 < kDepth ? "\"0x" : "", i + 1 < kDepth ? 0x1000 + 16 * (i + 1) : 0,
                    i + 1 < kDepth ? "\"" : "");
      out << (i + 1 < kDepth ? line : std::string(R"({"address":")") + [&] {
        char a[16];
        std::snprintf(a, sizeof a, "0x%x", 0x1000 + 16 * i);
        return std::string(a);
      }() + R"(", "type":"OBJECT", "references":[], "memsize":40})" "\n");
    }
  }
  auto text = run_cli({"--quiet", "dominators", "--depth", "100000", chain});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_LT(text.out.size(), size_t(kDepth) * 120);
  EXPECT_NE(text.out.find("[20000] 40 B in 1 objects: "), std::string::npos) << text.out.substr(text.out.size() - 300);
  auto json = run_cli({"--quiet", "--format", "json", "dominators", "--depth", "100000", chain});
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_LT(json.out.size(), size_t(kDepth) * 250);
}

}  // namespace
}  // namespace heapq
