// The order every table of totals is listed in: stats by type and class, sites' groups.
#pragma once

#include <algorithm>
#include <vector>

#include "heapq/analyze/stats.h"

namespace heapq {

// Largest first by the sort key (bytes or count); ties broken by the other measure, then by
// key_less, so that output is stable. T has `bytes` and `count`.
template <typename T, typename KeyLess>
void sort_largest_first(std::vector<T>& rows, SortKey sort, KeyLess key_less) {
  auto primary = [&](const T& t) { return sort == SortKey::kBytes ? t.bytes : t.count; };
  auto secondary = [&](const T& t) { return sort == SortKey::kBytes ? t.count : t.bytes; };
  std::sort(rows.begin(), rows.end(), [&](const T& a, const T& b) {
    if (primary(a) != primary(b)) return primary(a) > primary(b);
    if (secondary(a) != secondary(b)) return secondary(a) > secondary(b);
    return key_less(a, b);
  });
}

}  // namespace heapq
