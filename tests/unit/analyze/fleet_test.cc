// analyze_fleet on dumps built by hand, and its renderers.
#include "heapq/analyze/fleet.h"

#include <gtest/gtest.h>

#include "heapq/answer/ask/fleet.h"
#include "heapq/render/render.h"
#include "schema_check.h"

namespace heapq {
namespace {

// A dump of process `pid` on `host` taken `minute` minutes past ten (or at `time`), holding
// `leaked` objects of the leak and `churn` objects of a class that comes and goes.
void add_dump(FleetData& data, const std::string& host, uint64_t pid, int minute, uint64_t leaked,
              uint64_t churn, const std::string& time = "", int64_t gc_count = -1) {
  FleetDump d;
  d.id = static_cast<int64_t>(data.dumps.size()) + 1;
  d.origin.host = host;
  d.origin.pid = pid;
  d.origin.started = "2026-11-24T09:00:00+00:00";
  char at[40];
  std::snprintf(at, sizeof at, "2026-11-24T%02d:%02d:00+00:00", 10 + minute / 60, minute % 60);
  d.origin.time = time.empty() ? at : time;
  d.origin.gc_count = gc_count;
  d.app = "shop";
  d.objects = 1000 + leaked + churn;
  d.bytes = 100000 + 40 * leaked + 40 * churn;
  data.dumps.push_back(d);
  data.counts.push_back({{"Page", "app/cache.rb", "new", 16, leaked, 40 * leaked},
                         {"Request", "app/server.rb", "call", 8, churn, 40 * churn}});
}

TEST(Fleet, NamesWhatGrowsInEveryProcess) {
  FleetData data;
  // Dumps come in any order: each process's are taken in time order.
  add_dump(data, "web-1", 100, 30, 300, 50);
  add_dump(data, "web-1", 100, 0, 100, 80);
  add_dump(data, "web-1", 100, 15, 200, 20);
  add_dump(data, "web-2", 100, 0, 100, 10);  // the same pid on another host: another process
  add_dump(data, "web-2", 100, 60, 700, 90);
  add_dump(data, "web-2", 200, 0, 0, 5);  // one dump: no growth to tell
  FleetDump objectspace;
  objectspace.id = 99;
  data.dumps.push_back(objectspace);
  data.counts.push_back({});
  const FleetAnswer a{analyze_fleet(data, 10), "fleet.db", {}};
  EXPECT_EQ(a.dumps, 7u);
  EXPECT_EQ(a.processes, 3u);
  EXPECT_EQ(a.hosts, 2u);
  EXPECT_EQ(a.unattributed_dumps, 1u);
  // Request falls on web-1 and rises on web-2: it grows in one process of the two.
  ASSERT_EQ(a.groups.size(), 2u);
  EXPECT_EQ(a.groups[1].class_name, "Request");
  EXPECT_EQ(a.groups[1].growing_in, 1u);
  EXPECT_EQ(a.groups[1].seen_in, 2u);
  const FleetGrowth::Group& page = a.groups[0];
  EXPECT_EQ(page.class_name, "Page");
  EXPECT_EQ(page.site->line, 16u);
  EXPECT_EQ(page.growing_in, 2u);
  EXPECT_EQ(page.seen_in, 2u);
  // web-1: +200 in 30 minutes, 400 an hour; web-2: +600 in an hour.
  EXPECT_DOUBLE_EQ(page.objects_per_hour.value_or(0), 500.0);
  EXPECT_DOUBLE_EQ(page.bytes_per_hour.value_or(0), 500.0 * 40);
  EXPECT_EQ(page.rated_in, 2u);
  EXPECT_EQ(page.count, 1000u);
  EXPECT_EQ(page.bytes, 40000u);
  const double last_bytes = (100000 + 40 * 300 + 40 * 50) + (100000 + 40 * 700 + 40 * 90);
  EXPECT_DOUBLE_EQ(page.share, 40000 / last_bytes);
  ASSERT_EQ(page.worst.size(), 2u);
  EXPECT_EQ(page.worst[0].process.host, "web-2");
  EXPECT_EQ(page.worst[0].growth, 600);
  EXPECT_EQ(page.hosts, (std::vector<std::string>{"web-1", "web-2"}));
  ASSERT_EQ(a.heaps.size(), 3u);
  EXPECT_EQ(a.heaps[0].heap.size(), 3u);
  EXPECT_EQ(a.heaps[0].heap.front().time, "2026-11-24T10:00:00+00:00");
  EXPECT_EQ(a.first_time, "2026-11-24T10:00:00+00:00");
  EXPECT_EQ(a.last_time, "2026-11-24T11:00:00+00:00");

  const std::string text = render::text(a, {80});
  EXPECT_NE(text.find("3 processes on 2 hosts, 7 dumps"), std::string::npos) << text;
  EXPECT_NE(text.find("1. Page allocated at app/cache.rb:16 in new"), std::string::npos) << text;
  EXPECT_NE(text.find("grows in 2 of 2 processes: +500 objects"), std::string::npos) << text;
  EXPECT_NE(text.find("1 dump says no process"), std::string::npos) << text;
  expect_valid(render::json(a), "fleet.schema.json");
}

// Processes seen through sampled profiles: their counts are estimates, each sampled object
// counted `period` times, so one more sampled object is chance and two are growth; the answer
// says which processes are estimates.
TEST(Fleet, ProfilesGrowByTwoSampledObjects) {
  FleetData data;
  for (uint64_t pid : {100, 200}) {
    for (int minute : {0, 10, 20}) {
      const uint64_t step = pid == 100 ? 32 : 64;
      add_dump(data, "web-1", pid, minute, 320 + step * static_cast<uint64_t>(minute / 10), 64);
      data.dumps.back().period = 32;
    }
  }
  add_dump(data, "web-2", 300, 0, 100, 0);  // a dump, not a profile
  add_dump(data, "web-2", 300, 10, 101, 0);
  const FleetAnswer a{analyze_fleet(data, 10), "fleet.db", {}};
  EXPECT_EQ(a.dumps, 2u);
  EXPECT_EQ(a.profiles, 6u);
  ASSERT_EQ(a.groups.size(), 1u);
  const FleetAnswer::Group& page = a.groups[0];
  EXPECT_EQ(page.class_name, "Page");
  // pid 100 gained 64 objects (two sampled objects at 1 in 32), pid 200 128, and the process of
  // dumps one object, which a dump counts exactly.
  EXPECT_EQ(page.growing_in, 3u);
  data.dumps[2].period = 64;  // at 1 in 64, pid 100's 64 more are one sampled object: chance
  const FleetAnswer b{analyze_fleet(data, 10), "fleet.db", {}};
  ASSERT_EQ(b.groups.size(), 1u);
  EXPECT_EQ(b.groups[0].growing_in, 2u);
  bool estimated = false;
  for (const FleetAnswer::ProcessHeap& h : a.heaps) estimated |= h.process.profiles;
  EXPECT_TRUE(estimated);
  const std::string text = render::text(a, {0});
  EXPECT_NE(text.find("2 dumps, 6 sampled profiles"), std::string::npos) << text;
  EXPECT_NE(text.find("3 profiles (estimates)"), std::string::npos) << text;
  expect_valid(render::json(a), "fleet.schema.json");
}

TEST(Fleet, NothingGrowsWhereCountsFall) {
  FleetData data;
  add_dump(data, "web-1", 100, 0, 100, 80);
  add_dump(data, "web-1", 100, 10, 90, 90);
  add_dump(data, "web-1", 100, 20, 120, 70);  // Page fell on the way: not a steady growth
  const FleetAnswer a{analyze_fleet(data, 10), "fleet.db", {}};
  EXPECT_TRUE(a.groups.empty());
  EXPECT_NE(render::text(a, {80}).find("Nothing grows"), std::string::npos);
  expect_valid(render::json(a), "fleet.schema.json");
}

TEST(Fleet, NoRateWithoutAnInterval) {
  FleetData data;
  // web-1: three dumps of one second; web-2: a dump that says no time.
  const std::string second = "2026-11-24T10:00:00+00:00";
  add_dump(data, "web-1", 100, 0, 100, 10, second, 5);
  add_dump(data, "web-1", 100, 0, 300, 10, second, 6);
  add_dump(data, "web-1", 100, 0, 500, 10, second, 7);
  add_dump(data, "web-2", 100, 0, 100, 10);
  add_dump(data, "web-2", 100, 0, 200, 10, "yesterday");
  const FleetAnswer a{analyze_fleet(data, 10), "fleet.db", {}};
  ASSERT_EQ(a.groups.size(), 1u);
  const FleetGrowth::Group& page = a.groups[0];
  EXPECT_EQ(page.growing_in, 2u);
  EXPECT_EQ(page.rated_in, 0u);
  EXPECT_FALSE(page.objects_per_hour) << "not 400 objects in a second floored in";
  EXPECT_FALSE(page.bytes_per_hour);
  ASSERT_EQ(page.worst.size(), 2u);
  EXPECT_EQ(page.worst[0].growth, 400) << "most growth first, without rates";
  EXPECT_EQ(page.worst[0].seconds, 0.0);
  EXPECT_FALSE(page.worst[0].per_hour);
  EXPECT_FALSE(page.worst[1].seconds);
  const std::string text = render::text(a, {0});
  EXPECT_NE(text.find("grows in 2 of 2 processes: no rate"), std::string::npos) << text;
  EXPECT_NE(text.find("web-1 pid 100 +400 (no interval)"), std::string::npos) << text;
  EXPECT_EQ(text.find("an hour"), std::string::npos) << text;
  expect_valid(render::json(a), "fleet.schema.json");
}

TEST(Fleet, TimesKeepTheirFractionAndDumpsOfOneSecondTheirGcOrder) {
  FleetData data;
  // Loaded newest first: taken in the order their times (to the microsecond) and GC counts say.
  add_dump(data, "web-1", 100, 0, 400, 10, "2026-11-24T10:00:00.750Z", 9);
  add_dump(data, "web-1", 100, 0, 250, 10, "2026-11-24T10:00:00.250000Z", 8);
  add_dump(data, "web-1", 100, 0, 100, 10, "2026-11-24T10:00:00.250000Z", 7);
  add_dump(data, "web-2", 100, 0, 100, 10, "2026-11-24T10:00:00Z", 3);
  add_dump(data, "web-2", 100, 0, 300, 10, "2026-11-24T10:00:02Z", 2);  // time wins over GC
  const FleetAnswer a{analyze_fleet(data, 10), "fleet.db", {}};
  ASSERT_EQ(a.groups.size(), 1u);
  const FleetGrowth::Group& page = a.groups[0];
  EXPECT_EQ(page.growing_in, 2u);
  ASSERT_EQ(page.worst.size(), 2u);
  EXPECT_EQ(page.worst[0].process.host, "web-1");
  EXPECT_DOUBLE_EQ(page.worst[0].seconds.value_or(-1), 0.5);
  EXPECT_DOUBLE_EQ(page.worst[0].per_hour.value_or(0), 300 * 7200.0);
  EXPECT_DOUBLE_EQ(page.worst[1].per_hour.value_or(0), 200 * 1800.0);
  EXPECT_DOUBLE_EQ(page.objects_per_hour.value_or(0), (300 * 7200.0 + 200 * 1800.0) / 2);
  EXPECT_EQ(a.heaps[0].heap.front().objects, 1000u + 100 + 10);
  EXPECT_EQ(a.first_time, "2026-11-24T10:00:00Z");
  EXPECT_EQ(a.last_time, "2026-11-24T10:00:02Z");
}

TEST(Fleet, TopCutsTheList) {
  FleetData data;
  add_dump(data, "web-1", 100, 0, 100, 10);
  add_dump(data, "web-1", 100, 10, 200, 20);
  const FleetGrowth a = analyze_fleet(data, 1);
  ASSERT_EQ(a.groups.size(), 1u);
  EXPECT_EQ(a.groups[0].class_name, "Page") << "more bytes an hour first";
  EXPECT_EQ(a.more_groups, 1u);
}

}  // namespace
}  // namespace heapq
