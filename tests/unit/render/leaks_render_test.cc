// heapq leaks' renderers, on answers built by hand: growth over dumps, and one dump.
#include <gtest/gtest.h>

#include "heapq/render/render.h"
#include "render/answer_parts.h"
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
  a.born = 2100;
  a.groups = 3;
  a.groups_growing = 2;
  a.found = 3;
  a.min_growth = 10;
  LeaksAnswer::Leak cache;
  cache.holder = object(0x20, "Hash");
  cache.holder->site = SiteRef{"app/pricing.rb", 3, "memo"};
  cache.holder_edge = "@memo";
  cache.holder_share = 1200;
  cache.path = path_to_cache();
  cache.path_kind = LeaksAnswer::Leak::PathKind::kOwners;
  cache.count = 1200;
  cache.bytes = 67'200;
  cache.retained_bytes = 67'200;
  cache.growth = {0, 600, 1200};
  cache.growing = cache.steady = true;
  cache.holds = {{"Pricing::Quote",
                  SiteRef{"app/pricing.rb", 32, "quote"},
                  600,
                  43'200,
                  {0, 300, 600},
                  true,
                  true,
                  0x30,
                  std::nullopt,
                  0,
                  43'200,
                  std::nullopt},
                 {"String",
                  SiteRef{"app/pricing.rb", 23, "format"},
                  600,
                  24'000,
                  {0, 300, 600},
                  true,
                  true,
                  0x38,
                  std::nullopt,
                  0,
                  24'000,
                  std::nullopt}};
  LeaksAnswer::Leak warm;
  warm.count = 900;
  warm.bytes = 124'000;
  warm.retained_bytes = 124'000;
  warm.growth = {0, 900, 900};
  warm.holds = {{"String",
                 std::nullopt,
                 900,
                 124'000,
                 {0, 900, 900},
                 false,
                 false,
                 0x40,
                 std::nullopt,
                 0,
                 124'000,
                 std::nullopt}};
  a.leaks = {cache, warm};
  return a;
}

LeaksAnswer one() {
  LeaksAnswer a;
  a.input.path = a.input.name = "app.json";
  a.inputs = {a.input};
  a.heap_bytes = 10 << 20;
  a.profiler_bytes = 1 << 20;
  a.threshold_percent = 10;
  a.found = 1;
  LeaksAnswer::Leak pages;
  pages.count = 2619;
  pages.bytes = 104'760;
  pages.retained_bytes = 711'000;
  pages.growth = {2619};
  pages.holds = {{"Shop::CachedPage",
                  SiteRef{"app/shop.rb", 40, "fetch"},
                  2600,
                  104'000,
                  {2600},
                  false,
                  false,
                  0x40,
                  std::nullopt,
                  0,
                  104'000,
                  std::nullopt},
                 {"Shop::CachedPage",
                  SiteRef{"lib/page.rb", 0, ""},
                  19,
                  760,
                  {19},
                  false,
                  false,
                  0x48,
                  std::nullopt,
                  0,
                  760,
                  std::nullopt}};
  pages.holder = object(0x20, "Hash");
  pages.holder_edge = "vm";
  pages.holder_share = 2619;
  pages.path = PathRef{"vm", {{object(0x20, "Hash"), ""}}, 0, 0, ""};
  pages.path_kind = LeaksAnswer::Leak::PathKind::kOwners;
  a.leaks = {pages};
  return a;
}

TEST(LeaksRender, JsonMatchesTheSchema) {
  for (const LeaksAnswer& a : {several(), one()}) {
    const std::string out = render::json(a);
    expect_valid(out, "leaks.schema.json");
  }
  const std::string out = render::json(several());
  EXPECT_NE(out.find(R"("matched_by": "generation")"), std::string::npos);
  EXPECT_NE(out.find(R"("holds": [)"), std::string::npos);
  EXPECT_NE(out.find(R"("method": "memo")"), std::string::npos)
      << "the holder's own allocation site\n"
      << out;
}

