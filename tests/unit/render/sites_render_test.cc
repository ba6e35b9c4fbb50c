// heapq sites' renderers, on answers built by hand: by site and by gem.
#include <gtest/gtest.h>

#include "heapq/render/render.h"
#include "schema_check.h"

namespace heapq {
namespace {

SitesAnswer by_site() {
  SitesAnswer a;
  a.input.path = a.input.name = "app.json";
  a.objects_with_site = 3;
  a.groups = 3;
  SitesAnswer::Row cart;
  cart.file = "app/cart.rb";
  cart.line = 12;
  cart.method = "new";
  cart.cls = "Shop::Cart";
  cart.has_class = true;
  cart.count = 2;
  cart.bytes = 80;
  cart.retained_bytes = 4'096;
  SitesAnswer::Row none;
  none.cls = "String";
  none.has_class = true;
  none.count = 1;
  none.bytes = 40;
  none.retained_bytes = 40;
  a.rows = {cart, none};
  return a;
}

SitesAnswer by_gem() {
  SitesAnswer a = by_site();
  a.by = SiteGrouping::kGem;
  a.groups = 2;
  a.rows.resize(2);
  a.rows[0] = {std::string("/gems/rack-2.2.3/lib/rack.rb"),
               0,
               "",
               "(no class)",
               false,
               "rack-2.2.3",
               "rack",
               "2.2.3",
               5,
               200,
               std::nullopt};
  a.rows[1] = {std::nullopt, 0, "", "(no class)", false, "(app)", "(app)", "", 1, 40, std::nullopt};
  return a;
}

TEST(SitesRender, JsonMatchesTheSchema) {
  const std::string site = render::json(by_site());
  expect_valid(site, "sites.schema.json");
  EXPECT_NE(site.find(R"("file": null)"), std::string::npos) << site;
  const std::string gem = render::json(by_gem());
  expect_valid(gem, "sites.schema.json");
  EXPECT_NE(gem.find(R"("version": "2.2.3")"), std::string::npos) << gem;
}

TEST(SitesRender, Text) {
  EXPECT_EQ(render::text(by_site(), {80}),
            "count  bytes  retained  site                  method  class\n"
            "    2   80 B  4.00 KiB  app/cart.rb:12        new     Shop::Cart\n"
            "    1   40 B      40 B  (no allocation site)          String\n"
            "(1 more; --top 0 lists all)\n");
  SitesAnswer none = by_gem();
  none.objects_with_site = 0;
  EXPECT_EQ(render::text(none, {80}),
            "No object in app.json has an allocation site: dump a process that traces\n"
            "allocations (ObjectSpace.trace_object_allocations_start, or Memprof.start).\n"
            "\n"
            "count  bytes  gem\n"
            "    5  200 B  rack-2.2.3\n"
            "    1   40 B  (app)\n");
}

}  // namespace
}  // namespace heapq
