// When dumps were written, as their META records say.
#include "heapq/analyze/dump_order.h"

#include <gtest/gtest.h>

#include "heapq/read/dump_time.h"

namespace heapq {
namespace {

TEST(DumpOrder, TimesToTheMicrosecond) {
  const int64_t ten = *epoch_microseconds("2026-11-27T10:00:00Z");
  EXPECT_EQ(epoch_microseconds("2026-11-27T10:00:00+00:00"), ten);
  EXPECT_EQ(epoch_microseconds("2026-11-27T11:00:00+01:00"), ten);
  EXPECT_EQ(epoch_microseconds("2026-11-27T10:00:00.123456Z"), ten + 123456);
  EXPECT_EQ(epoch_microseconds("2026-11-27T10:00:00.5+00:00"), ten + 500000);
  EXPECT_EQ(epoch_microseconds("2026-11-27T10:00:00.1234569Z"), ten + 123456)
      << "past the microsecond";
  for (const char* bad : {"2026-11-27T10:00:00.Z", "2026-11-27T10:00:00..5Z",
                          "2026-11-27T10:00:00.5", "2026-11-27T10:00:00.5x", "yesterday", ""})
    EXPECT_FALSE(epoch_microseconds(bad)) << bad;
}

// A profile's time (nanoseconds) as the ISO 8601 text dumps give, read back the same.
TEST(DumpOrder, NanosecondsAsIsoTime) {
  const int64_t ten = *epoch_microseconds("2026-11-27T10:00:00Z");
  EXPECT_EQ(iso_time_of_nanos(ten * 1000 + 123456789), "2026-11-27T10:00:00.123456Z");
  EXPECT_EQ(epoch_microseconds(iso_time_of_nanos(ten * 1000 + 5000)), ten + 5);
  EXPECT_EQ(iso_time_of_nanos(0), "");
  EXPECT_EQ(iso_time_of_nanos(-1), "1969-12-31T23:59:59.999999Z");
}

TEST(DumpOrder, ByTimeThenGcCountThenAsGiven) {
  auto origin = [](const char* time, int64_t gc) {
    DumpOrigin o;
    o.time = time;
    o.gc_count = gc;
    return o;
  };
  const DumpOrigin a = origin("2026-11-27T10:00:01Z", 1), b = origin("2026-11-27T10:00:00.5Z", 9),
                   c = origin("2026-11-27T10:00:00.5Z", 3), d = origin("2026-11-27T10:00:00.5Z", 3);
  EXPECT_EQ(written_order({&a, &b, &c, &d}), (std::vector<size_t>{2, 3, 1, 0}));
  // One that says no time: all as given.
  const DumpOrigin none;
  EXPECT_EQ(written_order({&a, &none, &c}), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(written_order({&a, nullptr, &c}), (std::vector<size_t>{0, 1, 2}));
}

}  // namespace
}  // namespace heapq
