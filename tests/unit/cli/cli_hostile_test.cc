// The command line on arguments and inputs a careless user or an attacker gives it: every
// one ends with an exit status and a message, never a crash.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "heapq/render/terminal_text.h"
#include "main_help.h"
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
    out << R"({"type":"ROOT", "root":"vm", "references":["0x1000"]})"
           "\n";
    for (int i = 0; i < kDepth; ++i) {
      char line[160];
      std::snprintf(line, sizeof line,
                    R"({"address":"0x%x", "type":"OBJECT", "references":[%s%x%s], "memsize":40})"
                    "\n",
                    0x1000 + 16 * i, i + 1 < kDepth ? "\"0x" : "",
                    i + 1 < kDepth ? 0x1000 + 16 * (i + 1) : 0, i + 1 < kDepth ? "\"" : "");
      out << (i + 1 < kDepth ? line
                             : std::string(R"({"address":")") +
                                   [&] {
                                     char a[16];
                                     std::snprintf(a, sizeof a, "0x%x", 0x1000 + 16 * i);
                                     return std::string(a);
                                   }() +
                                   R"(", "type":"OBJECT", "references":[], "memsize":40})"
                                   "\n");
    }
  }
  auto text = run_cli({"--quiet", "dominators", "--depth", "100000", chain});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_LT(text.out.size(), size_t(kDepth) * 120);
  EXPECT_NE(text.out.find("[20000] 40 B in 1 object: "), std::string::npos)
      << text.out.substr(text.out.size() - 300);
  auto json = run_cli({"--quiet", "--format", "json", "dominators", "--depth", "100000", chain});
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_LT(json.out.size(), size_t(kDepth) * 250);
}

TEST_F(CliHostile, SmallOnes) {
  // Addresses are hex digits after one 0x: no sign, no second prefix.
  for (const char* spec : {"0x-1", "0x0x7f", "0x", "0x+10", "0x 10"}) {
    auto r = run_cli({"retainers", dump_, spec});
    EXPECT_EQ(r.status, 1) << spec;
    EXPECT_NE(r.err.find("is not a hex address"), std::string::npos) << spec << ": " << r.err;
  }
  // Every command name stands apart from its summary.
  auto help = run_cli({"--help"});
  EXPECT_NE(help.out.find("  dominators  "), std::string::npos) << help.out;
  // A store that is not there is an I/O error, for sql as for the other commands.
  EXPECT_EQ(run_cli({"sql", (dir_ / "absent.db").string(), "SELECT 1"}).status, 3);
  EXPECT_EQ(run_cli({"stats", (dir_ / "absent.db").string()}).status, 3);
  // Dumps in a store are numbered from 1: #0 is refused, not taken for the last one; the text
  // header names the dump it read.
  const std::string store = (dir_ / "s.db").string();
  ASSERT_EQ(run_cli({"--quiet", "load", "-o", store, dump_, dump_}).status, 0);
  auto zero = run_cli({"stats", store + "#0"});
  EXPECT_EQ(zero.status, 1);
  EXPECT_NE(zero.err.find("numbered from 1"), std::string::npos) << zero.err;
  auto last = run_cli({"stats", store});
  EXPECT_EQ(last.status, 0);
  EXPECT_EQ(last.out.rfind(store + "#2: ", 0), 0u) << last.out;
  // SQL may start with a comment, and PRAGMAs that only ask run on a read-only store.
  auto commented = run_cli({"sql", store, "-- how many\nSELECT count(*) AS n FROM dumps"});
  EXPECT_EQ(commented.status, 0) << commented.err;
  EXPECT_NE(commented.out.find("2"), std::string::npos);
  EXPECT_EQ(run_cli({"sql", store, "PRAGMA journal_mode"}).status, 0);
  EXPECT_EQ(run_cli({"sql", store, "PRAGMA journal_mode = WAL"}).status, 1);
}

// Totals of sizes a dump claims stop at 2^64 - 1 instead of wrapping around to small numbers.
TEST_F(CliHostile, MemsizeTotalsDoNotWrap) {
  std::string dump = (dir_ / "huge.json").string();
  std::ofstream(dump)
      << R"({"type":"ROOT", "root":"vm", "references":["0x100"]})"
         "\n"
      << R"({"address":"0x100", "type":"STRING", "references":["0x200"], "memsize":18446744073709551615})"
         "\n"
      << R"({"address":"0x200", "type":"STRING", "memsize":9223372036854775808})"
         "\n";
  auto stats = run_cli({"--format", "json", "stats", "--retained", dump});
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_NE(stats.out.find("\"bytes\": 18446744073709551615"), std::string::npos) << stats.out;
  EXPECT_EQ(stats.out.find("\"bytes\": 9223372036854775807"), std::string::npos) << stats.out;
  auto dominators = run_cli({"--format", "json", "dominators", dump});
  EXPECT_NE(dominators.out.find("\"retained_bytes\": 18446744073709551615"), std::string::npos)
      << dominators.out;
}

