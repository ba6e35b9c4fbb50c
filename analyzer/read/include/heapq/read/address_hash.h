// The keyed hashes of what a dump decides: the address index's (shared by the builder that fills
// it and the graph that reads it), and strings' (KeyedHash, heapq/base/keyed_hash.h).
#pragma once

#include <cstdint>
#include <string_view>

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

// SipHash-c-d (Aumasson and Bernstein, 2012) of s under the 128-bit key (k0, k1): a pseudorandom
// function of the bytes, so that strings chosen to collide under one key do not under another.
// MurmurHash2, which std::hash of a string is, has collisions that hold whatever its seed.
template <int C, int D>
uint64_t siphash(uint64_t k0, uint64_t k1, std::string_view s);
uint64_t string_hash(std::string_view s);  // SipHash-1-3 under keys chosen at random

}  // namespace heapq
