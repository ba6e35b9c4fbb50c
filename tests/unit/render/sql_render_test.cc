// heapq sql's renderers, fed rows by hand as run_sql would: text, JSON, CSV.
#include <gtest/gtest.h>

#include <cmath>

#include "heapq/render/sql.h"

namespace heapq {
namespace {

std::string rendered(render::Format format, size_t width = 80) {
  std::string out;
  auto sink = render::sql_renderer(format, {width}, [&](std::string_view s) {
    out += s;
    return true;
  });
  EXPECT_TRUE(sink->columns({"class", "n", "share"}).ok());
  EXPECT_TRUE(sink->row({std::string("Shop::\x1b[2JCart"), int64_t(1200), 0.5}).ok());
  EXPECT_TRUE(sink->row({std::string("a,\"b\""), int64_t(-3), std::monostate()}).ok());
  EXPECT_TRUE(sink->columns({"x"}).ok());
  EXPECT_TRUE(sink->row({std::nan("")}).ok());
  EXPECT_TRUE(sink->finish().ok());
  return out;
}

TEST(SqlRender, Text) {
  EXPECT_EQ(rendered(render::Format::kText),
            "class               n  share\n"
            "Shop::\\e[2JCart  1200    0.5\n"
            "a,\"b\"              -3   NULL\n"
            "(2 rows)\n"
            "  x\n"
            "nan\n"
            "(1 row)\n");
}

TEST(SqlRender, JsonAndCsv) {
  EXPECT_EQ(rendered(render::Format::kJson),
            "[\n    {\n        \"class\": \"Shop::\\u001B[2JCart\",\n        \"n\": 1200,\n"
            "        \"share\": 0.5\n    },\n    {\n        \"class\": \"a,\\\"b\\\"\",\n"
            "        \"n\": -3,\n        \"share\": null\n    },\n    {\n        \"x\": null\n    "
            "}\n]\n");
  EXPECT_EQ(rendered(render::Format::kCsv),
            "class,n,share\r\nShop::\\e[2JCart,1200,0.5\r\n\"a,\"\"b\"\"\",-3,\r\nx\r\nnan\r\n");
}

}  // namespace
}  // namespace heapq
