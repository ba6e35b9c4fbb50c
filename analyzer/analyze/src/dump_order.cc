#include "heapq/analyze/dump_order.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace heapq {

std::vector<size_t> written_order(const std::vector<const DumpOrigin*>& dumps) {
  std::vector<size_t> order(dumps.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::vector<std::pair<int64_t, int64_t>> when;  // time, GC count
  for (const DumpOrigin* d : dumps) {
    const std::optional<int64_t> t = d ? epoch_microseconds(d->time) : std::nullopt;
    if (!t) return order;
    when.emplace_back(*t, d->gc_count);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return when[a] < when[b]; });
  return order;
}

}  // namespace heapq
