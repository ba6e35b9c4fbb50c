// heapq leaks' renderers, on answers built by hand: growth over dumps, and one dump.
#include <gtest/gtest.h>

#include "render/answer_parts.h"
#include "render/render.h"
#include "schema_check.h"

namespace heapq {
namespace {

using testing::object;

PathRef path_to_cache() {
  PathRef p;
  p.root = "vm";
  p.steps = {{object(0x10, "class Pricing"), ""}, {object(0x20, "Hash"), "@memo"}};
  return p;
}

LeaksAnswer several() {
  LeaksAnswer a;
  for (const char* path : {"d1.json", "d2.json", "d3.json"}) {
    InputSummary input;
    input.path = input.name = path;
    a.inputs.push_back(input);
  }
  a.input = a.inputs.back();
  a.several = true;
  a.heap_bytes = 3 << 20;
  a.match = MatchMethod::kGeneration;
  a.born = 1200;
  a.groups_growing = 1;
  a.min_growth = 10;
  LeaksAnswer::Suspect quote;
  quote.cls = "Pricing::Quote";
  quote.site = SiteRef{"app/pricing.rb", 32, "quote"};
  quote.count = 600;
  quote.bytes = 43'200;
  quote.retained_bytes = 67'200;
  quote.growth = {0, 300, 600};
  quote.growing = quote.steady = true;
  quote.example = 0x30;
  quote.holder = object(0x20, "Hash");
  quote.holder_edge = "@memo";
  quote.holder_share = 600;
  quote.path = path_to_cache();
  LeaksAnswer::Suspect label = quote;
  label.cls = "String";
  label.site = SiteRef{"app/pricing.rb", 23, "format"};
  label.holder_share = 599;
  label.same_holder_as = 1;
  LeaksAnswer::Suspect warm = quote;
  warm.cls = "String";
  warm.growth = {0, 900, 900};
  warm.growing = warm.steady = false;
  warm.holder.reset();
  warm.path.reset();
  a.suspects = {quote, label, warm};
  return a;
}

LeaksAnswer one() {
  LeaksAnswer a;
  a.input.path = a.input.name = "app.json";
  a.inputs = {a.input};
  a.heap_bytes = 10 << 20;
  a.profiler_bytes = 1 << 20;
  a.threshold_percent = 10;
  LeaksAnswer::Suspect pages;
  pages.cls = "Shop::CachedPage";
  pages.count = 2619;
  pages.bytes = 104'760;
  pages.retained_bytes = 711'000;
  pages.growth = {2619};
  pages.example = 0x40;
  pages.sites = {{SiteRef{"app/shop.rb", 40, "fetch"}, 2600}, {SiteRef{"lib/page.rb", 0, ""}, 19}};
  pages.holder = object(0x20, "Hash");
  pages.holder_edge = "vm";
  pages.holder_share = 2619;
  pages.path = PathRef{"vm", {{object(0x20, "Hash"), ""}}, 0, 0};
  a.suspects = {pages};
  return a;
}

TEST(LeaksRender, JsonMatchesTheSchema) {
  for (const LeaksAnswer& a : {several(), one()}) {
    const std::string out = render::json(a);
    expect_valid(out, "leaks.schema.json");
  }
  EXPECT_NE(render::json(several()).find(R"("matched_by": "generation")"), std::string::npos);
  EXPECT_NE(render::json(one()).find(R"("sites": [)"), std::string::npos);
}

TEST(LeaksRender, Text) {
  EXPECT_EQ(render::text(several(), {80}),
            "3 dumps, d1.json to d3.json:\n"
            "1,200 objects of the last were born after the first; 1 group\n"
            "(class, allocation site) is growing.\n"
            "Objects matched by address, class and GC generation (memprof dumps match them\n"
            "    exactly).\n"
            "Suspects, steady growth first, then by the memory they hold:\n"
            "\n"
            "1. Pricing::Quote allocated at app/pricing.rb:32 in quote\n"
            "   growth 0 -> 300 -> 600 (grows between every two dumps)\n"
            "   600 born after the first dump, still alive: 42.2 KiB, retaining 65.6 KiB\n"
            "   held by Hash 0x20 (@memo), which holds all of them\n"
            "   ROOT(vm) -> class Pricing @memo -> Hash 0x20\n"
            "\n"
            "2. String allocated at app/pricing.rb:23 in format\n"
            "   growth 0 -> 300 -> 600 (grows between every two dumps)\n"
            "   600 born after the first dump, still alive: 42.2 KiB, retaining 65.6 KiB\n"
            "   held by the same Hash as #1 (599 of them)\n"
            "\n"
            "3. String allocated at app/pricing.rb:32 in quote\n"
            "   growth 0 -> 900 -> 900 (grew, then stopped: a warm-up?)\n"
            "   600 born after the first dump, still alive: 42.2 KiB, retaining 65.6 KiB\n"
            "   no single object holds most of them\n");
  LeaksAnswer below = one();
  below.below_threshold = true;
  EXPECT_NE(
      render::text(below, {80})
          .find(
              "No object retains 10% of the heap; the biggest accumulation points all the same:\n"),
      std::string::npos)
      << render::text(below, {80});
  EXPECT_NE(render::json(below).find(R"("below_threshold": true)"), std::string::npos);
  // Held by a root directly: its edge, the root's category, is the path's.
  EXPECT_EQ(render::text(one(), {80}),
            "app.json: 10.0 MiB reachable (and 1.00 MiB of profiler overhead).\n"
            "Where memory accumulates: objects retaining 10% or more, followed down to\n"
            "their accumulation point (several dumps of one process show what grows).\n"
            "\n"
            "1. Shop::CachedPage\n"
            "   2,619 held together: 102 KiB, retaining 694 KiB\n"
            "   2,600 allocated at app/shop.rb:40 in fetch\n"
            "   19 allocated at lib/page.rb\n"
            "   held by Hash 0x20, which holds all of them\n"
            "   ROOT(vm) -> Hash 0x20\n");
}

}  // namespace
}  // namespace heapq