TEST(TerminalText, EscapesControlsAndCutsCells) {
  using render::escape_controls;
  EXPECT_EQ(escape_controls("Foo::Bar"), "Foo::Bar");
  EXPECT_EQ(escape_controls("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 is kept
  EXPECT_EQ(escape_controls("\x1b]0;owned\x07"), "\\e]0;owned\\x07");
  EXPECT_EQ(escape_controls("a\nb\tc\x7f"), "a\\nb\\tc\\x7f");
  EXPECT_EQ(escape_controls("\xc2\x9b"
                            "2J"),
            "\\u009b2J");  // C1 CSI
  EXPECT_EQ(escape_controls("\xe2\x80\xae"
                            "txt"),
            "\\u202etxt");                               // right-to-left override
  EXPECT_EQ(escape_controls("\xff\xc3"), "\\xff\\xc3");  // not UTF-8
  EXPECT_EQ(escape_controls("A\\x00B"), "A\\\\x00B");    // the escape character escaped in turn
  // Text made of escaped pieces: what is left is escaped, the pieces' backslashes kept.
  EXPECT_EQ(render::escape_stray_controls("a\x1b[2J\nb\\x00\n", true), "a\\e[2J\nb\\x00\n");
  EXPECT_EQ(render::escape_stray_controls("a\nb"), "a\\nb");
  EXPECT_EQ(render::fit_width("abcdefghij", 5), "\u2026ghij");
  EXPECT_EQ(render::fit_width("abcdefghijklmnopqrstuvwxyz", 21), "abcde\u2026lmnopqrstuvwxyz");
  EXPECT_EQ(render::fit_width("abc", 5), "abc");
  EXPECT_EQ(render::display_width(render::fit_width(std::string(100, 'x') + "\xc3\xa9\xc3\xa9", 7)),
            7u);
}

// Dump strings reach the terminal: a class name that retitles or clears it is shown, not run;
// one huge class name does not pad every row of the table.
TEST_F(CliHostile, DumpStringsCannotDriveTheTerminal) {
  std::string dump = (dir_ / "evil.json").string();
  std::ofstream(dump)
      << R"({"type":"ROOT", "root":"vm", "references":["0x500", "0x600"]})"
         "\n"
      << R"({"address":"0x300", "type":"CLASS", "name":"Evil\n\u001b]0;owned\u0007\u001b[2J", "references":[], "memsize":60})"
         "\n"
      << R"({"address":"0x310", "type":"CLASS", "name":")" << std::string(1 << 20, 'N')
      << R"(", "references":[], "memsize":60})"
         "\n"
      << R"({"address":"0x500", "type":"OBJECT", "class":"0x300", "references":[], "file":"a\u001b[31m.rb", "line":1, "memsize":40})"
         "\n"
      << R"({"address":"0x600", "type":"OBJECT", "class":"0x310", "references":[], "memsize":40})"
         "\n";
  for (std::vector<std::string> args : {std::vector<std::string>{"stats", "--top", "0", dump},
                                        {"sites", "--by", "file", dump},
                                        {"dominators", dump},
                                        {"retainers", dump, "0x500"},
                                        {"dominators", "--depth", "3", dump},
                                        {"retainers", dump, "0x600"},
                                        {"leaks", "--threshold", "1", dump},
                                        {"leaks", "--min-growth", "0", dump, dump},
                                        {"diff", dump, dump}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.status, 0) << args[0] << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << args[0] << ": " << r.out;
    EXPECT_EQ(r.out.find('\x07'), std::string::npos) << args[0];
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << args[0];
    EXPECT_LT(r.out.size(), 20000u) << args[0] << " " << args[1] << ": a huge name is cut";
    EXPECT_EQ(r.out.find("Evil\n"), std::string::npos)
        << args[0] << ": a raw newline starts no line";
    if (args[0] == "stats") {
      EXPECT_NE(r.out.find("Evil\\n\\e]0;owned\\x07\\e[2J"), std::string::npos) << r.out;
      EXPECT_LT(r.out.size(), 4000u);
    }
  }
}

// AddressSanitizer's allocator aborts when memory runs out, as it is built to (a limit on the
// address space is for heapq's own allocator): the tests of that limit are skipped under it.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
constexpr bool kAddressSanitizer = __has_feature(address_sanitizer);
#else
constexpr bool kAddressSanitizer = false;
#endif

// heapq stats on path, this process limited to `mib` MiB more address space than it has.
int run_with_little_memory(const std::string& path, size_t mib, const char* threads,
                           const char* max_line) {
  size_t pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  const rlim_t limit = pages * ::sysconf(_SC_PAGESIZE) + (rlim_t{mib} << 20);
  struct rlimit as;
  as.rlim_cur = as.rlim_max = limit;
  ::setrlimit(RLIMIT_AS, &as);
  return cli::run_heapq({"--quiet", "--threads", threads, "stats", "--max-line", max_line, path});
}

// Memory that runs out is an error like any other: exit 3 and a message, never an abort. The
// process is limited to a little more address space than it has; one line of a dump (a
// sparse file: it costs no disk) asks for more.
TEST_F(CliHostile, OutOfMemoryIsAnErrorNotAnAbort) {
  if (kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer's allocator aborts when out of memory";
  const std::string huge = (dir_ / "huge.json").string();
  std::ofstream(huge) << "{\"address\":\"0x10\", \"value\":\"";
  std::filesystem::resize_file(huge, uint64_t{1} << 30);
  EXPECT_EXIT(std::_Exit(run_with_little_memory(huge, 256, "2", "2048")),
              ::testing::ExitedWithCode(3), "out of memory");
}

// A line over --max-line is refused after about that much memory, not twice it (the buffer
// copied into a bigger one as it grew): 64 MiB of line in 84 MiB.
TEST_F(CliHostile, MaxLineCostsAboutItsValue) {
  if (kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer's allocator aborts when out of memory";
  const std::string line = (dir_ / "line.json").string();
  std::ofstream(line) << "{\"address\":\"0x10\", \"value\":\"";
  std::filesystem::resize_file(line, 100 << 20);
  EXPECT_EXIT(std::_Exit(run_with_little_memory(line, 84, "1", "64")), ::testing::ExitedWithCode(2),
              "a line longer than 67108864 bytes");
}

}  // namespace
}  // namespace heapq
