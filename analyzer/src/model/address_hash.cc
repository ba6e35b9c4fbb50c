#include "model/address_hash.h"

#include <chrono>
#include <random>

#include "heapq/keyed_hash.h"

namespace heapq {

uint64_t random_hash_key() {
  std::random_device device;
  const uint64_t entropy = uint64_t(device()) << 32 ^ device();
  const uint64_t clock =
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return entropy ^ clock * 0x9e3779b97f4a7c15ull;
}

size_t KeyedHash::operator()(uint64_t address) const {
  return address_hash(address);
}

}  // namespace heapq
