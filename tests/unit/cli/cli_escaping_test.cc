// Dump strings in the command line's output: text and sql's CSV show them escaped (a newline in
// a file name or a root category stays on its line), JSON gives them back exactly as the dump
// has them.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_run.h"
#include "command.h"
#include "test_dumps.h"

namespace heapq {
namespace {

using testing::run_cli;

// A class name that colors the terminal and is longer than text shows.
const std::string kEvilClass = "Evil\x1b[31m" + std::string(150, 'A');

class CliEscaping : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("heapq-cli-escaping-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    dump_ = (dir_ / "newlines.json").string();
    // A root whose category holds a newline holds an Evil object that holds a Target; both
    // were allocated in a file whose name holds a newline.
    std::ofstream(dump_)
        << R"({"type":"ROOT", "root":"vm\nx", "references":["0x500"]})"
           "\n"
        << R"({"address":"0x100", "type":"CLASS", "class":"0x110", "name":"Target", "references":[], "memsize":500})"
           "\n"
        << R"({"address":"0x300", "type":"CLASS", "class":"0x110", "name":"Evil\u001b[31m)"
        << std::string(150, 'A')
        << R"(", "references":[], "memsize":500})"
           "\n"
        << R"({"address":"0x500", "type":"OBJECT", "class":"0x300", "references":["0x700"], "file":"a\nb.rb", "line":3, "method":"new", "memsize":40})"
           "\n"
        << R"({"address":"0x700", "type":"OBJECT", "class":"0x100", "references":[], "file":"a\nb.rb", "line":4, "method":"new", "memsize":40})"
           "\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  std::string dump_;
};

// Text output never starts a line with what followed a newline inside a dump string.
void expect_no_split(const std::string& out) {
  EXPECT_EQ(out.find("\nb.rb"), std::string::npos) << out;
  EXPECT_EQ(out.find("\nx)"), std::string::npos) << out;
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
}

TEST_F(CliEscaping, NewlinesInSitesAndRootsStayOnTheirLine) {
  auto object = run_cli({"--quiet", "retainers", "--referrers", dump_, "0x700"});
  ASSERT_EQ(object.status, 0) << object.err;
  expect_no_split(object.out);
  EXPECT_NE(object.out.find("allocated at a\\nb.rb:4 in new"), std::string::npos) << object.out;
  EXPECT_NE(object.out.find("1. ROOT(vm\\nx)"), std::string::npos) << object.out;

  auto cls = run_cli({"--quiet", "retainers", "--referrers", dump_, "Target"});
  ASSERT_EQ(cls.status, 0) << cls.err;
  expect_no_split(cls.out);
  EXPECT_NE(cls.out.find("ROOT(vm\\nx)"), std::string::npos) << cls.out;

  auto dominators = run_cli({"--quiet", "dominators", dump_});
  ASSERT_EQ(dominators.status, 0) << dominators.err;
  expect_no_split(dominators.out);
  EXPECT_NE(dominators.out.find("(a\\nb.rb:3 in new)"), std::string::npos) << dominators.out;
}

// The referrers of a class, grouped: JSON names the referrer's class as the dump does, not as
// text shows it (escaped, its middle cut out).
TEST_F(CliEscaping, GroupedReferrersInJsonAreExact) {
  auto r = run_cli({"--quiet", "--format", "json", "retainers", "--referrers", dump_, "Target"});
  ASSERT_EQ(r.status, 0) << r.err;
  rapidjson::Document doc;
  doc.Parse(r.out.c_str());
  ASSERT_FALSE(doc.HasParseError()) << r.out;
  ASSERT_TRUE(doc.HasMember("referrers")) << r.out;
  const auto& referrers = doc["referrers"];
  ASSERT_EQ(referrers.Size(), 1u) << r.out;
  EXPECT_EQ(std::string(referrers[0]["class"].GetString()), kEvilClass);
  EXPECT_TRUE(referrers[0]["edge"].IsNull());
  EXPECT_EQ(referrers[0]["count"].GetUint64(), 1u);

  auto text = run_cli({"--quiet", "retainers", "--referrers", dump_, "Target"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("  Evil\\e[31mAAA"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find(std::string(150, 'A')), std::string::npos) << text.out;  // cut for text
}

// sql --format csv is data, yet read on terminals: a class name's ESC sequence and a file
// name's newline come out escaped as in text, never raw.
TEST_F(CliEscaping, SqlCsvEscapesDumpStrings) {
  const std::string store = (dir_ / "newlines.db").string();
  ASSERT_EQ(run_cli({"--quiet", "load", "-o", store, dump_}).status, 0);
  auto csv = run_cli(
      {"--format", "csv", "sql", store,
       "SELECT s.value AS name, count(*) AS n FROM strings s "
       "WHERE s.value LIKE 'Evil%' OR s.value LIKE 'a%b.rb' GROUP BY s.value ORDER BY name"});
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(csv.out.find('\x1b'), std::string::npos) << csv.out;
  EXPECT_EQ(csv.out, "name,n\r\nEvil\\e[31m" + std::string(150, 'A') + ",1\r\na\\nb.rb,1\r\n");
}

// The escape character is escaped in turn: a class named A<NUL>B and one named with the four
// characters "\x00" in its middle print apart, in lines and in tables alike.
TEST_F(CliEscaping, EscapesReadBackToOneName) {
  const std::string dump = (dir_ / "backslashes.json").string();
  std::ofstream(dump)
      << R"({"type":"ROOT", "root":"vm", "references":["0x500", "0x600"]})"
         "\n"
      << R"({"address":"0x100", "type":"CLASS", "name":"A\u0000B", "references":[], "memsize":500})"
         "\n"
      << R"({"address":"0x200", "type":"CLASS", "name":"A\\x00B", "references":[], "memsize":500})"
         "\n"
      << R"({"address":"0x500", "type":"OBJECT", "class":"0x100", "references":[], "memsize":40})"
         "\n"
      << R"({"address":"0x600", "type":"OBJECT", "class":"0x200", "references":[], "memsize":40})"
         "\n";
  auto stats = run_cli({"--quiet", "stats", dump});
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_NE(stats.out.find("\nA\\x00B "), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("\nA\\\\x00B "), std::string::npos) << stats.out;
  auto dominators = run_cli({"--quiet", "dominators", dump});
  ASSERT_EQ(dominators.status, 0) << dominators.err;
  EXPECT_NE(dominators.out.find(": A\\x00B 0x500"), std::string::npos) << dominators.out;
  EXPECT_NE(dominators.out.find(": A\\\\x00B 0x600"), std::string::npos) << dominators.out;

  // An error names a path once escaped, not twice.
  auto error = run_cli({"--quiet", "--format", "folded", "sites", "-o",
                        (dir_ / "no\\such" / "out.folded").string(), dump});
  EXPECT_EQ(error.status, 3);
  EXPECT_NE(error.err.find("no\\\\such"), std::string::npos) << error.err;
  EXPECT_EQ(error.err.find("no\\\\\\\\such"), std::string::npos) << error.err;
}

}  // namespace
}  // namespace heapq
