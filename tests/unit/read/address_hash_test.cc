// The address index cannot be made quadratic by a dump whose addresses were chosen to collide.
#include "heapq/read/address_hash.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "heapq/base/keyed_hash.h"
#include "heapq/read/parsed_chunk.h"
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

// The paper's vectors for SipHash-2-4 (key 00 01 .. 0f; messages 00 01 .. of 0 and 15 bytes),
// which the SipHash-1-3 of strings shares its code with.
TEST(StringHash, SipHashOfThePaper) {
  const uint64_t k0 = 0x0706050403020100ull, k1 = 0x0f0e0d0c0b0a0908ull;
  std::string message;
  for (char c = 0; c < 15; ++c) message += c;
  EXPECT_EQ((siphash<2, 4>(k0, k1, "")), 0x726fdb47dd0e0e31ull);
  EXPECT_EQ((siphash<2, 4>(k0, k1, message)), 0xa129ca6149be45e5ull);
  // Every length up to two words but one: each byte and the length count.
  std::set<uint64_t> seen;
  for (size_t n = 0; n <= 15; ++n) seen.insert(siphash<1, 3>(k0, k1, message.substr(0, n)));
  EXPECT_EQ(seen.size(), 16u);
  EXPECT_NE(string_hash("heapq"), (siphash<1, 3>(k0, k1, "heapq")));  // keyed at random
}

// Two 8-byte blocks whose MurmurHash2 mixes differ in the top bit only: a string of blocks
// "aa" or "bb", sixteen bytes at a time, hashes the same under libstdc++'s std::hash whatever
// the choices (and whatever the seed), and every such string is valid UTF-8.
TEST(StringHash, StringsMadeToCollideSpread) {
  const std::string a = "Swld\xca\x8e\xc6\xbd", b = "Sw)~etnL";
  std::vector<std::string> strings;
  for (uint32_t i = 0; i < 1024; ++i) {
    std::string s;
    for (int unit = 0; unit < 10; ++unit) s += (i >> unit & 1) ? a + a : b + b;
    strings.push_back(s);
  }
  std::set<size_t> plain, keyed;
  for (const std::string& s : strings) {
    plain.insert(std::hash<std::string_view>()(s));
    keyed.insert(KeyedHash()(s));
  }
  if (plain.size() != 1) GTEST_SKIP() << "a std::hash other than libstdc++'s";
  EXPECT_EQ(keyed.size(), strings.size());
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

// Site keys whose line was chosen against their method (line ^ method << 17 the same for all, as
// the graph's site table once combined them before hashing), and class keys at addresses equal
// modulo a table's size: distinct keys, distinct hashes and buckets.
TEST(KeyedHash, SiteAndClassKeysMadeToCollideSpread) {
  std::set<size_t> sites, classes;
  for (uint32_t m = 0; m < 4096; ++m) {
    sites.insert(SiteKeyHash()(SiteKey{StringId(1), 12345 ^ (m << 17), StringId(m)}));
    ClassKey k;
    k.address = 0x10000 + uint64_t{m} * 351061 * 8;
    classes.insert(ClassKeyHash()(k) % 351061);  // its bucket in a table of that size
  }
  EXPECT_EQ(sites.size(), 4096u);
  EXPECT_GT(classes.size(), 4000u);
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
