#include <gtest/gtest.h>

#include <algorithm>

#include "heapq/analyze/sites.h"
#include "heapq/analyze/stats.h"
#include "test_dumps.h"

namespace heapq {
namespace {

HeapGraph small_graph() {
  auto loaded = testing::load_text(testing::kSmallDump);
  EXPECT_TRUE(loaded.graph.ok());
  return std::move(loaded.graph.value());
}

TEST(Stats, TotalsByTypeAndClass) {
  HeapGraph g = small_graph();
  HeapStats s = compute_stats(g);
  EXPECT_EQ(s.objects, 9u);
  EXPECT_EQ(s.bytes, 500u + 400 + 500 + 600 + 40 + 160 + 40 + 40 + 40);
  ASSERT_EQ(s.by_type.front().type, ObjectType::kClass);  // largest bytes first
  EXPECT_EQ(s.by_type.front().count, 4u);
  EXPECT_EQ(s.by_type.front().bytes, 2000u);
  auto string_row = std::find_if(s.by_class.begin(), s.by_class.end(), [&](const ClassTotals& c) {
    return g.class_name(c.cls) == "String";
  });
  ASSERT_NE(string_row, s.by_class.end());
  EXPECT_EQ(string_row->count, 2u);
  EXPECT_EQ(string_row->bytes, 80u);
  EXPECT_FALSE(string_row->retained_bytes.has_value());

  HeapStats by_count = compute_stats(g, SortKey::kCount);
  EXPECT_EQ(by_count.by_type.front().type, ObjectType::kClass);
  EXPECT_EQ(by_count.by_type[1].type, ObjectType::kString);
}

TEST(Sites, GroupsBySiteFileMethodClassAndGem) {
  HeapGraph g = small_graph();
  SiteReport by_site = compute_sites(g, SiteGrouping::kSite, SortKey::kCount);
  EXPECT_EQ(by_site.objects, 9u);
  EXPECT_EQ(by_site.objects_with_site, 4u);
  // The two Strings of rack.rb:9 form one group, first by count after the classes without site.
  auto rack = std::find_if(by_site.groups.begin(), by_site.groups.end(), [&](const SiteGroup& s) {
    return g.string(s.file) == "/gems/rack-2.2.3/lib/rack.rb";
  });
  ASSERT_NE(rack, by_site.groups.end());
  EXPECT_EQ(rack->line, 9u);
  EXPECT_EQ(rack->count, 2u);
  EXPECT_EQ(rack->bytes, 80u);
  EXPECT_EQ(g.string(rack->method), "call");
  EXPECT_EQ(g.class_name(rack->cls), "String");

  SiteReport by_file = compute_sites(g, SiteGrouping::kFile);
  ASSERT_EQ(by_file.groups.size(), 3u);               // foo.rb, rack.rb, and no site
  EXPECT_FALSE(by_file.groups.front().file.valid());  // the class records, 2000+ bytes

  SiteReport by_method = compute_sites(g, SiteGrouping::kMethod);
  EXPECT_EQ(by_method.groups.size(), 4u);  // new, initialize, call, none

  SiteReport by_gem = compute_sites(g, SiteGrouping::kGem);
  std::vector<std::string> gems;
  for (const SiteGroup& s : by_gem.groups) gems.push_back(s.gem);
  EXPECT_EQ(gems, (std::vector<std::string>{"(unknown)", "(app)", "rack-2.2.3"}));
}

// memprof's allocation stacks: a gem's line made two Strings for two app lines, one for each.
TEST(Sites, GroupsByTheAppsLine) {
  std::string dump =
      R"J({"type":"META", "format":"memprof", "version":1})J"
      "\n"
      R"J({"address":"0x500", "type":"STRING", "file":"/g/gems/rack-2.2/lib/rack.rb", "line":9, "method":"call", "stack":1, "memsize":40})J"
      "\n"
      R"J({"address":"0x510", "type":"STRING", "file":"/g/gems/rack-2.2/lib/rack.rb", "line":9, "method":"call", "stack":2, "memsize":40})J"
      "\n"
      R"J({"address":"0x520", "type":"STRING", "file":"/g/gems/rack-2.2/lib/rack.rb", "line":9, "method":"call", "stack":2, "memsize":40})J"
      "\n"
      R"J({"address":"0x530", "type":"STRING", "memsize":40})J"
      "\n"
      R"J({"type":"FRAME", "id":1, "file":"/g/gems/rack-2.2/lib/rack.rb", "line":9, "method":"call"})J"
      "\n"
      R"J({"type":"FRAME", "id":2, "file":"app.rb", "line":3, "method":"show"})J"
      "\n"
      R"J({"type":"FRAME", "id":3, "file":"app.rb", "line":7, "method":"list"})J"
      "\n"
      R"J({"type":"STACK", "id":1, "frames":[1, 2]})J"
      "\n"
      R"J({"type":"STACK", "id":2, "frames":[1, 3, 2]})J"
      "\n"
      R"J({"type":"END", "records":10})J"
      "\n";
  auto loaded = testing::load_text(dump);
  ASSERT_TRUE(loaded.graph.ok());
  const HeapGraph& g = loaded.graph.value();
  SiteReport by_app = compute_sites(g, SiteGrouping::kApp, SortKey::kCount);
  ASSERT_EQ(by_app.groups.size(), 3u);
  EXPECT_EQ(g.string(by_app.groups[0].file), "app.rb");
  EXPECT_EQ(by_app.groups[0].line, 7u);
  EXPECT_EQ(g.string(by_app.groups[0].method), "list");
  EXPECT_EQ(by_app.groups[0].count, 2u);
  // The other two hold one object each: app.rb:3, and the String without a stack.
  std::vector<uint32_t> lines = {by_app.groups[1].line, by_app.groups[2].line};
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<uint32_t>{0, 3}));
  EXPECT_NE(by_app.groups[1].file.valid(), by_app.groups[2].file.valid()) << "one has no stack";
}

}  // namespace
}  // namespace heapq
