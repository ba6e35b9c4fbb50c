// A record at an address an earlier record has is a bad line, not a second object: the first
// record of each address is the object, whichever chunk each of them is read in.
#include <gtest/gtest.h>

#include <string>

#include "heapq/model/load.h"
#include "test_dumps.h"

namespace heapq {
namespace {

using testing::load_text;
using testing::record;
using testing::root;

// Line 1 a ROOT, 2-3 classes, then objects; lines 6, 8 and 10 repeat an earlier address. The
// repeat at line 6 has fields of its own (a reference, a memsize, a class, a STRING's value)
// that must not reach the graph; the objects after it keep their references and classes.
std::string dump_with_repeats() {
  return root("vm", {0x500, 0x600}) +                                        // 1
         testing::class_records({{0x300, "Foo"}, {0x310, "Bar"}}) +          // 2, 3
         record(0x500, "OBJECT", 0x300, {0x600}, 40) +                       // 4
         record(0x600, "ARRAY", 0x300, {0x700}, 80) +                        // 5
         record(0x500, "STRING", 0x310, {0x700}, 999, R"("value":"x", )") +  // 6: repeat
         record(0x700, "OBJECT", 0x310, {0x500}, 24) +                       // 7
         record(0x600, "OBJECT", 0x300, {}, 16) +                            // 8: repeat
         record(0x710, "CLASS", 0x310, {0x700}, 8, R"("name":"Baz", )") +    // 9
         record(0x700, "OBJECT", 0x300, {}, 32);                             // 10: repeat
}

void expect_first_records_kept(const HeapGraph& g) {
  EXPECT_EQ(g.object_count(), 6u);  // two classes, 0x500, 0x600, 0x700, 0x710
  const ObjectId a = g.find(0x500).value(), b = g.find(0x600).value(), c = g.find(0x700).value();
  EXPECT_EQ(g.type(a), ObjectType::kObject);
  EXPECT_EQ(g.memsize(a), 40u);
  EXPECT_EQ(g.class_name(g.class_of(a)), "Foo");
  EXPECT_EQ(g.type(b), ObjectType::kArray);
  EXPECT_EQ(g.memsize(b), 80u);
  EXPECT_EQ(g.memsize(c), 24u);
  EXPECT_EQ(g.class_name(g.class_of(c)), "Bar");
  ASSERT_EQ(g.references(a).size(), 2u);  // 0x600 and its class, not 0x700
  EXPECT_EQ(g.references(a)[0], b);
  ASSERT_EQ(g.references(c).size(), 2u);  // 0x500 and its class: the ids after a repeat hold
  EXPECT_EQ(g.references(c)[0], a);
  const ObjectId baz = g.find(0x710).value();
  EXPECT_EQ(g.type(baz), ObjectType::kClass);
  EXPECT_EQ(g.string(g.own_name(baz)), "Baz");
  ASSERT_FALSE(g.references(baz).empty());
  EXPECT_EQ(g.references(baz)[0], c);
}

TEST(RepeatedAddress, IsABadLineAndTheFirstRecordIsTheObject) {
  for (size_t chunk : {size_t(4) << 20, size_t(1), size_t(200)}) {
    SCOPED_TRACE("chunk bytes: " + std::to_string(chunk));
    LoadOptions options;
    options.chunk_bytes = chunk;  // one line a chunk: every repeat is in a chunk of its own
    options.threads = 3;
    options.values = true;
    auto [graph, report] = load_text(dump_with_repeats(), options);
    ASSERT_TRUE(graph.ok()) << graph.error().message;
    expect_first_records_kept(graph.value());
    EXPECT_TRUE(graph.value().string_values().empty()) << "the repeat's value is not kept";
    EXPECT_EQ(report.objects, 6u);
    EXPECT_EQ(report.bad_lines, 3u);
    EXPECT_EQ(report.duplicate_addresses, 3u);
    ASSERT_EQ(report.first_bad_lines.size(), 3u);
    const uint64_t lines[] = {6, 8, 10};
    const char* addresses[] = {"0x500", "0x600", "0x700"};
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(report.first_bad_lines[i].line, lines[i]);
      EXPECT_NE(report.first_bad_lines[i].message.find(addresses[i]), std::string::npos)
          << report.first_bad_lines[i].message;
      EXPECT_NE(report.first_bad_lines[i].message.find("an earlier record"), std::string::npos)
          << report.first_bad_lines[i].message;
    }
  }
}

// Repeats sort in among the lines the parser found bad, in line order.
TEST(RepeatedAddress, SortsInAmongOtherBadLines) {
  std::string dump = dump_with_repeats();
  dump.insert(dump.find(record(0x700, "OBJECT", 0x310, {0x500}, 24)), "{not json\n");  // line 7
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  EXPECT_EQ(report.bad_lines, 4u);
  ASSERT_EQ(report.first_bad_lines.size(), 4u);
  const uint64_t lines[] = {6, 7, 9, 11};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(report.first_bad_lines[i].line, lines[i]);
}

TEST(RepeatedAddress, FailsAStrictLoadAtItsLine) {
  for (size_t chunk : {size_t(4) << 20, size_t(1)}) {
    LoadOptions options;
    options.strict = true;
    options.chunk_bytes = chunk;
    auto [graph, report] = load_text(dump_with_repeats(), options);
    ASSERT_FALSE(graph.ok());
    EXPECT_EQ(graph.error().code, ExitCode::kBadInput);
    EXPECT_EQ(graph.error().message.rfind("dump.json:6: ", 0), 0u) << graph.error().message;
    EXPECT_NE(graph.error().message.find("0x500"), std::string::npos) << graph.error().message;
  }
}

// The hostile case: one record line many times over is one object and that many bad lines.
TEST(RepeatedAddress, OneLineRepeatedIsOneObject) {
  std::string dump = root("vm", {0x10});
  for (int i = 0; i < 20000; ++i) dump += record(0x10, "OBJECT", 0x20, {0x10}, 40);
  LoadOptions options;
  options.chunk_bytes = 4096;
  auto [graph, report] = load_text(dump, options);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  EXPECT_EQ(graph.value().object_count(), 1u);
  EXPECT_EQ(report.bad_lines, 19999u);
  EXPECT_EQ(report.first_bad_lines.size(), LoadReport::kIssuesKept);
  EXPECT_EQ(report.first_bad_lines[0].line, 3u);
}

}  // namespace
}  // namespace heapq
