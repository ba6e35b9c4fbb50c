// What heapq says with a count of one: "1 bad line", "1 instance", "1 more class", not a plural
// or a "(s)" the reader has to sort out.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_run.h"
#include "test_dumps.h"

namespace heapq {
namespace {

using testing::record;
using testing::root;
using testing::run_cli;

class CliWording : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("heapq-wording-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const char* name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  std::filesystem::path dir_;
};

constexpr const char* kFoo = "{\"address\":\"0x300\", \"type\":\"CLASS\", \"name\":\"Foo\"}\n";
constexpr const char* kBar = "{\"address\":\"0x310\", \"type\":\"CLASS\", \"name\":\"Bar\"}\n";

TEST_F(CliWording, LoadWarningsCountOneAsOne) {
  // One of each thing the load counts: a dangling reference, a repaired string, an object of
  // a class not in the dump, and a bad line (a repeated address; then two).
  const std::string text =
      root("vm", {0x500, 0x999}) + kFoo + record(0x500, "OBJECT", 0x300, {}, 40) +
      record(0x600, "OBJECT", 0x300, {}, 40, "\"file\":\"a\xff.rb\", \"line\":1, ") +
      record(0x700, "OBJECT", 0x777, {}, 40) + record(0x500, "OBJECT", 0x300, {}, 40);
  const std::string dump = write("one.json", text);
  auto run = run_cli({"stats", dump});
  ASSERT_EQ(run.status, 0) << run.err;
  for (const char* said : {": 1 bad line skipped (line 6: a second record at address 0x500",
                           ": 1 string with bytes that are not UTF-8 kept",
                           ": 1 reference to addresses that are not in the dump ignored",
                           ": 1 object whose class is not in the dump"})
    EXPECT_NE(run.err.find(said), std::string::npos) << said << "\n" << run.err;
  EXPECT_EQ(run.err.find("(s)"), std::string::npos) << run.err;
  run = run_cli({"stats", write("two-bad.json", text + "not a record\n")});
  EXPECT_NE(run.err.find(": 2 bad lines skipped (line 6: a second record at address 0x500 (an "
                         "earlier record has it); line 7: invalid JSON"),
            std::string::npos)
      << run.err;

  // An END record that announces one record, and one with one line before it.
  const std::string body = root("vm", {0x500}) + kFoo + record(0x500, "OBJECT", 0x300, {}, 40);
  run = run_cli({"stats", write("end1.json", body + "{\"type\":\"END\", \"records\":1}\n")});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("the END record announces 1 record but 3 lines precede it"),
            std::string::npos)
      << run.err;
  run = run_cli({"stats", write("end2.json", record(0x500, "OBJECT", 0x300, {}, 40) +
                                                 "{\"type\":\"END\", \"records\":3}\n")});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("the END record announces 3 records but 1 line precedes it"),
            std::string::npos)
      << run.err;
}

TEST_F(CliWording, TextOutputCountsOneAsOne) {
  const std::string dump =
      write("two.json",
            root("vm", {0x500, 0x600}) + kFoo + kBar + record(0x500, "OBJECT", 0x300, {}, 40) +
                record(0x600, "OBJECT", 0x310, {}, 40) + record(0x610, "OBJECT", 0x310, {}, 40));
  // Three classes (Bar, Foo and the class objects' "(no class)"): two listed, one more.
  auto run = run_cli({"--quiet", "stats", "--top", "2", dump});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("(1 more class; --top 0 lists all)"), std::string::npos) << run.out;
  run = run_cli({"--quiet", "retainers", dump, "Foo"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("Foo: 1 instance, 40 B\n"), std::string::npos) << run.out;
  run = run_cli({"--quiet", "retainers", dump, "Bar"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("Bar: 2 instances, 80 B\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("1 instance is not reachable"), std::string::npos) << run.out;
}

// An ObjectSpace dump of a running program: the Array written before the String pushed onto
// it, which is there with no referrer, and with a reference to an object allocated where the
// walk had been. The String may be alive: heapq never calls it garbage.
TEST_F(CliWording, UnreachableInADumpThatLacksObjectsIsNotCalledGarbage) {
  const std::string dump = write("running.json", root("vm", {0x500}) + kFoo +
                                                     record(0x500, "ARRAY", 0x300, {0x900}, 40) +
                                                     record(0x600, "OBJECT", 0x310, {}, 40) + kBar);
  auto run = run_cli({"retainers", dump, "Bar"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out.find("garbage"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("1 instance is not reachable from the roots (1 reference points to "
                         "objects"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.err.find(": 1 reference to addresses that are not in the dump ignored (ObjectSpace "
                         "wrote the dump while the program ran on): objects the roots do not "
                         "reach in it may be alive"),
            std::string::npos)
      << run.err;
  run = run_cli({"--format", "json", "dominators", dump});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find(R"("incomplete": true)"), std::string::npos) << run.out;
}

// Dumps given out of order by GC count: one GC run is one.
TEST_F(CliWording, OrderMessageCountsOneGcRun) {
  auto dump = [&](const char* name, int gc_count) {
    return write(name, R"({"type":"META", "pid":7, "gc_count":)" + std::to_string(gc_count) +
                           "}\n" + testing::kSmallDump);
  };
  const std::string early = dump("early.json", 1), late = dump("late.json", 2);
  auto run = run_cli({"--quiet", "diff", late, early});
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("(after 1 GC run, the other after 2)"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace heapq
