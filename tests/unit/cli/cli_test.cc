// The heapq command line: JSON output against schemas/, exit statuses, help.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/schema.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_run.h"
#include "main_help.h"
#include "schema_check.h"
#include "test_dumps.h"

namespace heapq {
namespace {

TEST(Schemas, RejectWhatTheyShould) {
  EXPECT_FALSE(valid("{}", "stats.schema.json"));
  EXPECT_FALSE(valid(R"({"input":{}, "objects":1, "bytes":1, "by_type":[], "by_class":[]})",
                     "stats.schema.json"));
  EXPECT_FALSE(valid(R"({"type":"OBJECT"})", "memprof-dump.schema.json"));
  EXPECT_TRUE(valid(R"({"type":"OBJECT", "address":"0x10", "reference_names":["@a", null]})",
                    "memprof-dump.schema.json"));
  EXPECT_TRUE(valid(R"({"type":"END", "records":3})", "memprof-dump.schema.json"));
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("heapq-cli-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    dump_ = (dir_ / "small.json").string();
    std::ofstream(dump_) << testing::kSmallDump;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs heapq; returns its exit status and keeps what it printed.
  int run(const std::vector<std::string>& args) {
    testing::CliRun r = testing::run_cli(args);
    out_ = std::move(r.out);
    err_ = std::move(r.err);
    return r.status;
  }

  std::filesystem::path dir_;
  std::string dump_, out_, err_;
};

TEST_F(Cli, StatsJsonMatchesItsSchema) {
  ASSERT_EQ(run({"--format", "json", "stats", dump_}), 0) << err_;
  expect_valid(out_, "stats.schema.json");
  rapidjson::Document d;
  d.Parse(out_.c_str());
  EXPECT_EQ(d["objects"].GetUint64(), 9u);
  EXPECT_EQ(d["input"]["format"].GetString(), std::string("objectspace"));
  // Global options also work after the command.
  ASSERT_EQ(run({"stats", dump_, "--format=json", "--top", "1"}), 0) << err_;
  d.Parse(out_.c_str());
  EXPECT_EQ(d["by_class"].Size(), 1u);
}

TEST_F(Cli, SitesJsonMatchesItsSchemaForEveryGrouping) {
  for (const char* by : {"site", "file", "method", "class", "gem"}) {
    ASSERT_EQ(run({"--format", "json", "sites", "--by", by, "--top", "0", dump_}), 0) << by << err_;
    expect_valid(out_, "sites.schema.json");
  }
}

TEST_F(Cli, RetentionCommandsMatchTheirSchemas) {
  ASSERT_EQ(run({"--format", "json", "dominators", dump_}), 0) << err_;
  expect_valid(out_, "dominators.schema.json");
  ASSERT_EQ(run({"--format", "json", "dominators", "--depth", "3", dump_}), 0) << err_;
  expect_valid(out_, "dominators.schema.json");
  ASSERT_EQ(run({"--format", "json", "retainers", "--referrers", dump_, "0x710"}), 0) << err_;
  expect_valid(out_, "retainers.schema.json");
  rapidjson::Document d;
  d.Parse(out_.c_str());
  ASSERT_EQ(d["paths"].Size(), 1u);
  EXPECT_EQ(d["paths"][0].Size(), 3u);  // Foo -> Hash -> String
  EXPECT_EQ(d["paths"][0][0]["root"].GetString(), std::string("vm"));
  ASSERT_EQ(run({"--format", "json", "retainers", "--referrers", dump_, "String"}), 0) << err_;
  expect_valid(out_, "retainers.schema.json");
  d.Parse(out_.c_str());
  EXPECT_EQ(d["target"]["instances"].GetUint(), 2u);
  EXPECT_EQ(d["groups"][0]["count"].GetUint(), 2u);
  ASSERT_EQ(run({"--format", "json", "stats", "--retained", dump_}), 0) << err_;
  expect_valid(out_, "stats.schema.json");
  ASSERT_EQ(run({"--format", "json", "sites", "--retained", dump_}), 0) << err_;
  expect_valid(out_, "sites.schema.json");

  ASSERT_EQ(run({"retainers", dump_, "0x600"}), 0);
  EXPECT_NE(out_.find("ROOT(vm) -> Foo -> Hash 0x600"), std::string::npos) << out_;
  EXPECT_EQ(run({"retainers", dump_, "0x12345"}), 1);
  EXPECT_EQ(run({"retainers", dump_, "NoSuchClass"}), 1);
  EXPECT_EQ(run({"retainers", dump_}), 1);
  for (const char* bad : {"0x-1", "0x0x600", "0x", "0x600 "}) {
    EXPECT_EQ(run({"retainers", dump_, bad}), 1) << bad;
    EXPECT_NE(err_.find("is not a hex address"), std::string::npos) << bad << err_;
  }
}

// One dump: a Hash of Strings, owned by a Store that two objects reference. The answer's path
// is the Hash's owners from the Store on, with the shortest path to the Store beside it; each
// String row shows one value, read again from the file.
TEST_F(Cli, LeaksShowTheOwnersPathAndASampleValue) {
  const std::string dump = (dir_ / "owned.json").string();
  std::ofstream out(dump);
  out << R"({"type":"ROOT", "root":"vm", "references":["0x100", "0x150"]})"
         "\n"
         R"({"address":"0x20", "type":"CLASS", "name":"Hash", "references":[], "memsize":0})"
         "\n"
         R"({"address":"0x30", "type":"CLASS", "name":"Store", "references":[], "memsize":0})"
         "\n"
         R"({"address":"0x60", "type":"CLASS", "name":"String", "references":[], "memsize":0})"
         "\n"
         R"({"address":"0x100", "type":"OBJECT", "class":"0x30", "references":["0x200"], "memsize":40})"
         "\n"
         R"({"address":"0x150", "type":"OBJECT", "class":"0x30", "references":["0x200"], "memsize":40})"
         "\n"
         R"({"address":"0x200", "type":"OBJECT", "class":"0x30", "references":["0x300"], "memsize":40})"
         "\n";
  std::string strings;
  for (int i = 0; i < 50; ++i) {
    char address[16];
    std::snprintf(address, sizeof address, "0x%x", 0x1000 + 0x28 * i);
    strings += std::string(i ? ", " : "") + "\"" + address + "\"";
    out << R"({"address":")" << address
        << R"(", "type":"STRING", "class":"0x60", "references":[], "value":"page \u001b[31m)" << i
        << R"(", "file":"app/cache.rb", "line":9, "method":"put", "memsize":10000})"
        << "\n";
  }
  out << R"({"address":"0x300", "type":"HASH", "class":"0x20", "references":[)" << strings
      << R"(], "memsize":400})"
      << "\n";
  out.close();
  ASSERT_EQ(run({"--format", "json", "leaks", dump}), 0) << err_;
  expect_valid(out_, "leaks.schema.json");
  rapidjson::Document d;
  d.Parse(out_.c_str());
  const auto& leak = d["leaks"][0];
  EXPECT_EQ(leak["holder"]["address"].GetString(), std::string("0x300"));
  EXPECT_EQ(leak["path_kind"].GetString(), std::string("owners"));
  ASSERT_EQ(leak["path"].Size(), 2u) << out_;
  EXPECT_EQ(leak["path"][0]["address"].GetString(), std::string("0x200"));
  EXPECT_TRUE(leak["path"][0]["root"].IsNull()) << "the owners' path starts at an object";
  ASSERT_TRUE(leak["owner_path"].IsArray()) << out_;
  EXPECT_EQ(leak["owner_path"][leak["owner_path"].Size() - 1]["address"].GetString(),
            std::string("0x200"));
  EXPECT_EQ(leak["holds"][0]["sample"].GetString(), std::string("page \x1b[31m0"));
  ASSERT_EQ(run({"leaks", dump}), 0) << err_;
  EXPECT_NE(out_.find("   owned by: Store -> Hash 0x300\n"
                      "   which several paths reach; the shortest:\n"
                      "     ROOT(vm) -> Store -> Store 0x200\n"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find(R"(e.g. "page \e[31m0")"), std::string::npos) << "escaped\n" << out_;
}

// One dump, a String holding 5 MB itself: it is its own accumulation point, and the text
// says so rather than "held by String ..., which holds all of them" (itself).
TEST_F(Cli, LeaksOnOneDumpNamesABigObjectItself) {
  const std::string dump = (dir_ / "big_string.json").string();
  std::ofstream(dump)
      << R"({"type":"ROOT", "root":"vm", "references":["0x200"]})"
         "\n"
         R"({"address":"0x40", "type":"CLASS", "name":"Array", "references":[], "memsize":100})"
         "\n"
         R"({"address":"0x60", "type":"CLASS", "name":"String", "references":[], "memsize":100})"
         "\n"
         R"({"address":"0x200", "type":"ARRAY", "class":"0x40", "references":["0x210"], "memsize":80})"
         "\n"
         R"({"address":"0x210", "type":"STRING", "class":"0x60", "references":[], "file":"app/log.rb", "line":7, "method":"read", "memsize":5000000})"
         "\n";
  ASSERT_EQ(run({"leaks", dump}), 0) << err_;
  EXPECT_NE(out_.find("1. String 0x210\n"
                      "   allocated at app/log.rb:7 in read\n"
                      "   owned by: ROOT(vm) -> Array -> String 0x210\n"
                      "   its memory is its own, not its children's: 4.77 MiB\n"),
            std::string::npos)
      << out_;
  EXPECT_EQ(out_.find("allocated at app/log.rb:7 in read\n   1 allocated"), std::string::npos)
      << "the site once";
}

TEST_F(Cli, LeaksJsonMatchesItsSchema) {
  ASSERT_EQ(run({"--format", "json", "leaks", dump_, dump_}), 0) << err_;
  expect_valid(out_, "leaks.schema.json");
  rapidjson::Document d;
  d.Parse(out_.c_str());
  EXPECT_EQ(d["leaks"].Size(), 0u) << "a dump does not grow against itself";
  EXPECT_EQ(d["inputs"].Size(), 2u);
  EXPECT_EQ(d["born"].GetUint64(), 0u);
  ASSERT_EQ(run({"--format", "json", "leaks", "--threshold", "1", dump_}), 0) << err_;
  expect_valid(out_, "leaks.schema.json");
  d.Parse(out_.c_str());
  ASSERT_GE(d["leaks"].Size(), 1u);
  // The biggest retainer is the String class with its singleton class; its path ends at it.
  const auto& top = d["leaks"][0];
  EXPECT_EQ(top["holder"]["address"].GetString(), std::string("0x100")) << out_;
  EXPECT_EQ(top["path"][top["path"].Size() - 1]["address"], top["holder"]["address"]);
  EXPECT_EQ(run({"leaks", "--threshold", "0", dump_}), 1);
  EXPECT_EQ(run({"leaks"}), 1);
}

TEST_F(Cli, DiffJsonMatchesItsSchema) {
  ASSERT_EQ(run({"--format", "json", "diff", "--by", "gem", dump_, dump_}), 0) << err_;
  expect_valid(out_, "diff.schema.json");
  rapidjson::Document d;
  d.Parse(out_.c_str());
  EXPECT_EQ(d["born"].GetUint64(), 0u);
  EXPECT_EQ(d["freed"].GetUint64(), 0u);
  EXPECT_EQ(d["by_class"].Size(), 0u) << "nothing changed";
  EXPECT_STREQ(d["matched_by"].GetString(), "generation");
  ASSERT_EQ(run({"diff", dump_, dump_}), 0) << err_;
  EXPECT_NE(out_.find("0 born, 0 freed"), std::string::npos) << out_;
  EXPECT_EQ(run({"diff", dump_}), 1);
  EXPECT_EQ(run({"diff", "--by", "file", dump_, dump_}), 1);
}

TEST_F(Cli, RetainersPathsZeroMeansAll) {
  ASSERT_EQ(run({"--format", "json", "retainers", "--paths", "1", dump_, "String"}), 0) << err_;
  rapidjson::Document d;
  d.Parse(out_.c_str());
  const rapidjson::SizeType one = d["groups"].Size();
  ASSERT_EQ(run({"--format", "json", "retainers", "--paths", "0", dump_, "String"}), 0) << err_;
  d.Parse(out_.c_str());
  EXPECT_EQ(one, 1u);
  EXPECT_GE(d["groups"].Size(), one);
  uint64_t counted = 0;
  for (const auto& g : d["groups"].GetArray()) counted += g["count"].GetUint64();
  EXPECT_EQ(counted + d["unreachable"].GetUint64(), d["target"]["instances"].GetUint64());
}

// Times with different UTC offsets are compared as instants; a dump whose META says nothing of
// its time or process is taken as given.
TEST_F(Cli, DumpsOverTimeAreOrderedByTheInstantTheirMetaNames) {
  auto dump = [&](const char* name, const std::string& meta) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << meta << "\n" << testing::kSmallDump;
    return path;
  };
  const std::string head = R"({"type":"META", "format":"objectspace-like", "pid":7, )";
  const std::string early =
      dump("early.json", head + R"("time":"2026-01-01T10:00:00+02:00", "gc_count":9})");
  const std::string late =
      dump("late.json", head + R"("time":"2026-01-01T09:30:00Z", "gc_count":3})");
  const std::string silent = dump("silent.json", R"({"type":"META", "format":"objectspace-like"})");
  const std::string other =
      dump("other.json", R"({"type":"META", "pid":8, "time":"2027-01-01T00:00:00+00:00"})");
  EXPECT_EQ(run({"diff", early, late}), 0) << err_;
  EXPECT_EQ(err_.find("in the order they were written"), std::string::npos) << err_;
  // Given newest first, they are taken oldest first, and heapq says so.
  EXPECT_EQ(run({"diff", late, early}), 0) << err_;
  EXPECT_NE(err_.find("in the order they were written (their META time), not as given: " + early +
                      ", " + late),
            std::string::npos)
      << err_;
  // Taken as given (--as-given), or where a dump that does not say stands between them, the
  // order is checked.
  EXPECT_EQ(run({"diff", "--as-given", late, early}), 0) << err_;
  EXPECT_EQ(run({"diff", late, silent}), 0) << err_;
  EXPECT_EQ(run({"leaks", silent, late, early}), 1) << "the dumps that say are out of order";
  EXPECT_NE(
      err_.find("late.json (at 2026-01-01T10:00:00+02:00, the other at 2026-01-01T09:30:00Z)"),
      std::string::npos)
      << err_;
  EXPECT_EQ(run({"leaks", late, silent, early}), 1) << "a dump that does not say hides nothing";
  // diff compares two dumps of one process; leaks takes each process on its own.
  EXPECT_EQ(run({"diff", early, other}), 1);
  EXPECT_NE(err_.find("the dumps are of 2 processes (process 7: " + early +
                      "; process 8: " + other + ")"),
            std::string::npos)
      << err_;
  EXPECT_EQ(run({"leaks", early, other}), 0) << err_;
  EXPECT_NE(out_.find("The dumps are of 2 processes"), std::string::npos) << out_;
  EXPECT_LT(out_.find("== process 7 =="), out_.find("== process 8 ==")) << out_;
  EXPECT_EQ(run({"leaks", early, silent, other}), 1) << "which process is silent of?";
  EXPECT_NE(err_.find(silent + " does not say which process it is of"), std::string::npos) << err_;
  EXPECT_EQ(run({"leaks", "--as-given", early, other}), 0) << err_;
  EXPECT_EQ(out_.find("== process"), std::string::npos) << out_;
}

// Counts of one read as one: "1 object", "1 group ... is growing", "holds 1 of them".
TEST_F(Cli, CountsOfOneAreSingular) {
  using testing::record;
  using testing::root;
  const std::string classes =
      R"({"address":"0x20", "type":"CLASS", "name":"Hash", "references":[], "memsize":0})"
      "\n"
      R"({"address":"0x30", "type":"CLASS", "name":"Item", "references":[], "memsize":0})"
      "\n";
  auto write = [&](const char* name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  };
  const std::string before = write("before.json", classes + root("vm", {0x200, 0x300}) +
                                                      record(0x200, "HASH", 0x20, {}, 40) +
                                                      record(0x300, "HASH", 0x20, {}, 40));
  // One Item born, then two, each in a Hash of its own: no holder holds more than one.
  const std::string one = write(
      "one.json", classes + root("vm", {0x200, 0x300}) + record(0x200, "HASH", 0x20, {0x400}, 40) +
                      record(0x300, "HASH", 0x20, {}, 40) + record(0x400, "OBJECT", 0x30, {}, 40));
  const std::string two =
      write("two.json",
            classes + root("vm", {0x200, 0x300}) + record(0x200, "HASH", 0x20, {0x400}, 40) +
                record(0x300, "HASH", 0x20, {0x500}, 40) + record(0x400, "OBJECT", 0x30, {}, 40) +
                record(0x500, "OBJECT", 0x30, {}, 40));
  ASSERT_EQ(run({"--quiet", "leaks", "--min-growth", "1", before, one}), 0) << err_;
  EXPECT_NE(out_.find("1 object of the last was born after the first.\n1 group (class, allocation "
                      "site) gained 1 or more, 1 still growing: 1 leak."),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("\n   1 object born after the first dump: "), std::string::npos) << out_;
  ASSERT_EQ(run({"--quiet", "leaks", "--min-growth", "1", before, two}), 0) << err_;
  EXPECT_NE(out_.find("\n   the holder holds 1 of them\n"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("of of"), std::string::npos) << out_;
  ASSERT_EQ(run({"--quiet", "viz", one, "Item"}), 0) << err_;
  EXPECT_NE(out_.find("Item: 1 object, 40 B"), std::string::npos) << out_;
  EXPECT_NE(out_.find("1 target ends here"), std::string::npos) << out_;
  ASSERT_EQ(run({"--quiet", "viz", "--dominators", one}), 0) << err_;
  EXPECT_NE(out_.find("1 object retained"), std::string::npos) << out_;
  const std::string html = (dir_ / "one.html").string();
  ASSERT_EQ(run({"--quiet", "report", "-o", html, "--as-given", before, one}), 0) << err_;
  std::stringstream page;
  page << std::ifstream(html).rdbuf();
  EXPECT_NE(page.str().find("1 object of the last dump was born after the first; "),
            std::string::npos);
  for (const char* wrong : {"1 objects", "1 groups", "1 targets", "of of"})
    EXPECT_EQ(page.str().find(wrong), std::string::npos) << wrong;
}

// CSV is data, yet read on terminals: control characters of values are escaped as in text.
TEST_F(Cli, CsvEscapesControlCharacters) {
  const std::string store = (dir_ / "small.db").string();
  ASSERT_EQ(run({"--quiet", "load", dump_, "-o", store}), 0) << err_;
  ASSERT_EQ(run({"--format", "csv", "sql", store,
                 "SELECT char(27) || '[2J' AS clear, 'a' || char(10) || 'b,c' AS lines, '\"q\"' AS "
                 "quote"}),
            0)
      << err_;
  EXPECT_EQ(out_, "clear,lines,quote\r\n\\e[2J,\"a\\nb,c\",\"\"\"q\"\"\"\r\n");
}

TEST_F(Cli, SmallOnesOfUse) {
  // An option with a value, given twice: which one was meant is not guessed.
  EXPECT_EQ(run({"stats", "--top", "1", "--top", "2", dump_}), 1);
  EXPECT_NE(err_.find("option --top is given twice (\"1\" and \"2\"): give it once"),
            std::string::npos)
      << err_;
  EXPECT_EQ(run({"viz", "-o", (dir_ / "a.svg").string(), "-o=" + (dir_ / "b.svg").string(), dump_,
                 "Foo"}),
            1);
  EXPECT_NE(err_.find("option -o is given twice"), std::string::npos) << err_;
  EXPECT_EQ(run({"--quiet", "stats", "--quiet", dump_}), 0) << "a flag twice is the flag: " << err_;

  // A dump without ROOT records says so: every object is unreachable in it.
  const std::string rootless = (dir_ / "rootless.json").string();
  const std::string dangling_roots = (dir_ / "dangling-roots.json").string();
  {
    std::string text = testing::kSmallDump;
    std::ofstream(rootless) << text.substr(text.find('\n') + 1);
    std::ofstream(dangling_roots) << testing::root("vm", {0x999})
                                  << text.substr(text.find('\n') + 1);
  }
  ASSERT_EQ(run({"stats", rootless}), 0) << err_;
  EXPECT_NE(err_.find("rootless.json: no GC roots (ROOT records) in the dump"), std::string::npos)
      << err_;
  // ROOT records that lead out of the dump leave nothing reachable either.
  ASSERT_EQ(run({"stats", dangling_roots}), 0) << err_;
  EXPECT_NE(
      err_.find("dangling-roots.json: no GC root (ROOT record) references an object of the dump: "
                "nothing is reachable"),
      std::string::npos)
      << err_;
  ASSERT_EQ(run({"stats", dump_}), 0) << err_;
  EXPECT_EQ(err_.find("no GC roots"), std::string::npos) << err_;

  // Without graphviz, the report says to install it and suggests no option it does not have.
  const std::string empty_dir = (dir_ / "no-programs").string();
  std::filesystem::create_directories(empty_dir);
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", empty_dir.c_str(), 1);
  const std::string html = (dir_ / "report.html").string();
  const int report = run({"--quiet", "report", "-o", html, dump_});
  const int viz = run({"--quiet", "viz", "--format", "svg", dump_, "Foo"});
  const std::string viz_err = err_;
  ::setenv("PATH", path.c_str(), 1);
  ASSERT_EQ(report, 0) << err_;
  std::stringstream page;
  page << std::ifstream(html).rdbuf();
  EXPECT_NE(page.str().find("install graphviz (apt-get install graphviz))"), std::string::npos);
  EXPECT_EQ(page.str().find("--format dot"), std::string::npos);
  EXPECT_EQ(viz, 3);
  EXPECT_NE(viz_err.find("install graphviz (apt-get install graphviz), or use --format dot"),
            std::string::npos)
      << viz_err;
}

TEST_F(Cli, TextOutput) {
  ASSERT_EQ(run({"stats", dump_}), 0);
  EXPECT_NE(out_.find("9 objects"), std::string::npos) << out_;
  EXPECT_NE(out_.find("String"), std::string::npos);
  ASSERT_EQ(run({"sites", dump_}), 0);
  EXPECT_NE(out_.find("  rack-2.2.3/lib/rack.rb:9  "), std::string::npos) << out_;
}

TEST_F(Cli, ExitStatuses) {
  EXPECT_EQ(run({}), 1);
  EXPECT_EQ(run({"frobnicate"}), 1);
  EXPECT_NE(err_.find("unknown command"), std::string::npos);
  EXPECT_EQ(run({"stats"}), 1);
  EXPECT_EQ(run({"stats", dump_, "--top", "many"}), 1);
  EXPECT_EQ(run({"sites", "--by", "planet", dump_}), 1);
  EXPECT_EQ(run({"--format", "xml", "stats", dump_}), 1);
  EXPECT_EQ(run({"--format", "csv", "stats", dump_}), 1);  // csv is heapq sql's alone
  EXPECT_NE(err_.find("--format csv is for heapq sql"), std::string::npos) << err_;
  EXPECT_EQ(run({"stats", (dir_ / "missing.json").string()}), 3);
  EXPECT_NE(err_.find("missing.json: cannot open"), std::string::npos) << err_;

  std::string broken = (dir_ / "broken.json").string();
  std::ofstream(broken) << testing::kSmallDump << "{\"address\":\n";
  EXPECT_EQ(run({"stats", broken}), 0);
  EXPECT_NE(err_.find("1 bad line skipped (line 11:"), std::string::npos) << err_;
  EXPECT_EQ(run({"--quiet", "stats", broken}), 0);
  EXPECT_EQ(err_, "");
  EXPECT_EQ(run({"--strict", "stats", broken}), 2);
  EXPECT_EQ(err_.rfind("heapq: " + broken + ":11: ", 0), 0u) << err_;
}

TEST_F(Cli, Help) {
  EXPECT_EQ(run({"--help"}), 0);
  EXPECT_NE(out_.find("commands:"), std::string::npos);
  EXPECT_NE(out_.find("sites"), std::string::npos);
  EXPECT_EQ(run({"sites", "--help"}), 0);
  EXPECT_NE(out_.find("usage: heapq sites"), std::string::npos);
  EXPECT_NE(out_.find("--by GROUP"), std::string::npos);
  EXPECT_EQ(run({"help", "stats"}), 0);
  EXPECT_NE(out_.find("usage: heapq stats"), std::string::npos);
  EXPECT_EQ(run({"--version"}), 0);
  EXPECT_EQ(out_.rfind("heapq ", 0), 0u);
  // After a command too, as --help is: it ran the command, with X as its input.
  const std::string version = out_;
  EXPECT_EQ(run({"stats", "--version", "X"}), 0);
  EXPECT_EQ(out_, version);
  EXPECT_EQ(err_, "");
}

}  // namespace
}  // namespace heapq
