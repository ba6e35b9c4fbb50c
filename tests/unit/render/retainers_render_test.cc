// heapq retainers' renderers, on answers built by hand: an object and a class target.
#include <gtest/gtest.h>

#include "heapq/render/render.h"
#include "render/answer_parts.h"
#include "schema_check.h"

namespace heapq {
namespace {

using testing::object;

PathRef cart_path() {
  PathRef p;
  p.root = "global_tbl";
  p.steps = {{object(0x10, "Shop"), ""},
             {object(0x20, "Hash"), "@carts"},
             {object(0x30, "Shop::Cart"), "[\"sku\n1\"]"}};
  return p;
}

RetainersAnswer object_answer() {
  RetainersAnswer a;
  a.input.path = a.input.name = "app.json";
  a.object = object(0x30, "Shop::Cart");
  a.object->site = SiteRef{"app/cart.rb", 12, "new"};
  a.bytes = 40;
  a.max_depth = 64;
  a.referrers_asked = true;
  a.paths = {cart_path()};
  ObjectRef proc = object(0x40, "Proc");
  proc.block = SiteRef{"app/hooks.rb", 7, ""};
  a.referrers = {
      {std::nullopt, "machine_context"}, {proc, ""}, {object(0x20, "Hash"), "[\"sku\n1\"]"}};
  return a;
}

RetainersAnswer class_answer() {
  RetainersAnswer a;
  a.input.path = a.input.name = "app.json";
  a.cls = "Shop::Cart";
  a.instances = 1200;
  a.bytes = 48'000;
  a.max_depth = 64;
  a.referrers_asked = true;
  PathRef elided = cart_path();
  elided.elided_after = 1;
  elided.elided = 1;
  a.groups = {{1000, 40'000, false, false, cart_path()}, {199, 7'960, true, true, elided}};
  a.more_groups = 1;
  a.unreachable = 1;
  a.referrer_groups = {{"Hash", "", "[]", 1000}, {"Proc", "app/hooks.rb:7", "", 1}};
  return a;
}

TEST(RetainersRender, JsonMatchesTheSchema) {
  const std::string object_json = render::json(object_answer());
  expect_valid(object_json, "retainers.schema.json");
  EXPECT_NE(object_json.find(R"("root": "global_tbl")"), std::string::npos) << object_json;
  EXPECT_NE(object_json.find(R"("class": "ROOT")"), std::string::npos) << object_json;
  const std::string class_json = render::json(class_answer());
  expect_valid(class_json, "retainers.schema.json");
  EXPECT_NE(class_json.find(R"("elided": 1)"), std::string::npos) << class_json;
  EXPECT_NE(class_json.find(R"("unreachable": 1)"), std::string::npos) << class_json;
}

// A reference name's newline is escaped: it never starts a line of its own.
TEST(RetainersRender, Text) {
  EXPECT_EQ(render::text(object_answer(), {80}),
            "Shop::Cart 0x30 (40 B, allocated at app/cart.rb:12 in new)\n"
            "shortest paths from the GC roots, each through a different referrer:\n"
            "1. ROOT(global_tbl) -> Shop @carts -> Hash [\"sku\\n1\"] -> Shop::Cart 0x30\n"
            "referenced by:\n"
            "  ROOT(machine_context)\n"
            "  Proc (block at app/hooks.rb:7) 0x40\n"
            "  Hash 0x20 [\"sku\\n1\"]\n");
  EXPECT_EQ(render::text(class_answer(), {80}),
            "Shop::Cart: 1,200 instances, 46.9 KiB\n"
            "shortest paths from the GC roots, merged by shape (count, bytes, an example):\n"
            "1,000  39.1 KiB  ROOT(global_tbl) -> Shop @carts -> Hash [\"sku\\n1\"]\n"
            "                   -> Shop::Cart 0x30\n"
            "199  7.77 KiB  ROOT(global_tbl) -> Shop @carts -> ... (1 step) ...\n"
            "                 -> Hash [\"sku\\n1\"] -> Shop::Cart 0x30\n"
            "    (a chain: a step of this shape repeats, as in a linked list)\n"
            "    (and paths deeper than --max-depth 64 merged here)\n"
            "(1 more shape; --paths N shows more)\n"
            "1 instance is not reachable from the roots (garbage not yet swept)\n"
            "referenced by (class, reference, count):\n"
            "  Hash []  1,000\n"
            "  Proc (block at app/hooks.rb:7)  1\n");
}

// A dump that lacks objects its records reference (ObjectSpace's of a running program): what
// the roots do not reach may be alive, held by those, and is never called garbage.
TEST(RetainersRender, UnreachableInADumpThatLacksObjectsIsNotCalledGarbage) {
  RetainersAnswer a = class_answer();
  a.input.report.dangling_references = 309;
  a.input.incomplete = true;
  const std::string text = render::text(a, {0});
  EXPECT_EQ(text.find("garbage"), std::string::npos) << text;
  EXPECT_NE(text.find("1 instance is not reachable from the roots (309 references point to "
                      "objects missing from the dump: some may be alive, held by those)"),
            std::string::npos)
      << text;
  RetainersAnswer o = object_answer();
  o.paths.clear();
  o.input = a.input;
  const std::string object_text = render::text(o, {0});
  EXPECT_NE(object_text.find("not reachable from the GC roots through the objects the dump has: "
                             "held by one of the objects missing from the dump (309 references "
                             "point to them)"),
            std::string::npos)
      << object_text;
  const std::string json = render::json(a);
  expect_valid(json, "retainers.schema.json");
  EXPECT_NE(json.find(R"("incomplete": true)"), std::string::npos) << json;
}

}  // namespace
}  // namespace heapq