TEST(LeaksRender, Text) {
  EXPECT_EQ(render::text(several(), {80}),
            "3 dumps, d1.json to d3.json:\n"
            "2,100 objects of the last were born after the first.\n"
            "3 groups (class, allocation site) gained 10 or more, 2 still growing: 3 leaks.\n"
            "Objects matched by address, class and GC generation (memprof dumps match them\n"
            "    exactly).\n"
            "Leaks, steady growth first, then by the memory they hold:\n"
            "\n"
            "1. Held by Hash 0x20 (@memo)\n"
            "   allocated at app/pricing.rb:3 in memo\n"
            "   owned by: ROOT(vm) -> class Pricing @memo -> Hash 0x20\n"
            "   1,200 objects born after the first dump: 65.6 KiB, retaining 65.6 KiB\n"
            "   in each dump: 0 -> 600 -> 1,200 (grows between every two dumps)\n"
            "count     bytes  retaining  class           allocated at\n"
            "  600  42.2 KiB   42.2 KiB  Pricing::Quote  app/pricing.rb:32 in quote\n"
            "  600  23.4 KiB   23.4 KiB  String          app/pricing.rb:23 in format\n"
            "\n"
            "2. No single object holds it\n"
            "   900 objects born after the first dump: 121 KiB, retaining 121 KiB\n"
            "   in each dump: 0 -> 900 -> 900 (grew, then stopped: a warm-up?)\n"
            "count    bytes  retaining  class\n"
            "  900  121 KiB    121 KiB  String\n"
            "\n"
            "(1 more leak; --top 0 shows all)\n");
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
            "1. Held by Hash 0x20\n"
            "   owned by: ROOT(vm) -> Hash 0x20\n"
            "   2,619 held together: 102 KiB, retaining 694 KiB\n"
            "count    bytes  retaining  class             allocated at\n"
            "2,600  102 KiB    102 KiB  Shop::CachedPage  app/shop.rb:40 in fetch\n"
            "   19    760 B      760 B  Shop::CachedPage  lib/page.rb\n");
}

// memprof's allocation stacks: where a gem's line made them, the app's line is shown beside it,
// with how many of them it made when not all.
TEST(LeaksRender, AppLinesBesideGemSites) {
  LeaksAnswer a = several();
  a.leaks.resize(1);
  a.found = 1;
  LeaksAnswer::Leak& leak = a.leaks[0];
  leak.holder->site = SiteRef{"/gems/memo-1.0/lib/memo.rb", 7, "memoize"};
  leak.holder->app = SiteRef{"app/pricing.rb", 3, "memo"};
  leak.holds[0].app = leak.holds[0].site;  // the app's own line: nothing to add
  leak.holds[0].app_count = 600;
  leak.holds[1].site = SiteRef{"/gems/money-6.1/lib/money.rb", 40, "format"};
  leak.holds[1].app = SiteRef{"app/pricing.rb", 23, "quote"};
  leak.holds[1].app_count = 450;
  const std::string out = render::text(a, {140});
  EXPECT_NE(out.find("   allocated at memo-1.0/lib/memo.rb:7 in memoize,\n"
                     "   from the app's line app/pricing.rb:3 in memo\n"),
            std::string::npos)
      << out;
  // Beside the app's line, a gem's file from the gem's directory on; the app's line under it.
  EXPECT_NE(out.find("  600  42.2 KiB   42.2 KiB  Pricing::Quote  app/pricing.rb:32 in quote\n"
                     "  600  23.4 KiB   23.4 KiB  String          money-6.1/lib/money.rb:40 in "
                     "format\n"
                     "                            from the app's line app/pricing.rb:23 in "
                     "quote (450 of them)\n"),
            std::string::npos)
      << out;
  // In 80 columns, the note is cut, not the table.
  const std::string narrow = render::text(a, {80});
  EXPECT_NE(narrow.find("  money-6.1/lib/money.rb:40 in format\n"
                        "                            from the app's line app/pri…3 in quote"),
            std::string::npos)
      << narrow;
  const std::string json = render::json(a);
  expect_valid(json, "leaks.schema.json");
  EXPECT_NE(json.find(R"("app_count": 450)"), std::string::npos) << json;
}

// A leak the finalizers of dead objects may undo at the next GC says so, in text, JSON and the
// report's words.
TEST(LeaksRender, FinalizersThatMayUndoALeak) {
  LeaksAnswer a = several();
  a.leaks[0].pending_finalizers = 35;
  const std::string out = render::text(a, {80});
  EXPECT_NE(
      out.find("   in each dump: 0 -> 600 -> 1,200 (grows between every two dumps)\n"
               "   35 finalizers of objects already dead reach most of it: the next GC runs\n"
               "       them, and they may undo it (a dump after GC.start shows what stays)\n"),
      std::string::npos)
      << out;
  EXPECT_EQ(render::text(several(), {80}).find("finalizers"), std::string::npos);
  const std::string json = render::json(a);
  expect_valid(json, "leaks.schema.json");
  EXPECT_NE(json.find(R"("pending_finalizers": 35)"), std::string::npos) << json;
}

