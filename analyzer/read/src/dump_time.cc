#include "heapq/read/dump_time.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace heapq {

std::optional<int64_t> epoch_microseconds(std::string_view t) {
  auto field = [&](size_t at, size_t digits) -> std::optional<int> {
    int v = 0;
    if (at + digits > t.size()) return std::nullopt;
    auto [end, ec] = std::from_chars(t.data() + at, t.data() + at + digits, v);
    if (ec != std::errc() || end != t.data() + at + digits) return std::nullopt;
    return v;
  };
  auto y = field(0, 4), mo = field(5, 2), d = field(8, 2), h = field(11, 2), mi = field(14, 2),
       sec = field(17, 2);
  if (!y || !mo || !d || !h || !mi || !sec || t[4] != '-' || t[7] != '-' ||
      (t[10] != 'T' && t[10] != ' ') || t[13] != ':' || t[16] != ':')
    return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(*y), std::chrono::month(unsigned(*mo)),
                                         std::chrono::day(unsigned(*d))};
  if (!date.ok() || *h > 23 || *mi > 59 || *sec > 60) return std::nullopt;
  size_t at = 19;
  int64_t micros = 0;
  if (at < t.size() && t[at] == '.') {
    const size_t first = ++at;
    for (int64_t scale = 100000; at < t.size() && t[at] >= '0' && t[at] <= '9'; ++at, scale /= 10)
      micros += (t[at] - '0') * scale;
    if (at == first) return std::nullopt;
  }
  int64_t offset = 0;
  if (at < t.size() && (t[at] == '+' || t[at] == '-')) {
    auto oh = field(at + 1, 2), om = field(at + 4, 2);
    if (!oh || !om || at + 6 != t.size() || t[at + 3] != ':') return std::nullopt;
    offset = (t[at] == '-' ? -1 : 1) * (*oh * 3600 + *om * 60);
  } else if (!(at + 1 == t.size() && t[at] == 'Z')) {
    return std::nullopt;
  }
  const int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  return (days * 86400 + *h * 3600 + *mi * 60 + *sec - offset) * 1000000 + micros;
}

std::string iso_time_of_nanos(int64_t nanos) {
  if (nanos == 0) return {};
  // Floor division: a time before 1970 is as good as any to print.
  int64_t micros = nanos / 1000 - (nanos % 1000 < 0 ? 1 : 0);
  int64_t seconds = micros / 1000000;
  micros %= 1000000;
  if (micros < 0) {
    seconds -= 1;
    micros += 1000000;
  }
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return {};
  char buf[64];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char fraction[16];
  std::snprintf(fraction, sizeof fraction, ".%06dZ", static_cast<int>(micros));
  return std::string(buf, n) + fraction;
}

}  // namespace heapq
