// heapq report's page, from answers built by hand: what each part of the answer becomes.
#include <gtest/gtest.h>

#include "heapq/render/render.h"

namespace heapq {
namespace {

ReportAnswer answer() {
  ReportAnswer a;
  a.stats.objects = 3;
  a.stats.bytes = 120;
  a.stats.classes = 1;
  a.stats.by_class = {{"<script>alert(1)</script>", 3, 120, 120}};
  a.sites.objects_with_site = 1;
  a.sites.rows = {
      {std::string("app/cart.rb"), 12, "new", "Shop::Cart", true, "", "", "", 1, 40, 40}};
  a.leaks.input.path = "d2.json";
  a.leaks.inputs.resize(2);
  a.leaks.inputs[0].path = "d1.json";
  a.leaks.inputs[1].path = "d2.json";
  a.leaks.several = true;
  a.leaks.born = 1;
  a.leaks.groups_growing = 1;
  a.leaks.groups = 1;
  a.leaks.found = 1;
  LeaksAnswer::Leak s;
  s.count = 1;
  s.growth = {0, 1};
  s.growing = s.steady = true;
  s.holds = {{"Shop::Cart",
              SiteRef{"app/cart.rb", 12, "new"},
              1,
              40,
              {0, 1},
              true,
              true,
              0x30,
              std::nullopt,
              0,
              40,
              std::nullopt}};
  s.holder =
      ObjectRef{0x20, "Hash", SiteRef{"app/shop.rb", 3, "initialize"}, std::nullopt, std::nullopt};
  s.holder_share = 1;
  s.path = PathRef{"vm", {{*s.holder, ""}}, 0, 0, ""};
  s.path_kind = LeaksAnswer::Leak::PathKind::kOwners;
  a.leaks.leaks = {s};
  ReportAnswer::LeakPicture p;
  p.picture.boxes = {{viz::BoxKind::kRoots, "GC roots", {}}, {viz::BoxKind::kHolder, "Hash", {}}};
  p.picture.arrows = {{0, 1, ""}};
  p.holder_drawn = true;
  a.pictures = {p};
  a.reachable_objects = 3;
  a.reachable_bytes = 120;
  return a;
}

TEST(ReportRender, Page) {
  const std::string page = render::html(answer());
  EXPECT_NE(page.find("heapq report: d2.json"), std::string::npos);
  EXPECT_NE(page.find("2, d1.json to d2.json"), std::string::npos);
  EXPECT_NE(page.find("1 object of the last dump was born after the first; 1 group"),
            std::string::npos);
  EXPECT_NE(page.find("Held by Hash 0x20, allocated at app/shop.rb:3 in initialize"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<td>Shop::Cart</td><td>app/cart.rb:12 in new</td>"), std::string::npos)
      << "what the leak holds, a row per class and site";
  EXPECT_NE(page.find("the holder is drawn in red"), std::string::npos);
  EXPECT_NE(page.find("owned by: ROOT(vm) -&gt; Hash 0x20"), std::string::npos) << page;
  EXPECT_NE(page.find("<svg"), std::string::npos) << "the leak's picture, laid out by graphviz";
  EXPECT_EQ(page.find("<script>alert(1)</script>"), std::string::npos) << "a class name is text";
}

}  // namespace
}  // namespace heapq
