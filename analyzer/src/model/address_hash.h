// The hash of the address index, shared by the builder that fills it and the graph that reads it.
#pragma once

#include <cstdint>

namespace heapq {

// Heap addresses share high bits and are 8- or 40-byte aligned: mix all bits into the low ones.
inline uint64_t address_hash(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

}  // namespace heapq
