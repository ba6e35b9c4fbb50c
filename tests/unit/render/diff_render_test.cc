// heapq diff's renderers, on an answer built by hand.
#include <gtest/gtest.h>

#include "heapq/render/render.h"
#include "schema_check.h"

namespace heapq {
namespace {

DiffAnswer answer(GroupBy by) {
  DiffAnswer a;
  a.input.path = a.input.name = "d2.json";
  a.before.path = a.before.name = "d1.json";
  a.by = by;
  a.match = MatchMethod::kAddress;
  a.born = 301;
  a.freed = 1;
  a.objects_before = 1000;
  a.objects_after = 1300;
  DiffRow quotes;
  quotes.group = {"Pricing::Quote", "app/pricing.rb", 32, "quote"};
  quotes.before_count = 0;
  quotes.after_count = 300;
  quotes.after_bytes = 12'000;
  quotes.born = 300;
  DiffRow strings;
  strings.group = {"String", "", 0, ""};
  strings.before_count = 10;
  strings.before_bytes = 400;
  strings.after_count = 9;
  strings.after_bytes = 360;
  strings.born = 1;
  strings.freed = 2;
  a.by_class = {3, {{quotes, "", ""}, {strings, "", ""}}};
  a.by_site = a.by_class;
  if (by == GroupBy::kGem) {
    DiffRow app = quotes;
    app.group = {"", "(app)", 0, ""};
    a.by_gem = {1, {{app, "(app)", ""}}};
  }
  return a;
}

TEST(DiffRender, JsonMatchesTheSchema) {
  expect_valid(render::json(answer(GroupBy::kClass)), "diff.schema.json");
  const std::string gem = render::json(answer(GroupBy::kGem));
  expect_valid(gem, "diff.schema.json");
  EXPECT_NE(gem.find(R"("by_gem")"), std::string::npos);
  EXPECT_NE(gem.find(R"("line": 32)"), std::string::npos) << gem;
}

// What makes born and freed unsure is said in every format.
TEST(DiffRender, WarningsInTextAndJson) {
  DiffAnswer a = answer(GroupBy::kClass);
  a.warnings = {"GC compaction ran 2 times between the dumps"};
  const std::string json = render::json(a);
  expect_valid(json, "diff.schema.json");
  EXPECT_NE(json.find(R"("warnings")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("GC compaction ran 2 times between the dumps")"), std::string::npos);
  EXPECT_NE(render::text(a, {200}).find("Warning: GC compaction ran 2 times between the dumps.\n"),
            std::string::npos);
}

TEST(DiffRender, Text) {
  // Too wide for 80 columns: the site column gives up the start of its cells.
  EXPECT_EQ(
      render::text(answer(GroupBy::kClassAndSite), {80}),
      "d1.json -> d2.json:\n"
      "1,300 objects (+300), 301 born, 1 freed\n"
      "(no allocation tracing: objects matched by address and class; a reused address\n"
      "passes for the old object)\n"
      "site             class           count  change     bytes     change  born  freed\n"
      "\u2026/pricing.rb:32  Pricing::Quote    300    +300  11.7 KiB  +11.7 KiB   300      0\n"
      "\u2026location site)  String              9      -1     360 B      -40 B     1      2\n"
      "(1 more; --top 0 lists all)\n");
}

}  // namespace
}  // namespace heapq
