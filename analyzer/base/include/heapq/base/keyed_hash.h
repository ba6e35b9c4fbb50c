// The hash of maps keyed by what a dump decides: addresses, pairs of ids, strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace heapq {

// Keyed at random when the program starts (read/address_hash.h). std::hash of a number is
// the number, so a crafted dump's keys, all equal modulo the table's size, land in one bucket
// (a map of 340,000 such class addresses took three minutes to fill); std::hash of a string is
// MurmurHash2, whose collisions hold whatever its seed. Strings are hashed with SipHash-1-3.
struct KeyedHash {
  size_t operator()(uint64_t key) const;
  size_t operator()(std::string_view s) const;
};

}  // namespace heapq
