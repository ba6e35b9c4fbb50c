// heapq stats' renderers, on answers built by hand: no dump, no command line.
#include <gtest/gtest.h>

#include "heapq/render/render.h"
#include "schema_check.h"

namespace heapq {
namespace {

StatsAnswer sample_answer() {
  StatsAnswer a;
  a.input.path = "app.json";
  a.input.name = "app.json";
  a.input.report.lines = 6;
  a.input.report.objects = 5;
  a.input.report.roots = 1;
  a.input.warnings = {"app.json: 1 bad line skipped (line 3: not JSON)"};
  a.objects = 5;
  a.bytes = 1'234'567;
  a.by_type = {{"STRING", 3, 1'234'000}, {"HASH", 2, 567}};
  a.classes = 3;
  a.by_class = {{"String", 3, 1'234'000, 1'234'000}, {"Shop::\x1b[2JCart", 1, 400, 567}};
  return a;
}

TEST(StatsRender, JsonMatchesTheSchema) {
  const std::string out = render::json(sample_answer());
  expect_valid(out, "stats.schema.json");
  EXPECT_NE(out.find(R"("class": "Shop::\u001B[2JCart")"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("retained_bytes": 567)"), std::string::npos) << out;
  StatsAnswer without = sample_answer();
  for (auto& c : without.by_class) c.retained_bytes.reset();
  const std::string nulls = render::json(without);
  expect_valid(nulls, "stats.schema.json");
  EXPECT_NE(nulls.find(R"("retained_bytes": null)"), std::string::npos) << nulls;
}

TEST(StatsRender, Text) {
  EXPECT_EQ(render::text(sample_answer(), {80}),
            "app.json: 5 objects, 1.18 MiB (1,234,567 bytes)\n"
            "\n"
            "type    count     bytes\n"
            "STRING      3  1.18 MiB\n"
            "HASH        2     567 B\n"
            "\n"
            "class            count     bytes  retained\n"
            "String               3  1.18 MiB  1.18 MiB\n"
            "Shop::\\e[2JCart      1     400 B     567 B\n"
            "(1 more class; --top 0 lists all)\n");
  // Narrow: the heading wraps; a table that cannot fit even cut shows a row at a time.
  EXPECT_EQ(render::text(sample_answer(), {34}),
            "app.json: 5 objects, 1.18 MiB\n"
            "    (1,234,567 bytes)\n"
            "\n"
            "type    count     bytes\n"
            "STRING      3  1.18 MiB\n"
            "HASH        2     567 B\n"
            "\n"
            "class     String\n"
            "count     3\n"
            "bytes     1.18 MiB\n"
            "retained  1.18 MiB\n"
            "\n"
            "class     Shop::\\e[2JCart\n"
            "count     1\n"
            "bytes     400 B\n"
            "retained  567 B\n"
            "(1 more class; --top 0 lists all)\n");
}

// What the dumper could not name (memprof's META "unnamed"): said under the heading, escaped;
// in JSON with the input.
TEST(StatsRender, SaysWhatTheDumperCouldNotName) {
  StatsAnswer a = sample_answer();
  a.input.report.origin.unnamed = {"constants", "hash\x1b[2Jdefaults"};
  const std::string text = render::text(a, {80});
  EXPECT_NE(text.find("app.json: 5 objects, 1.18 MiB (1,234,567 bytes)\n"
                      "references memprof could not name in this dump: constants, "
                      "hash\\e[2Jdefaults\n\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(render::text(sample_answer(), {80}).find("could not name"), std::string::npos);
  const std::string json = render::json(a);
  expect_valid(json, "stats.schema.json");
  EXPECT_NE(json.find(R"("unnamed": [)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("hash\u001B[2Jdefaults")"), std::string::npos) << json;
  EXPECT_NE(render::json(sample_answer()).find(R"("unnamed": [])"), std::string::npos);
}

}  // namespace
}  // namespace heapq
