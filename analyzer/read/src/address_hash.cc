#include "heapq/read/address_hash.h"

#include <bit>
#include <chrono>
#include <cstring>
#include <random>

#include "heapq/base/keyed_hash.h"

namespace heapq {

uint64_t random_hash_key() {
  std::random_device device;
  const uint64_t entropy = uint64_t(device()) << 32 ^ device();
  const uint64_t clock =
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return entropy ^ clock * 0x9e3779b97f4a7c15ull;
}

namespace {

struct SipState {
  uint64_t v0, v1, v2, v3;
  void round() {
    v0 += v1;
    v1 = std::rotl(v1, 13) ^ v0;
    v0 = std::rotl(v0, 32);
    v2 += v3;
    v3 = std::rotl(v3, 16) ^ v2;
    v0 += v3;
    v3 = std::rotl(v3, 21) ^ v0;
    v2 += v1;
    v1 = std::rotl(v1, 17) ^ v2;
    v2 = std::rotl(v2, 32);
  }
  template <int C>
  void absorb(uint64_t m) {
    v3 ^= m;
    for (int i = 0; i < C; ++i) round();
    v0 ^= m;
  }
};

uint64_t little_endian_word(const char* p, size_t n) {
  uint64_t w = 0;
  for (size_t i = 0; i < n; ++i) w |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return w;
}

const uint64_t kStringKey0 = random_hash_key();
const uint64_t kStringKey1 = random_hash_key() * 0xbf58476d1ce4e5b9ull;

}  // namespace

template <int C, int D>
uint64_t siphash(uint64_t k0, uint64_t k1, std::string_view s) {
  SipState st{k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull, k0 ^ 0x6c7967656e657261ull,
              k1 ^ 0x7465646279746573ull};
  const size_t words = s.size() / 8;
  for (size_t w = 0; w < words; ++w) {
    uint64_t m;
    std::memcpy(&m, s.data() + 8 * w, 8);
    if constexpr (std::endian::native == std::endian::big)
      m = little_endian_word(s.data() + 8 * w, 8);
    st.absorb<C>(m);
  }
  st.absorb<C>(uint64_t{s.size() & 0xff} << 56 |
               little_endian_word(s.data() + 8 * words, s.size() % 8));
  st.v2 ^= 0xff;
  for (int i = 0; i < D; ++i) st.round();
  return st.v0 ^ st.v1 ^ st.v2 ^ st.v3;
}

template uint64_t siphash<1, 3>(uint64_t, uint64_t, std::string_view);
template uint64_t siphash<2, 4>(uint64_t, uint64_t, std::string_view);

uint64_t string_hash(std::string_view s) {
  return siphash<1, 3>(kStringKey0, kStringKey1, s);
}

size_t KeyedHash::operator()(std::string_view s) const {
  return string_hash(s);
}

size_t KeyedHash::operator()(uint64_t address) const {
  return address_hash(address);
}

}  // namespace heapq
