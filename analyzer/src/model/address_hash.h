// The hash of the address index, shared by the builder that fills it and the graph that reads it.
#pragma once

#include <cstdint>

namespace heapq {

// A key chosen at random when the program starts: addresses come from the input, and an
// unkeyed hash (invertible, as any mixer is) lets a crafted dump put every address in one
// probe chain, turning the index quadratic.
uint64_t random_hash_key();
inline const uint64_t kAddressHashKey = random_hash_key();

// Heap addresses share high bits and are 8- or 40-byte aligned: mix all bits into the low ones
// (MurmurHash3's finalizer over the keyed value).
inline uint64_t address_hash(uint64_t x) {
  x ^= kAddressHashKey;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

}  // namespace heapq
