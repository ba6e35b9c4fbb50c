// Sums of memsizes: a dump may claim any 64-bit size, and a total must never wrap to a small
// number (2^63 + 2^63 is not 0 bytes). Totals stop at UINT64_MAX instead.
#pragma once

#include <cstdint>

namespace heapq {

inline uint64_t saturating_add(uint64_t a, uint64_t b) {
  uint64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

// total += b, stopping at UINT64_MAX.
inline void add_saturating(uint64_t& total, uint64_t b) {
  total = saturating_add(total, b);
}

}  // namespace heapq
