// heapq dominators' renderers, on answers built by hand: the list, and the tree.
#include <gtest/gtest.h>

#include "heapq/render/render.h"
#include "render/answer_parts.h"
#include "schema_check.h"

namespace heapq {
namespace {

DominatorsAnswer::Node node(uint64_t address, std::string cls, uint64_t retained, uint64_t count) {
  DominatorsAnswer::Node n;
  n.object = testing::object(address, std::move(cls));
  n.bytes = 40;
  n.retained_bytes = retained;
  n.retained_count = count;
  return n;
}

DominatorsAnswer list() {
  DominatorsAnswer a;
  a.input.path = a.input.name = "app.json";
  a.reachable_count = 3;
  a.reachable_bytes = 2'048;
  a.unreachable_count = 1;
  a.unreachable_bytes = 40;
  DominatorsAnswer::Node cache = node(0x20, "Hash", 2'000, 2);
  cache.object.site = SiteRef{"app/cache.rb", 3, "initialize"};
  a.dominators = {{cache, PathRef{"vm", {{cache.object, ""}}, 0, 0, ""}}};
  return a;
}

DominatorsAnswer tree() {
  DominatorsAnswer a = list();
  a.dominators.clear();
  a.tree = true;
  a.tree_depth = 2;
  DominatorsAnswer::TreeEntry roots;
  roots.roots = true;
  roots.node.retained_bytes = 2'048;
  DominatorsAnswer::TreeEntry hash{1, false, 0, node(0x20, "Hash", 2'000, 2)};
  DominatorsAnswer::TreeEntry string{2, false, 0, node(0x30, "String", 1'960, 1)};
  DominatorsAnswer::TreeEntry more{1, false, 3, {}};
  a.entries = {roots, hash, string, more};
  return a;
}

TEST(DominatorsRender, JsonMatchesTheSchema) {
  expect_valid(render::json(list()), "dominators.schema.json");
  const std::string t = render::json(tree());
  expect_valid(t, "dominators.schema.json");
  EXPECT_NE(t.find("\"class\": \"(roots)\""), std::string::npos) << t;
}

TEST(DominatorsRender, UnreachableInADumpThatLacksObjectsIsNotCalledGarbage) {
  DominatorsAnswer a = list();
  a.input.report.dangling_references = 1;
  a.input.incomplete = true;
  const std::string text = render::text(a, {0});
  EXPECT_NE(text.find("1 unreachable object (40 B, 1 reference points to objects missing from "
                      "the dump: some may be alive, held by those) left out"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("garbage"), std::string::npos) << text;
}

TEST(DominatorsRender, Text) {
  EXPECT_EQ(render::text(list(), {80}),
            "app.json: 2.00 KiB in 3 objects reachable from the roots; 1 unreachable object\n"
            "    (40 B, garbage not yet swept) left out\n"
            "\n"
            "1. 1.95 KiB in 2 objects: Hash 0x20 (app/cache.rb:3 in initialize)\n"
            "   ROOT(vm) -> Hash 0x20\n");
  EXPECT_EQ(render::text(tree(), {80}),
            "(roots) 2.00 KiB\n"
            "  1.95 KiB in 2 objects: Hash 0x20\n"
            "    1.91 KiB in 1 object: String 0x30\n"
            "  (3 more)\n");
}

// A root that names what it holds (memprof's finalizer table: whose finalizers) says so after
// its category, in text and JSON.
TEST(DominatorsRender, ARootsNameFollowsItsCategory) {
  DominatorsAnswer a = list();
  a.dominators[0].path = PathRef{"finalizers",
                                 {{a.dominators[0].node.object, ""}},
                                 0,
                                 0,
                                 "finalizers of Rack::ServerStatus 0x10"};
  EXPECT_NE(render::text(a, {100}).find(
                "   ROOT(finalizers) finalizers of Rack::ServerStatus 0x10 -> Hash 0x20\n"),
            std::string::npos)
      << render::text(a, {100});
  const std::string json = render::json(a);
  expect_valid(json, "dominators.schema.json");
  EXPECT_NE(json.find(R"("root_name": "finalizers of Rack::ServerStatus 0x10")"), std::string::npos)
      << json;
}

}  // namespace
}  // namespace heapq
