// The hash of maps keyed by addresses a dump gives.
#pragma once

#include <cstddef>
#include <cstdint>

namespace heapq {

// Keyed at random when the program starts (src/model/address_hash.h): with std::hash (the
// value itself), a crafted dump's addresses, all equal modulo the table's size, land in one
// bucket, and a map of a few hundred thousand of them takes minutes to fill.
struct AddressHasher {
  size_t operator()(uint64_t address) const;
};

}  // namespace heapq
