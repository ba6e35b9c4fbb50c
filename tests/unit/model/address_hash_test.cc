// The address index cannot be made quadratic by a dump whose addresses were chosen to collide.
#include "model/address_hash.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <unordered_map>

#include "heapq/keyed_hash.h"
#include "test_dumps.h"

namespace heapq {
namespace {

uint64_t inverse(uint64_t a) {  // of an odd a mod 2^64, by Newton's iteration
  uint64_t x = a;
  for (int i = 0; i < 6; ++i) x *= 2 - a * x;
  return x;
}

// Inverses of unkeyed mixers (x ^= x >> 33 is its own inverse): one multiply, as the index
// used to hash, and MurmurHash3's finalizer, as it hashes now under its key.
uint64_t unmix_one(uint64_t h) {
  h ^= h >> 33;
  h *= inverse(0xff51afd7ed558ccdull);
  return h ^ h >> 33;
}
uint64_t unmix_two(uint64_t h) {
  h ^= h >> 33;
  h *= inverse(0xc4ceb9fe1a85ec53ull);
  return unmix_one(h);
}

// Addresses whose unkeyed hashes all end in 32 zero bits: one slot of any table below 2^32.
uint64_t crafted(uint64_t i) {
  return unmix_one(i << 32);
}

TEST(AddressHash, CraftedCollisionsSpread) {
  for (auto craft : {unmix_one, unmix_two}) {
    std::set<uint64_t> slots;
    for (uint64_t i = 1; i <= 1000; ++i) slots.insert(address_hash(craft(i << 32)) & 0xffff);
    EXPECT_GT(slots.size(), 900u);
  }
}

TEST(AddressHash, ADumpOfCraftedAddressesLoads) {
  std::string dump;
  for (uint64_t i = 1; i <= 50'000; ++i) {
    char line[128];
    std::snprintf(line, sizeof line,
                  R"({"address":"0x%llx", "type":"OBJECT", "memsize":40})"
                  "\n",
                  static_cast<unsigned long long>(crafted(i)));
    dump += line;
  }
  auto loaded = testing::load_text(dump);
  ASSERT_TRUE(loaded.graph.ok());
  EXPECT_EQ(loaded.graph.value().find(crafted(777)), ObjectId(776));
}

// Keys equal modulo the number of buckets a map of them ends with (the value itself is
// std::hash's hash): all in one bucket without a key, spread with it.
TEST(KeyedHash, KeysEqualModuloTheBucketsSpread) {
  std::unordered_map<uint64_t, int> plain;
  for (uint64_t i = 0; i < 2000; ++i) plain.emplace(i, 0);
  const uint64_t buckets = plain.bucket_count();
  std::unordered_map<uint64_t, int, KeyedHash> keyed;
  for (uint64_t i = 0; i < 2000; ++i) keyed.emplace(0x10000 + i * buckets * 8, 0);
  ASSERT_EQ(keyed.bucket_count(), buckets);
  size_t largest = 0;
  for (size_t b = 0; b < keyed.bucket_count(); ++b)
    largest = std::max(largest, keyed.bucket_size(b));
  EXPECT_LT(largest, 12u);
}

// Classes at such addresses: each object's class its own.
TEST(KeyedHash, ADumpOfCraftedClassAddressesLoads) {
  std::string dump;
  for (uint64_t i = 0; i < 20'000; ++i) {
    char line[160];
    std::snprintf(line, sizeof line,
                  R"({"address":"0x%llx", "type":"OBJECT", "class":"0x%llx", "memsize":40})"
                  "\n",
                  static_cast<unsigned long long>(0x7f0000000000ull + 40 * i),
                  static_cast<unsigned long long>(0x10000 + i * 40009 * 8));
    dump += line;
  }
  auto loaded = testing::load_text(dump);
  ASSERT_TRUE(loaded.graph.ok());
  const HeapGraph& g = loaded.graph.value();
  ASSERT_EQ(g.object_count(), 20'000u);
  EXPECT_EQ(g.class_info(g.class_of(ObjectId(19'999))).address, 0x10000 + 19'999ull * 40009 * 8);
}

}  // namespace
}  // namespace heapq
