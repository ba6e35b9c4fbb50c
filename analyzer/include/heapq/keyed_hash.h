// The hash of maps keyed by 64-bit values a dump decides: addresses, and pairs of ids.
#pragma once

#include <cstddef>
#include <cstdint>

namespace heapq {

// Keyed at random when the program starts (src/model/address_hash.h). std::hash gives back the
// value itself, so a crafted dump's keys, all equal modulo the table's size, land in one bucket:
// a map of 340,000 such class addresses took three minutes to fill.
struct KeyedHash {
  size_t operator()(uint64_t key) const;
};

}  // namespace heapq
