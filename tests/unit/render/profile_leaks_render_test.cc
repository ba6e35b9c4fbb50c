// heapq leaks over sampled profiles, rendered from answers built by hand.
#include <gtest/gtest.h>

#include "heapq/render/render.h"
#include "schema_check.h"

namespace heapq {
namespace {

ProfileLeaksAnswer two_processes() {
  ProfileLeaksAnswer a;
  ProfileLeaksAnswer::Process& leaky = a.processes.emplace_back();
  leaky.host = "web-1";
  leaky.pid = 42;
  leaky.started = "2026-11-28T09:00:00+00:00";
  leaky.inputs = {{"p1.pb.gz", "2026-11-28T10:00:00.000000Z", 32, 12},
                  {"p2.pb.gz", "2026-11-28T11:00:00.000000Z", 32, 14}};
  leaky.heap_bytes = {1 << 20, 2 << 20};
  leaky.found = 2;
  SiteGrowth cart;
  cart.file = "/srv/shop/app/models/cart.rb";
  cart.line = 12;
  cart.function = "Cart#add";
  cart.class_name = "LineItem";
  cart.objects = {320, 6400};
  cart.bytes = {12800, 256000};
  cart.objects_per_hour = 6080;
  cart.bytes_per_hour = 243200;
  leaky.growing = {cart};
  ProfileLeaksAnswer::Process& quiet = a.processes.emplace_back();
  quiet.pid = 43;
  quiet.inputs = {{"q1.pb.gz", "", 1, 3}, {"q2.pb.gz", "", 1, 3}};
  quiet.heap_bytes = {4000, 4000};
  return a;
}

TEST(ProfileLeaksRender, Text) {
  const std::string text = render::text(two_processes(), {0});
  for (const char* line :
       {"2 sampled profiles of web-1 pid 42 started 2026-11-28T09:00:00+00:00, "
        "2026-11-28T10:00:00.000000Z to 2026-11-28T11:00:00.000000Z:\n",
        "1 in 32 allocations sampled: the counts are estimates",
        "Live heap, estimated: 1.00 MiB -> 2.00 MiB\n", "2 sites grow (",
        "1. LineItem allocated at /srv/shop/app/models/cart.rb:12 in Cart#add\n",
        "   objects: 320 -> 6,400 (+6,080/h); bytes: 12.5 KiB -> 250 KiB (+238 KiB/h)\n",
        "(1 more site grows; --top 0 lists all)\n",
        "2 sampled profiles of (unknown host) pid 43:\n", "Nothing grows", "name the holder"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;
  EXPECT_EQ(text.find("allocations sampled", text.find("pid 43")), std::string::npos)
      << "every allocation sampled: counts, not estimates";
}

TEST(ProfileLeaksRender, JsonMatchesTheSchema) {
  const std::string json = render::json(two_processes());
  expect_valid(json, "leaks.schema.json");
  rapidjson::Document d;
  d.Parse(json.c_str());
  ASSERT_TRUE(d.IsObject());
  EXPECT_STREQ(d["from"].GetString(), "profiles");
  const auto& site = d["processes"][0]["growing"][0];
  EXPECT_STREQ(site["site"]["method"].GetString(), "Cart#add");
  EXPECT_EQ(site["objects"][1].GetInt64(), 6400);
  EXPECT_TRUE(d["processes"][1]["host"].IsNull());
}

// A stranger's profile names what it likes: control characters are escaped in text.
TEST(ProfileLeaksRender, HostileNamesAreEscaped) {
  ProfileLeaksAnswer a = two_processes();
  a.processes[0].growing[0].class_name = "Evil\x1b[2J";
  a.processes[0].host = "host\nname";
  const std::string text = render::text(a, {0});
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("Evil\\e[2J"), std::string::npos) << text;
  EXPECT_NE(text.find("host\\nname"), std::string::npos) << text;
  expect_valid(render::json(a), "leaks.schema.json");
}

}  // namespace
}  // namespace heapq
