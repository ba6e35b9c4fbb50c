// heapq strings' renderers, on an answer built by hand.
#include <gtest/gtest.h>

#include "heapq/render/render.h"
#include "schema_check.h"

namespace heapq {
namespace {

StringsAnswer answer() {
  StringsAnswer a;
  a.input.path = a.input.name = "app.json";
  a.strings = 10;
  a.with_value = 9;
  a.distinct = 4;
  a.duplicated = 2;
  a.copies = 7;
  a.wasted_bytes = 400;
  StringsAnswer::Row sku;
  sku.value = {"sku", false, 3, std::nullopt};
  sku.count = 5;
  sku.bytes = 200;
  sku.wasted_bytes = 160;
  sku.frozen = 1;
  sku.sites = {{SiteRef{"app/cart.rb", 5, "add"}, 4}, {std::nullopt, 1}};
  StringsAnswer::Row hostile;
  hostile.value = {std::string("\x1b[31mred\n") + std::string(60, 'x'), true, 4000, 0xdeadbeef};
  hostile.count = 2;
  hostile.bytes = 8082;
  hostile.wasted_bytes = 4041;
  a.rows = {sku, hostile};
  a.copying_sites = {{SiteRef{"app/cart.rb", 5, "add"}, sku.value, 4, 160}};
  return a;
}

TEST(StringsRender, TextCutsAndEscapesValues) {
  const std::string out = render::text(answer(), {80});
  EXPECT_NE(out.find("app.json: 10 strings, 9 with their value: 4 distinct values."),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\"sku\""), std::string::npos);
  EXPECT_NE(out.find("made at app/cart.rb:5 in add (4), (no allocation site) (1)"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << "no raw escape reaches the terminal";
  EXPECT_NE(out.find("\"\\e[31m"), std::string::npos) << out;
  EXPECT_NE(out.find("\"\u2026"), std::string::npos) << "a cut value ends in an ellipsis";
  EXPECT_NE(out.find("Lines that make copies of one value:"), std::string::npos);
  for (size_t at = 0, nl; (nl = out.find('\n', at)) != std::string::npos; at = nl + 1)
    EXPECT_LE(out.substr(at, nl - at).size(), 80u + 2 * 3);  // "…" is 3 bytes, 1 column
}

TEST(StringsRender, JsonKeepsValuesWholeAndMatchesTheSchema) {
  const std::string out = render::json(answer());
  expect_valid(out, "strings.schema.json");
  EXPECT_NE(out.find(R"("\u001B[31mred\n)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("value_hash": "00000000deadbeef")"), std::string::npos);
  EXPECT_NE(out.find(std::string(60, 'x')), std::string::npos);
}

TEST(StringsRender, SaysSoWhenNothingIsDuplicated) {
  StringsAnswer a = answer();
  a.duplicated = 0;
  a.rows.clear();
  a.copying_sites.clear();
  EXPECT_NE(render::text(a, {80}).find("No value is held by two strings or more."),
            std::string::npos);
}

}  // namespace
}  // namespace heapq
