// Files heapq writes: never through a link planted beside them, never over one of its inputs.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_run.h"
#include "heapq/base/temp_file.h"
#include "heapq/store/store.h"
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

bool is_link(const std::filesystem::path& p) {
  return std::filesystem::is_symlink(std::filesystem::symlink_status(p));
}

// /dev/stdout is a link to /proc/self/fd/1: the output goes to the descriptor, and no link on
// the way is replaced. (The machine's own /dev/stdout is left alone: links of the test's own
// stand for it.)
TEST_F(OutputSafety, AnOutputThatIsOneOfHeapqsDescriptorsIsWrittenThroughIt) {
  auto direct = run_cli({"--quiet", "viz", "-o", "/proc/self/fd/1", dump_, "String"});
  EXPECT_EQ(direct.status, 0) << direct.err;
  EXPECT_NE(direct.out.find("digraph"), std::string::npos);

  const auto stdout_link = dir_ / "stdout";
  std::filesystem::create_symlink("/proc/self/fd/1", stdout_link);
  auto linked = run_cli({"--quiet", "viz", "-o", stdout_link.string(), dump_, "String"});
  EXPECT_EQ(linked.status, 0) << linked.err;
  EXPECT_NE(linked.out.find("digraph"), std::string::npos);
  EXPECT_TRUE(is_link(stdout_link));
  EXPECT_EQ(std::filesystem::read_symlink(stdout_link), "/proc/self/fd/1");

  // A shell's `>> log`: appended to, as the descriptor is open, not replaced.
  const auto log = dir_ / "log";
  std::ofstream(log) << "kept\n";
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  struct stat before, after;
  ASSERT_EQ(::fstat(fd, &before), 0);
  auto appended =
      run_cli({"--quiet", "viz", "-o", "/dev/fd/" + std::to_string(fd), dump_, "String"});
  ::close(fd);
  EXPECT_EQ(appended.status, 0) << appended.err;
  const std::string text = read_file(log);
  EXPECT_TRUE(text.starts_with("kept\ndigraph")) << text.substr(0, 40);
  ASSERT_EQ(::stat(log.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino) << "the file was replaced";
}

TEST_F(OutputSafety, ALinkIsFollowedToItsFileNeverReplaced) {
  const auto target = dir_ / "target.dot", link = dir_ / "link.dot", chain = dir_ / "chain.dot";
  std::ofstream(target) << "old";
  std::filesystem::create_symlink("target.dot", link);
  std::filesystem::create_symlink(link, chain);
  for (const auto& out : {link, chain}) {
    std::ofstream(target) << "old";
    ASSERT_EQ(run_cli({"--quiet", "viz", "-o", out.string(), dump_, "String"}).status, 0) << out;
    EXPECT_TRUE(is_link(out)) << out;
    EXPECT_NE(read_file(target).find("digraph"), std::string::npos) << out;
  }
  EXPECT_TRUE(is_link(link));
  for (const auto& entry : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();

  // A link to a device or a FIFO: written in place through it.
  const auto null_link = dir_ / "null";
  std::filesystem::create_symlink("/dev/null", null_link);
  EXPECT_EQ(run_cli({"--quiet", "viz", "-o", null_link.string(), dump_, "String"}).status, 0);
  EXPECT_TRUE(is_link(null_link));
  const auto fifo = dir_ / "fifo", fifo_link = dir_ / "fifo-link";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::create_symlink(fifo, fifo_link);
  std::string piped;
  std::thread reader([&] { piped = read_file(fifo); });
  EXPECT_EQ(run_cli({"--quiet", "viz", "-o", fifo_link.string(), dump_, "String"}).status, 0);
  reader.join();
  EXPECT_NE(piped.find("digraph"), std::string::npos);
  EXPECT_TRUE(is_link(fifo_link));
}

// A store named by a link is written to the file the link names, and the link stays: whether
// the store is new (the link dangles until then), replaced (--force) or added to (--append).
// What is not a file (a device) cannot hold a store: refused, the link left alone.
TEST_F(OutputSafety, AStoreThroughALinkIsWrittenToItsFileNeverOverTheLink) {
  const auto target = dir_ / "real.db", link = dir_ / "link.db";
  std::filesystem::create_symlink("real.db", link);
  for (const char* how : {"", "--force", "--append"}) {
    std::vector<std::string> args = {"--quiet", "load", "-o", link.string(), dump_};
    if (*how) args.insert(args.begin() + 2, how);
    const auto load = run_cli(args);
    ASSERT_EQ(load.status, 0) << how << ": " << load.err;
    EXPECT_TRUE(is_link(link)) << how;
    EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::symlink_status(target))) << how;
  }
  auto stored = list_stored_dumps(target.string());
  ASSERT_TRUE(stored.ok()) << stored.error().message;
  EXPECT_EQ(stored->size(), 2u);  // the one --force wrote, and the one appended
  for (const auto& entry : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();

  const auto null_link = dir_ / "null.db";
  std::filesystem::create_symlink("/dev/null", null_link);
  const auto load = run_cli({"--quiet", "load", "--force", "-o", null_link.string(), dump_});
  EXPECT_NE(load.status, 0);
  auto writer = StoreWriter::create(null_link.string());
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.error().message.find("not a regular file"), std::string::npos)
      << writer.error().message;
  EXPECT_TRUE(is_link(null_link));
  EXPECT_EQ(std::filesystem::read_symlink(null_link), "/dev/null");
}

// What the kernel's protected_symlinks refuses to follow, heapq refuses too: a link another
// user made in a sticky, world-writable directory such as /tmp.
TEST_F(OutputSafety, ALinkAnotherUserPlantedInASharedDirectoryIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "making a link of another user takes root";
  const auto shared = dir_ / "shared";
  std::filesystem::create_directory(shared);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  const auto planted = shared / "out.dot";
  std::filesystem::create_symlink(victim_, planted);
  ASSERT_EQ(::lchown(planted.c_str(), 4242, 4242), 0);
  auto viz = run_cli({"--quiet", "viz", "-o", planted.string(), dump_, "String"});
  EXPECT_EQ(viz.status, 3);
  EXPECT_NE(viz.err.find("not followed"), std::string::npos) << viz.err;
  EXPECT_EQ(read_file(victim_), "keep me");
  EXPECT_TRUE(is_link(planted));
}

}  // namespace
}  // namespace heapq
