// heapq load's renderers, on an answer built by hand.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "heapq/render/render.h"

namespace heapq {
namespace {

LoadAnswer answer() {
  LoadAnswer a;
  a.store = "/srv/dumps/app-server-7/stores/app.db";
  a.bytes = 5 << 20;
  a.dumps = {{3, "/srv/dumps/app-server-7/memprof-4242-20261124T101500.jsonl", 1, 250'000},
             {4, "d\x1b[2J.jsonl", 120'000, 1}};
  return a;
}

TEST(LoadRender, Json) {
  rapidjson::Document doc;
  doc.Parse(render::json(answer()).c_str());
  ASSERT_FALSE(doc.HasParseError());
  EXPECT_EQ(doc["bytes"].GetUint64(), 5u << 20);
  EXPECT_EQ(doc["dumps"][1]["id"].GetInt64(), 4);
  EXPECT_STREQ(doc["dumps"][1]["path"].GetString(), "d\x1b[2J.jsonl");
}

// Store and dump paths share a line: too long, each gives up its middle, neither all its room.
TEST(LoadRender, Text) {
  EXPECT_EQ(
      render::text(answer(), {80}),
      "/srv/\u2026r-7/stores/app.db#3: /srv/\u20261124T101500.jsonl, 1 object, 250,000 references\n"
      "/srv/dum\u2026pp-server-7/stores/app.db#4: d\\e[2J.jsonl, 120,000 objects, 1 reference\n"
      "/srv/dumps/app-server-7/stores/app.db: 5.00 MiB\n");
}

}  // namespace
}  // namespace heapq
