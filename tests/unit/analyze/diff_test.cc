// DumpDiff: objects born and freed between two dumps, by class, by site and class, by gem.
#include "heapq/analyze/diff.h"

#include <gtest/gtest.h>

#include "analyze/process_dumps.h"

namespace heapq {
namespace {

using testing::id;
using testing::kClasses;
using testing::load;
using testing::process_dump;
using testing::record;
using testing::root;

TEST(Diff, CountsBornAndFreedByClassAndSite) {
  HeapGraph d1 = load(process_dump(1)), d3 = load(process_dump(3));
  DumpDiff diff(d1, d3);
  EXPECT_EQ(diff.match(), MatchMethod::kGeneration);
  EXPECT_EQ(diff.born(), 40u + 30 + 25);
  EXPECT_EQ(diff.freed(), 25u);
  auto row = [](const std::vector<DiffRow>& rows, std::string_view cls) {
    for (const DiffRow& r : rows)
      if (r.group.cls == cls) return r;
    return DiffRow();
  };
  const std::vector<DiffRow> by_class = diff.by(GroupBy::kClass);
  ASSERT_EQ(by_class.size(), 3u) << "the classes, Cache, the Hashes and the Array did not change";
  EXPECT_EQ(by_class[0].group.cls, "String") << "the largest growth in bytes first";
  const DiffRow items = row(by_class, "Item");
  EXPECT_EQ(items.before_count, 20u);
  EXPECT_EQ(items.after_count, 60u);
  EXPECT_EQ(items.bytes_change(), 40 * 40);
  EXPECT_EQ(items.born, 40u);
  EXPECT_EQ(items.freed, 0u);
  const DiffRow sessions = row(by_class, "Session");
  EXPECT_EQ(sessions.count_change(), 0);
  EXPECT_EQ(sessions.born, 25u);
  EXPECT_EQ(sessions.freed, 25u);
  const std::vector<DiffRow> by_site = diff.by(GroupBy::kClassAndSite);
  const DiffRow site = row(by_site, "Item");
  EXPECT_EQ(site.group.file, "a.rb");
  EXPECT_EQ(site.group.line, 1u);
  EXPECT_EQ(site.born, 40u);
  const std::vector<DiffRow> by_gem = diff.by(GroupBy::kGem);
  ASSERT_FALSE(by_gem.empty());
  EXPECT_EQ(by_gem[0].group.file, "(app)");
}

// An anonymous class assigned to a constant between two dumps is the same class: its kept
// instances are kept, under the name it has now, and the rows add up to the header.
TEST(Diff, AClassNamedBetweenDumpsIsOneClass) {
  const std::string anonymous =
      R"({"address":"0x70", "type":"CLASS", "references":[], "memsize":0})"
      "\n";
  const std::string named =
      R"({"address":"0x70", "type":"CLASS", "name":"Widget", "references":[], "memsize":0})"
      "\n";
  std::string kept;
  for (uint64_t a : {0x1000, 0x1028, 0x1050}) kept += record(a, "OBJECT", 0x70, {}, 40);
  HeapGraph before = load(kClasses + anonymous + root("vm", {0x1000, 0x1028, 0x1050}) + kept);
  HeapGraph after =
      load(kClasses + named + root("vm", {0x1000, 0x1028, 0x1050, 0x2000, 0x2028}) + kept +
           record(0x2000, "OBJECT", 0x70, {}, 40) + record(0x2028, "OBJECT", 0x70, {}, 40));
  ASSERT_EQ(before.class_name(before.class_of(id(before, 0x1000))), "#<Class:0x70>");
  DumpDiff diff(before, after);
  EXPECT_EQ(diff.born(), 2u);
  EXPECT_EQ(diff.freed(), 0u);
  for (GroupBy by : {GroupBy::kClass, GroupBy::kClassAndSite}) {
    const std::vector<DiffRow> rows = diff.by(by);
    ASSERT_EQ(rows.size(), 1u) << "one class, under the name it has now";
    EXPECT_EQ(rows[0].group.cls, "Widget");
    EXPECT_EQ(rows[0].before_count, 3u);
    EXPECT_EQ(rows[0].after_count, 5u);
    EXPECT_EQ(rows[0].born, 2u);
    EXPECT_EQ(rows[0].freed, 0u);
  }
  // Named classes keep their own names: a class is never merged into another by address.
  const std::string other =
      R"({"address":"0x70", "type":"CLASS", "name":"Gadget", "references":[], "memsize":0})"
      "\n";
  HeapGraph reused =
      load(kClasses + other + root("vm", {0x1000}) + record(0x1000, "OBJECT", 0x70, {}, 40));
  DumpDiff apart(after, reused);
  EXPECT_EQ(apart.by(GroupBy::kClass).size(), 2u);
}

}  // namespace
}  // namespace heapq
