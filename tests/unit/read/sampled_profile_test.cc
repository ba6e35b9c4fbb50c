// Sampled-heap profiles read back: memprof's own, hand-made ones in every shape profile.proto
// allows, and damaged or hostile ones, each refused with what is wrong.
#include "heapq/read/sampled_profile.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "memprof/protobuf.h"

namespace heapq {
namespace {

using memprof::protobuf::Message;

Result<SampledProfile> read_bytes(std::string bytes) {
  auto in = memory_input(std::move(bytes), "p.pb");
  return read_sampled_profile(*in);
}

// A heap profile: value types in the order given, one function and location per frame name
// (file f.rb, line = its index + 10), samples of those frames with their values and labels.
struct Builder {
  std::vector<std::string> strings{""};
  Message profile;

  int64_t str(const std::string& s) {
    for (size_t i = 0; i < strings.size(); ++i)
      if (strings[i] == s) return static_cast<int64_t>(i);
    strings.push_back(s);
    return static_cast<int64_t>(strings.size() - 1);
  }
  void types(std::initializer_list<const char*> names) {
    for (const char* name : names) {
      Message vt;
      vt.int64(1, str(name));
      vt.int64(2, str("count"));
      profile.message(1, vt);
    }
  }
  void frame(uint64_t id, const std::string& name) {
    Message fn, loc, line;
    fn.varint(1, id);
    fn.int64(2, str(name));
    fn.int64(4, str("f.rb"));
    profile.message(5, fn);
    line.varint(1, id);
    line.int64(2, static_cast<int64_t>(id + 10));
    loc.varint(1, id);
    loc.message(4, line);
    profile.message(4, loc);
  }
  void sample(std::vector<uint64_t> locations, std::vector<int64_t> values,
              const std::string& klass = "") {
    Message s, packed;
    for (uint64_t l : locations) packed.raw_varint(l);
    s.bytes(1, packed.data());
    packed.clear();
    for (int64_t v : values) packed.raw_varint(static_cast<uint64_t>(v));
    s.bytes(2, packed.data());
    if (!klass.empty()) {
      Message label;
      label.int64(1, str("class"));
      label.int64(2, str(klass));
      s.message(3, label);
    }
    profile.message(2, s);
  }
  std::string bytes() {
    Message out = profile;
    for (const std::string& s : strings) out.bytes(6, s);
    return out.data();
  }
};

TEST(SampledProfile, ReadsMemprofsOwn) {
  std::ifstream f(HEAPQ_FIXTURES_DIR "/profiles/widgets.pb.gz", std::ios::binary);
  std::stringstream bytes;
  bytes << f.rdbuf();
  ASSERT_FALSE(bytes.str().empty());
  auto p = read_bytes(bytes.str());
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_FALSE(p->host.empty());
  EXPECT_GT(p->pid, 0u);
  EXPECT_EQ(p->period, 1);
  EXPECT_GT(p->time_nanos, 1'700'000'000'000'000'000);
  int64_t kept = 0, made = 0;
  for (const SampledProfile::Sample& s : p->samples) {
    if (s.class_name != "Widget") continue;
    EXPECT_EQ(s.type, "OBJECT");
    kept += s.inuse_objects;
    made += s.alloc_objects;
    ASSERT_FALSE(s.frames.empty());
    // make-profile.rb's Factory#build allocates them, in a block (KEPT_LINE, line 12).
    const SampledProfile::Frame& inner = p->frames.at(s.frames[0]);
    EXPECT_TRUE(inner.file.ends_with("make-profile.rb")) << inner.file;
    EXPECT_EQ(inner.line, 12);
  }
  EXPECT_EQ(kept, 300);
  EXPECT_EQ(made, 500);
}

TEST(SampledProfile, ValuesByTheirNamesAndFramesInnermostFirst) {
  Builder b;
  b.types({"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"});
  b.frame(1, "leaf");
  b.frame(2, "caller");
  b.sample({1, 2}, {7, 700, 3, 300}, "Order");
  b.sample({2}, {1, 10, 0, 0});
  auto p = read_bytes(b.bytes());
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->samples.size(), 2u);
  const SampledProfile::Sample& s = p->samples[0];
  EXPECT_EQ(s.inuse_objects, 3);
  EXPECT_EQ(s.inuse_bytes, 300);
  EXPECT_EQ(s.alloc_objects, 7);
  EXPECT_EQ(s.alloc_bytes, 700);
  EXPECT_EQ(s.class_name, "Order");
  ASSERT_EQ(s.frames.size(), 2u);
  EXPECT_EQ(p->frames[s.frames[0]].function, "leaf");
  EXPECT_EQ(p->frames[s.frames[0]].line, 11);
  EXPECT_EQ(p->frames[s.frames[1]].function, "caller");
  EXPECT_EQ(p->samples[1].frames, std::vector<uint32_t>{s.frames[1]}) << "one frame, once";
  EXPECT_EQ(p->host, "");
  EXPECT_EQ(p->pid, 0u);
}

TEST(SampledProfile, RefusesWhatIsNotAHeapProfile) {
  Builder b;
  b.types({"samples", "cpu"});
  auto p = read_bytes(b.bytes());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ExitCode::kBadInput);
  EXPECT_EQ(p.error().message, "p.pb: not a heap profile: it has no inuse_objects values");
}

