// What grows in one process from its sampled profiles alone.
#include "heapq/analyze/profile_growth.h"

#include <gtest/gtest.h>

namespace heapq {
namespace {

constexpr int64_t kHour = 3'600'000'000'000;

// A profile at hour h with samples {frames (file:line of each, innermost first), class,
// live objects}; each object 40 bytes.
SampledProfile at_hour(int h, std::vector<std::pair<std::vector<std::string>, int64_t>> samples,
                       int64_t period = 1, std::string klass = "Order") {
  SampledProfile p;
  p.host = "web-1";
  p.pid = 42;
  p.period = period;
  p.time_nanos = 1'800'000'000'000'000'000 + h * kHour;
  for (auto& [files, objects] : samples) {
    SampledProfile::Sample s;
    for (const std::string& file : files) {
      s.frames.push_back(static_cast<uint32_t>(p.frames.size()));
      p.frames.push_back({"f", file, 7});
    }
    s.class_name = klass;
    s.inuse_objects = objects;
    s.inuse_bytes = objects * 40;
    s.alloc_objects = objects;
    s.alloc_bytes = objects * 40;
    p.samples.push_back(std::move(s));
  }
  return p;
}

std::vector<const SampledProfile*> ptrs(const std::vector<SampledProfile>& v) {
  std::vector<const SampledProfile*> out;
  for (const SampledProfile& p : v) out.push_back(&p);
  return out;
}

TEST(ProfileGrowth, TheSiteThatOnlyGrowsAtItsAppFrame) {
  const std::string gem = "/usr/share/gems/gems/rack-2.2.3/lib/rack/session.rb";
  const std::string app = "/srv/shop/app/models/cart.rb";
  std::vector<SampledProfile> v = {
      at_hour(0, {{{gem, app}, 100}, {{"/srv/shop/app/jobs/churn.rb"}, 50}, {{app}, 10}}),
      at_hour(1, {{{gem, app}, 200}, {{"/srv/shop/app/jobs/churn.rb"}, 90}, {{app}, 10}}),
      at_hour(2, {{{gem, app}, 300}, {{"/srv/shop/app/jobs/churn.rb"}, 60}, {{app}, 10}}),
  };
  auto g = process_growth(ptrs(v), 0);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->host, "web-1");
  EXPECT_EQ(g->pid, 42u);
  ASSERT_EQ(g->growing.size(), 1u) << "the churn rose and fell; the flat site stayed";
  const SiteGrowth& s = g->growing[0];
  EXPECT_EQ(s.file, app) << "the app's frame, not the gem's";
  EXPECT_EQ(s.class_name, "Order");
  // The gem-then-app sample and the app-only one share the site (app.rb:7, Order).
  EXPECT_EQ(s.objects, (std::vector<int64_t>{110, 210, 310}));
  EXPECT_DOUBLE_EQ(s.objects_per_hour, 100.0);
  EXPECT_DOUBLE_EQ(s.bytes_per_hour, 4000.0);
  EXPECT_EQ(g->heap_bytes, (std::vector<int64_t>{160 * 40, 300 * 40, 370 * 40}));
}

// What a store keeps of one profile: its live estimates by site and class, the samples of one
// site summed, a sample of no frame with a file at no site.
TEST(ProfileGrowth, SiteCountsOfOneProfile) {
  const std::string gem = "/usr/share/gems/gems/rack-2.2.3/lib/rack/session.rb";
  SampledProfile p =
      at_hour(0, {{{gem, "app/cart.rb"}, 100}, {{"app/cart.rb"}, 10}, {{gem}, 5}, {{}, 3}});
  const std::vector<FleetCount> counts = profile_site_counts(p);
  ASSERT_EQ(counts.size(), 3u);
  EXPECT_EQ(counts[0].file, "app/cart.rb");
  EXPECT_EQ(counts[0].line, 7u);
  EXPECT_EQ(counts[0].method, "f");
  EXPECT_EQ(counts[0].class_name, "Order");
  EXPECT_EQ(counts[0].count, 110u);
  EXPECT_EQ(counts[0].bytes, 4400u);
  EXPECT_EQ(counts[1].file, gem) << "no app frame: the innermost with a file";
  EXPECT_EQ(counts[2].file, "") << "no frame: no site";
  EXPECT_EQ(counts[2].count, 3u);
}

TEST(ProfileGrowth, ProfilesInAnyOrder) {
  std::vector<SampledProfile> v = {at_hour(2, {{{"a.rb"}, 30}}), at_hour(0, {{{"a.rb"}, 10}}),
                                   at_hour(1, {{{"a.rb"}, 20}})};
  auto g = process_growth(ptrs(v), 0);
  ASSERT_TRUE(g.ok()) << g.error().message;
  ASSERT_EQ(g->growing.size(), 1u);
  EXPECT_EQ(g->growing[0].objects, (std::vector<int64_t>{10, 20, 30}));
  EXPECT_LT(g->times_nanos[0], g->times_nanos[2]);
  EXPECT_EQ(g->order, (std::vector<size_t>{1, 2, 0})) << "the profiles given, oldest first";
}

// One more sampled object at 1 in 32 is chance; two are a trend.
TEST(ProfileGrowth, AtLeastTwoSampledObjects) {
  std::vector<SampledProfile> one = {at_hour(0, {{{"a.rb"}, 320}}, 32),
                                     at_hour(1, {{{"a.rb"}, 352}}, 32)};
  auto g = process_growth(ptrs(one), 0);
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->growing.empty());
  std::vector<SampledProfile> two = {at_hour(0, {{{"a.rb"}, 320}}, 32),
                                     at_hour(1, {{{"a.rb"}, 384}}, 32)};
  g = process_growth(ptrs(two), 0);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->growing.size(), 1u);
}

TEST(ProfileGrowth, MostBytesGrownFirstAndTop) {
  std::vector<SampledProfile> v = {at_hour(0, {{{"a.rb"}, 10}, {{"b.rb"}, 10}, {{"c.rb"}, 10}}),
                                   at_hour(1, {{{"a.rb"}, 20}, {{"b.rb"}, 90}, {{"c.rb"}, 50}})};
  auto g = process_growth(ptrs(v), 2);
  ASSERT_TRUE(g.ok());
  ASSERT_EQ(g->growing.size(), 2u);
  EXPECT_EQ(g->growing[0].file, "b.rb");
  EXPECT_EQ(g->growing[1].file, "c.rb");
}

TEST(ProfileGrowth, OneProcessAtDistinctTimes) {
  std::vector<SampledProfile> v = {at_hour(0, {}), at_hour(1, {})};
  v[1].pid = 43;
  auto g = process_growth(ptrs(v), 0);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().message,
            "profiles of two processes (host web-1 pid 42, host web-1 pid 43): growth compares "
            "one process over time");
  v[1].pid = 42;
  v[1].time_nanos = v[0].time_nanos;
  g = process_growth(ptrs(v), 0);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("same time"), std::string::npos);
  g = process_growth(ptrs({v[0]}), 0);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code, ExitCode::kUsage);
}

}  // namespace
}  // namespace heapq
