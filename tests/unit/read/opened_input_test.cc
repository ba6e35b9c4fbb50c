// OpenedInput: one open, a peek at the first line, then the content from its start, gzip'd or
// not; a regular file as often as asked through its one descriptor, a pipe once.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "heapq/read/byte_source.h"
#include "test_dumps.h"

namespace heapq {
namespace {

using testing::gzip;

const std::string kText = "{\"type\":\"META\"}\n{\"address\":\"0x1\"}\n";

std::string read_all(ByteSource& in) {
  std::string out;
  char buf[7];  // small: reads cross the bytes peeked at
  for (;;) {
    auto n = in.read(buf, sizeof buf);
    if (!n || *n == 0) return out;
    out.append(buf, *n);
  }
}

TEST(OpenedInput, RegularFileReadAgainFromItsStart) {
  for (const std::string& bytes : {kText, gzip(kText)}) {
    const auto path = std::filesystem::temp_directory_path() / "heapq-opened-input.json";
    std::ofstream(path, std::ios::binary) << bytes;
    auto in = OpenedInput::open(path.string());
    ASSERT_TRUE(in.ok());
    std::filesystem::remove(path);  // the descriptor is all it reads from
    EXPECT_TRUE(in->regular());
    EXPECT_EQ(in->raw_head(2), bytes.substr(0, 2));
    EXPECT_EQ(in->peek(1 << 10)->first_line, "{\"type\":\"META\"}");
    for (int twice = 0; twice < 2; ++twice) EXPECT_EQ(read_all(**in->content()), kText);
  }
}

TEST(OpenedInput, PipeReadOnceWithTheBytesPeekedAt) {
  for (const std::string& bytes : {kText, gzip(kText)}) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    std::thread writer([&] {
      (void)!::write(fds[1], bytes.data(), bytes.size());
      ::close(fds[1]);
    });
    auto in = OpenedInput::open("/dev/fd/" + std::to_string(fds[0]));
    ASSERT_TRUE(in.ok());
    EXPECT_FALSE(in->regular());
    EXPECT_EQ(in->raw_head(2), "");
    EXPECT_EQ(in->peek(1 << 10)->first_line, "{\"type\":\"META\"}");
    EXPECT_EQ(read_all(**in->content()), kText);
    EXPECT_FALSE(in->content().ok());  // read already
    writer.join();
    ::close(fds[0]);
  }
}

}  // namespace
}  // namespace heapq