// A leak no object holds as much of as a GC root does directly: the root, and what it is.
TEST(LeaksRender, ALeakHeldByAGcRoot) {
  LeaksAnswer a = several();
  a.leaks.resize(1);
  a.found = 1;
  LeaksAnswer::Leak& leak = a.leaks[0];
  leak.holder.reset();
  leak.path.reset();
  leak.holder_edge.clear();
  leak.holder_root = "finalizers";
  leak.holder_root_names = {{"finalizers of Connection", 600}};
  leak.holder_share = 600;
  const std::string out = render::text(a, {100});
  EXPECT_NE(out.find("1. Held by a GC root: ROOT(finalizers), the finalizer table "
                     "(ObjectSpace.define_finalizer)\n"
                     "   finalizers of Connection (600 entries)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("   the root holds 600 of them directly, the other 600 through references\n"),
            std::string::npos)
      << out;
  const std::string json = render::json(a);
  expect_valid(json, "leaks.schema.json");
  EXPECT_NE(json.find(R"("holder_root": "finalizers")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("name": "finalizers of Connection")"), std::string::npos) << json;
  // Every root category of Ruby's is explained, and memprof's fork parent's.
  leak.holder_root = "end_proc";
  EXPECT_NE(render::text(a, {100}).find("ROOT(end_proc), at_exit blocks (Kernel#at_exit"),
            std::string::npos);
  leak.holder_root = "fork_parent:machine_context";
  EXPECT_NE(render::text(a, {0}).find("in the forking parent (not the fork child that dumped): "
                                      "a thread's machine stack"),
            std::string::npos)
      << render::text(a, {0});
  leak.holder_root = "\x1b[2Jevil";
  EXPECT_EQ(render::text(a, {100}).find('\x1b'), std::string::npos) << "a dump's string, escaped";
}

// Dumps of several processes: each process's answer under its pid, in text and JSON.
TEST(LeaksRender, OneAnswerPerProcess) {
  LeaksAnswer a;
  for (uint64_t pid : {4242u, 4343u}) {
    a.processes.push_back(several());
    a.processes.back().pid = pid;
  }
  // The same pid on another host is another process: the host tells them apart.
  a.processes.back().host = "web-2";
  a.processes.back().started = "2026-11-26T08:00:00+00:00";
  const std::string out = render::text(a, {100});
  EXPECT_EQ(out.find("The dumps are of 2 processes: "), 0u) << out;
  EXPECT_NE(out.find("\n  process 4242: 3 dumps, 3 leaks\n  process 4343 on web-2 (started "
                     "2026-11-26T08:00:00+00:00): 3 dumps, 3 leaks\n"),
            std::string::npos)
      << out;
  EXPECT_LT(out.find("\n== process 4242 ==\n3 dumps, "),
            out.find("\n== process 4343 on web-2 ==\n"))
      << out;
  const std::string json = render::json(a);
  expect_valid(json, "leaks.schema.json");
  EXPECT_NE(json.find(R"("pid": 4343)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("host": "web-2")"), std::string::npos) << json;
  a.processes.pop_back();
  EXPECT_FALSE(valid(render::json(a), "leaks.schema.json")) << "one process is no list";
}

// A leak holding more groups than a terminal shows lists the first and says how many more.
TEST(LeaksRender, TextCutsALongListOfGroups) {
  LeaksAnswer a = several();
  a.leaks.resize(1);
  a.found = 1;
  const LeaksAnswer::Held row = a.leaks[0].holds[0];
  a.leaks[0].holds.assign(12, row);
  const std::string out = render::text(a, {80});
  EXPECT_NE(out.find("(4 more groups; --format json lists all)\n"), std::string::npos) << out;
  EXPECT_EQ(render::json(a).find("(4 more"), std::string::npos);
}

}  // namespace
}  // namespace heapq

namespace heapq {
namespace {

// Names are cut to 100 columns in 80, to the width when it is wider, and not with --width 0.
TEST(LeaksRender, NamesAreCutOnlyAsTheWidthAsks) {
  LeaksAnswer a = several();
  const std::string name = "Module" + std::string(200, 'x') + "::Cache";
  a.leaks[0].holds[0].cls = name;
  EXPECT_NE(render::render(render::Answer(a), render::Format::kText, {0}).value().find(name),
            std::string::npos);
  EXPECT_EQ(render::render(render::Answer(a), render::Format::kText, {80}).value().find(name),
            std::string::npos);
  const std::string wide = render::render(render::Answer(a), render::Format::kText, {300}).value();
  EXPECT_NE(wide.find(name.substr(0, 120)), std::string::npos) << "cut at 300, not 100";
}

}  // namespace
}  // namespace heapq
