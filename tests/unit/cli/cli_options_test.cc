// The command line's options and help, and what two commands say alike.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_run.h"
#include "command.h"
#include "test_dumps.h"

namespace heapq {
namespace {

using testing::run_cli;

// Option descriptions stay inside their block: a line of one that starts at the margin would
// read as a heading.
TEST(CliHelp, OptionLinesAreIndented) {
  for (const cli::Command& c : cli::commands()) {
    auto help = run_cli({std::string(c.name), "--help"});
    ASSERT_EQ(help.status, 0) << c.name;
    const size_t options = help.out.find("\noptions:\n");
    if (options == std::string::npos) continue;
    const std::string block = help.out.substr(options + 10);
    size_t at = 0;
    while (at < block.size()) {
      size_t next = block.find('\n', at);
      if (next == std::string::npos) next = block.size();
      const std::string line = block.substr(at, next - at);
      at = next + 1;
      if (line.empty() || line == "global options:") continue;
      EXPECT_EQ(line[0], ' ') << c.name << ": \"" << line << "\"";
    }
  }
}

// --width fits help as it fits other text output.
TEST(CliHelp, FollowsWidth) {
  for (const cli::Command& c : cli::commands()) {
    auto narrow = run_cli({"--width", "50", std::string(c.name), "--help"});
    ASSERT_EQ(narrow.status, 0) << c.name << narrow.err;
    const std::string block = narrow.out.substr(narrow.out.find("\nglobal options:\n"));
    for (size_t at = 0, next; at < block.size(); at = next + 1) {
      next = std::min(block.find('\n', at), block.size());
      EXPECT_LE(next - at, 50u) << c.name << ": \"" << block.substr(at, next - at) << "\"";
    }
    auto wide = run_cli({std::string(c.name), "--help", "--width", "0"});
    ASSERT_EQ(wide.status, 0) << c.name << wide.err;
    EXPECT_LT(std::count(wide.out.begin(), wide.out.end(), '\n'),
              std::count(narrow.out.begin(), narrow.out.end(), '\n'))
        << c.name;
  }
}

// diff --by gem names a gem as sites --by gem does: its name, and its version apart.
TEST(CliDiff, GemsAsSitesNamesThem) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("heapq-cli-gem-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string before = (dir / "before.json").string(), after = (dir / "after.json").string();
  std::ofstream(before) << testing::kSmallDump;
  std::ofstream(after)
      << testing::kSmallDump
      << R"({"address":"0x720", "type":"STRING", "class":"0x100", "bytesize":3, "value":"ghi", "file":"/gems/rack-2.2.3/lib/rack.rb", "line":9, "method":"call", "memsize":40})"
         "\n";
  auto r = run_cli({"--quiet", "--format", "json", "diff", "--by", "gem", before, after});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.status, 0) << r.err;
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError()) << r.out;
  ASSERT_TRUE(d.HasMember("by_gem")) << r.out;
  bool rack = false;
  for (const auto& row : d["by_gem"].GetArray()) {
    EXPECT_NE(std::string(row["gem"].GetString()), "rack-2.2.3") << r.out;
    if (std::string(row["gem"].GetString()) == "rack") {
      rack = true;
      ASSERT_TRUE(row["version"].IsString()) << r.out;
      EXPECT_STREQ(row["version"].GetString(), "2.2.3");
    }
  }
  EXPECT_TRUE(rack) << r.out;
}

}  // namespace
}  // namespace heapq
