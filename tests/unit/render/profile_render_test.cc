// Profiles as pprof reads them (decoded here with a decoder of the wire format of its own) and
// as folded stacks.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "heapq/render/render.h"

namespace heapq::render {
namespace {

std::string gunzip(const std::string& in) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out(in.size() * 20 + 1024, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  inflateEnd(&z);
  return out;
}

// A message's fields: field number -> each value (varints as numbers, the rest as bytes).
struct Fields {
  std::multimap<uint32_t, uint64_t> numbers;
  std::multimap<uint32_t, std::string> bytes;
  std::vector<uint64_t> all(uint32_t f) const {
    std::vector<uint64_t> out;
    for (auto [it, end] = numbers.equal_range(f); it != end; ++it) out.push_back(it->second);
    return out;
  }
  std::vector<std::string> all_bytes(uint32_t f) const {
    std::vector<std::string> out;
    for (auto [it, end] = bytes.equal_range(f); it != end; ++it) out.push_back(it->second);
    return out;
  }
  uint64_t one(uint32_t f) const {
    auto v = all(f);
    return v.empty() ? 0 : v.at(0);
  }
};

uint64_t varint(const std::string& s, size_t& at) {
  uint64_t v = 0;
  for (int shift = 0; at < s.size(); shift += 7) {
    const uint8_t b = static_cast<uint8_t>(s[at++]);
    v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  ADD_FAILURE() << "a varint runs past the end";
  return v;
}

Fields decode(const std::string& s) {
  Fields f;
  for (size_t at = 0; at < s.size();) {
    const uint64_t key = varint(s, at);
    const uint32_t field = static_cast<uint32_t>(key >> 3);
    switch (key & 7) {
      case 0:
        f.numbers.emplace(field, varint(s, at));
        break;
      case 2: {
        const uint64_t n = varint(s, at);
        EXPECT_LE(at + n, s.size());
        f.bytes.emplace(field, s.substr(at, n));
        at += n;
        break;
      }
      default:
        ADD_FAILURE() << "wire type " << (key & 7) << " is not one profile.proto uses here";
        return f;
    }
  }
  return f;
}

std::vector<uint64_t> packed(const std::string& s) {
  std::vector<uint64_t> out;
  for (size_t at = 0; at < s.size();) out.push_back(varint(s, at));
  return out;
}

// Frames: 0 "ROOT(vm)", 1 "Hash via @items", 2 "build" in app.rb:7; stacks ROOT(vm) > Hash
// and build (a site) alone.
ProfileAnswer two_samples() {
  ProfileAnswer a;
  a.input.path = "app.json";
  a.title = "heapq test";
  a.types = {{"objects", "count"}, {"space", "bytes"}};
  a.frames = {{"ROOT(vm)", "", 0}, {"Hash via @items", "", 0}, {"build", "app.rb", 7}};
  a.node_frame = {0, 1, 2};
  a.node_parent = {ProfileAnswer::kNoParent, 0, ProfileAnswer::kNoParent};
  a.label_sets.push_back({{"class", "Order"}, {"type", "OBJECT"}});
  a.samples = {{1, 0}, {2, 1}};
  a.values = {3, 4096, 2, 80};
  return a;
}

TEST(PprofRender, DecodesAsProfileProto) {
  Result<std::string> out = pprof(two_samples());
  ASSERT_TRUE(out.ok());
  ASSERT_GE(out->size(), 2u);
  EXPECT_EQ(static_cast<uint8_t>((*out)[0]), 0x1f);  // gzip
  const Fields profile = decode(gunzip(*out));
  const std::vector<std::string> strings = profile.all_bytes(6);
  ASSERT_FALSE(strings.empty());
  EXPECT_EQ(strings[0], "");
  auto str = [&](uint64_t i) { return i < strings.size() ? strings[i] : "<out of range>"; };

  std::vector<std::string> types;
  for (const std::string& t : profile.all_bytes(1)) {
    const Fields vt = decode(t);
    types.push_back(str(vt.one(1)) + "/" + str(vt.one(2)));
  }
  EXPECT_EQ(types, (std::vector<std::string>{"objects/count", "space/bytes"}));
  EXPECT_EQ(str(profile.one(14)), "space");  // default_sample_type
  ASSERT_EQ(profile.all(13).size(), 1u);
  EXPECT_EQ(str(profile.all(13)[0]), "heapq test");  // comment

  // Functions by id, locations by id -> function name (file:line).
  std::map<uint64_t, std::string> function;
  for (const std::string& f : profile.all_bytes(5)) {
    const Fields fn = decode(f);
    EXPECT_EQ(fn.one(3), 0u) << "no system_name: pprof would shorten the name";
    function[fn.one(1)] = str(fn.one(2)) + (fn.one(4) ? " " + str(fn.one(4)) : "");
  }
  std::map<uint64_t, std::string> location;
  for (const std::string& l : profile.all_bytes(4)) {
    const Fields loc = decode(l);
    ASSERT_EQ(loc.all_bytes(4).size(), 1u);
    const Fields line = decode(loc.all_bytes(4)[0]);
    location[loc.one(1)] =
        function.at(line.one(1)) + (line.one(2) ? ":" + std::to_string(line.one(2)) : "");
  }
  EXPECT_EQ(location.size(), 3u);
  // One mapping, named after the dump, whose functions and lines need no symbolizing.
  ASSERT_EQ(profile.all_bytes(3).size(), 1u);
  const Fields mapping = decode(profile.all_bytes(3)[0]);
  EXPECT_EQ(mapping.one(1), 1u);
  EXPECT_EQ(str(mapping.one(5)), "app.json");
  EXPECT_EQ(mapping.one(7), 1u);
  for (const std::string& l : profile.all_bytes(4)) EXPECT_EQ(decode(l).one(2), 1u);

  const std::vector<std::string> samples = profile.all_bytes(2);
  ASSERT_EQ(samples.size(), 2u);
  const Fields first = decode(samples[0]);
  std::vector<std::string> stack;
  for (uint64_t id : packed(first.all_bytes(1).at(0))) stack.push_back(location.at(id));
  EXPECT_EQ(stack, (std::vector<std::string>{"Hash via @items", "ROOT(vm)"}));  // leaf first
  EXPECT_EQ(packed(first.all_bytes(2).at(0)), (std::vector<uint64_t>{3, 4096}));
  EXPECT_TRUE(first.all_bytes(3).empty());

  const Fields second = decode(samples[1]);
  stack.clear();
  for (uint64_t id : packed(second.all_bytes(1).at(0))) stack.push_back(location.at(id));
  EXPECT_EQ(stack, (std::vector<std::string>{"build app.rb:7"}));
  EXPECT_EQ(packed(second.all_bytes(2).at(0)), (std::vector<uint64_t>{2, 80}));
  std::map<std::string, std::string> labels;
  for (const std::string& l : second.all_bytes(3)) {
    const Fields label = decode(l);
    labels[str(label.one(1))] = str(label.one(2));
  }
  EXPECT_EQ(labels, (std::map<std::string, std::string>{{"class", "Order"}, {"type", "OBJECT"}}));
}

TEST(PprofRender, NoStringHoldsAControlByte) {
  // pprof's viewers print names as they are: ESC would drive the terminal; and a name that
  // holds the escape's text as written stays another name.
  ProfileAnswer a = two_samples();
  a.input.path = "dump\x1b]0;title\x07.json";
  a.frames[1].name = "Evil\x1b[31m";
  a.frames[2].name = "Evil\\e[31m";
  a.frames[2].file = "a\nb.rb";
  a.label_sets[1][0].second = "Order\r";
  Result<std::string> out = pprof(a);
  ASSERT_TRUE(out.ok());
  const std::vector<std::string> strings = decode(gunzip(*out)).all_bytes(6);
  for (const std::string& s : strings)
    for (unsigned char c : s) EXPECT_FALSE(c < 0x20 || c == 0x7f) << "in \"" << s << '"';
  auto has = [&](const std::string& s) {
    return std::find(strings.begin(), strings.end(), s) != strings.end();
  };
  EXPECT_TRUE(has("Evil\\e[31m"));
  EXPECT_TRUE(has("Evil\\\\e[31m"));
  EXPECT_TRUE(has("a\\nb.rb"));
  EXPECT_TRUE(has("Order\\r"));
}

TEST(PprofRender, RefusesValuesThatDoNotFitTheSamples) {
  ProfileAnswer a = two_samples();
  a.values.pop_back();
  EXPECT_FALSE(pprof(a).ok());
}

TEST(FoldedRender, OneLinePerSampleOutermostFirst) {
  EXPECT_EQ(folded(two_samples()),
            "ROOT(vm);Hash via @items 4096\n"
            "build (app.rb:7);Order 80\n");
}

TEST(FoldedRender, FramesCannotSplitOrEndALine) {
  ProfileAnswer a = two_samples();
  a.frames[1].name = "Hash via [\"a;b\"]\n\x1b[31m";
  a.label_sets[1][0].second = "Evil;Class";
  const std::string out = folded(a);
  EXPECT_EQ(out,
            "ROOT(vm);Hash via [\"a\\x3bb\"]\\n\\e[31m 4096\n"
            "build (app.rb:7);Evil\\x3bClass 80\n");
}

TEST(FoldedRender, EscapesAreNotTakenForWhatTheyStandFor) {
  // A frame holding ';' and one holding its escape as written are two frames, not one.
  ProfileAnswer a = two_samples();
  a.frames[1].name = "semi;colon";
  a.label_sets[1][0].second = "semi\\x3bcolon";
  EXPECT_EQ(folded(a),
            "ROOT(vm);semi\\x3bcolon 4096\n"
            "build (app.rb:7);semi\\\\x3bcolon 80\n");
}

TEST(FoldedRender, LeavesOutSamplesWithoutBytes) {
  ProfileAnswer a = two_samples();
  a.values[1] = 0;
  EXPECT_EQ(folded(a), "build (app.rb:7);Order 80\n");
}

}  // namespace
}  // namespace heapq::render
