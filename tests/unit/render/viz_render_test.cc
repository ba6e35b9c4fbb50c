// heapq viz's renderers, on a picture built by hand: DOT, and SVG through graphviz.
#include <gtest/gtest.h>

#include "heapq/render/render.h"

namespace heapq {
namespace {

VizAnswer answer() {
  VizAnswer a;
  a.picture.caption = "Shop::Cart: 2 objects";
  a.picture.boxes = {{viz::BoxKind::kRoots, "GC roots", {}},
                     {viz::BoxKind::kTarget, "Shop::\"Cart\"\n<b>", {"0x30", "40 B itself"}}};
  a.picture.arrows = {{0, 1, "@carts [\"a\"]"}};
  return a;
}

TEST(VizRender, DotAndSvg) {
  const Result<std::string> dot =
      render::render(render::Answer(answer()), render::Format::kDot, {});
  ASSERT_TRUE(dot.ok());
  EXPECT_TRUE(dot.value().starts_with("digraph")) << dot.value();
  EXPECT_NE(dot.value().find("Shop::\\\"Cart\\\""), std::string::npos) << dot.value();
  EXPECT_EQ(dot.value().find("\n<b>"), std::string::npos) << "a newline in a label is escaped";
  const Result<std::string> svg =
      render::render(render::Answer(answer()), render::Format::kSvg, {});
  ASSERT_TRUE(svg.ok()) << svg.error().message;
  EXPECT_NE(svg.value().find("<svg"), std::string::npos);
  EXPECT_EQ(svg.value().find("<b>"), std::string::npos) << "markup from a dump is text";
}

}  // namespace
}  // namespace heapq
