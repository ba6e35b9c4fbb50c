// When a dump was taken, as its META says: ISO 8601 times read once for every layer that
// compares them (the order of a process's dumps, a fleet's --since, rates over time).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace heapq {

// Microseconds since 1970 of an ISO 8601 time with a UTC offset as memprof writes it
// ("2026-11-24T10:00:00+00:00", "2026-11-27T10:00:00.123456Z"; "Z" is UTC; digits past the
// microsecond are dropped); none when the text is not one.
std::optional<int64_t> epoch_microseconds(std::string_view time);

// The ISO 8601 time, in UTC to the microsecond ("2026-11-27T10:00:00.123456Z"), of nanoseconds
// since 1970 (a profile's time_nanos); empty for 0, which says none.
std::string iso_time_of_nanos(int64_t nanos);

}  // namespace heapq