// Each damage is named with where it is; none crashes or reads out of bounds (ASan).
TEST(SampledProfile, RefusesDamagedProfiles) {
  auto heap = [] {
    Builder b;
    b.types({"inuse_objects", "inuse_space", "alloc_objects", "alloc_space"});
    b.frame(1, "leaf");
    return b;
  };
  Builder missing_location = heap();
  missing_location.sample({9}, {1, 1, 1, 1});
  Builder short_values = heap();
  short_values.sample({1}, {1, 1});
  Builder string_past = heap();
  Message bad_fn;
  bad_fn.varint(1, 5);
  bad_fn.varint(2, 1000);
  string_past.profile.message(5, bad_fn);
  const std::string whole = heap().bytes();
  const std::pair<std::string, std::string> cases[] = {
      {missing_location.bytes(), "location 9, which is not there"},
      {short_values.bytes(), "a sample of 2 values where the profile has 4"},
      {string_past.bytes(), "string 1000 past the table's"},
      {whole.substr(0, whole.size() - 3), "damaged profile: at byte"},
      {std::string("\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12), "cut short"},
      {std::string("\x0b", 1), "wire type 3"},
      {"", "string table does not start with the empty string"},
  };
  for (const auto& [bytes, what] : cases) {
    auto p = read_bytes(bytes);
    ASSERT_FALSE(p.ok()) << what;
    EXPECT_EQ(p.error().code, ExitCode::kBadInput);
    EXPECT_NE(p.error().message.find(what), std::string::npos) << p.error().message;
    EXPECT_EQ(p.error().message.rfind("p.pb: ", 0), 0u) << p.error().message;
  }
}

// A location of many lines named by many samples would make a small input a huge answer.
TEST(SampledProfile, RefusesFramesMultipliedPastItsSize) {
  Builder b;
  b.types({"inuse_objects", "inuse_space", "alloc_objects", "alloc_space"});
  Message fn, loc, line;
  fn.varint(1, 1);
  fn.int64(2, b.str("f"));
  b.profile.message(5, fn);
  loc.varint(1, 1);
  line.varint(1, 1);
  for (int i = 0; i < 20000; ++i) loc.message(4, line);
  b.profile.message(4, loc);
  for (int i = 0; i < 200; ++i) b.sample(std::vector<uint64_t>(200, 1), {1, 1, 1, 1});
  auto p = read_bytes(b.bytes());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("more frames named than"), std::string::npos)
      << p.error().message;
}

TEST(SampledProfile, GzipOrNot) {
  Builder b;
  b.types({"inuse_objects", "inuse_space", "alloc_objects", "alloc_space"});
  b.frame(1, "leaf");
  b.sample({1}, {2, 80, 2, 80});
  std::string zipped;
  ASSERT_TRUE(memprof::protobuf::gzip(b.bytes(), zipped));
  auto p = read_bytes(zipped);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->samples.at(0).inuse_bytes, 80);
  auto cut = read_bytes(zipped.substr(0, zipped.size() - 8));
  EXPECT_FALSE(cut.ok());
}

// memprof's comments say which process (host, pid, start); a stranger's strings come out as
// UTF-8, what is not repaired.
TEST(SampledProfile, CommentsSayTheProcessAndStringsAreUtf8) {
  Builder b;
  b.types({"inuse_objects", "inuse_space", "alloc_objects", "alloc_space"});
  b.frame(1, "leaf");
  b.sample({1}, {2, 80, 2, 80}, "Bad\xff\xfe");
  for (const char* comment :
       {"memprof sampled heap", "host: web-1", "pid: 42", "started: 2026-11-28T09:00:00+00:00"})
    b.profile.int64(13, b.str(comment));
  auto p = read_bytes(b.bytes());
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->host, "web-1");
  EXPECT_EQ(p->pid, 42u);
  EXPECT_EQ(p->started, "2026-11-28T09:00:00+00:00");
  EXPECT_EQ(p->samples.at(0).class_name, "Bad\xEF\xBF\xBD\xEF\xBF\xBD");
}

// What heapq takes for a profile rather than a dump, by the first bytes of the content.
TEST(SampledProfile, TheFirstBytesTellAProfileFromADump) {
  Builder b;
  b.types({"inuse_objects", "inuse_space", "alloc_objects", "alloc_space"});
  EXPECT_TRUE(looks_like_profile(b.bytes()));  // a sample type first: 0x0a, then a message
  std::ifstream f(HEAPQ_FIXTURES_DIR "/profiles/widgets.pb.gz", std::ios::binary);
  std::stringstream zipped;
  zipped << f.rdbuf();
  auto in = memory_input(zipped.str());
  std::string head(64, '\0');
  auto n = in->read(head.data(), head.size());
  ASSERT_TRUE(n.ok());
  head.resize(*n);
  EXPECT_TRUE(looks_like_profile(head));  // memprof's, decompressed
  Builder samples_first;
  samples_first.frame(1, "leaf");  // a profile may open with any of its fields
  EXPECT_TRUE(looks_like_profile(samples_first.bytes()));
  for (const char* dump : {"{\"type\":\"META\"}", "\n{\"address\":\"0x1\"}", "\n\n{", "  {", "\t{",
                           "\r\n{", "", "\n", "hello\n", "PK\x03\x04", "SQLite format 3"})
    EXPECT_FALSE(looks_like_profile(dump)) << dump;
}

}  // namespace
}  // namespace heapq
