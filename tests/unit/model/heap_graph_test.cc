// The address index finds every object by its address, whatever the number of objects (its
// size is not a power of two, and probe chains run past its end to its start).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "test_dumps.h"

namespace heapq {
namespace {

uint64_t address_of(uint64_t i) {
  return 0x7f0000001000ull + 40 * i;
}

std::string dump_of(uint64_t objects) {
  std::string dump;
  char line[128];
  for (uint64_t i = 0; i <= objects; ++i) {
    // The last record repeats the first one's address: the first record wins.
    std::snprintf(line, sizeof line,
                  R"({"address":"0x%llx", "type":"OBJECT", "memsize":%llu})"
                  "\n",
                  static_cast<unsigned long long>(address_of(i < objects ? i : 0)),
                  static_cast<unsigned long long>(40 + i));
    dump += line;
  }
  return dump;
}

TEST(AddressIndex, FindsEveryObjectAtEverySize) {
  for (uint64_t n : {1,  2,  3,  5,  8,  11,  12,   13,   16,   17,   23,    31,
                     32, 33, 47, 64, 65, 100, 1000, 4095, 4096, 4097, 70'000}) {
    SCOPED_TRACE("objects: " + std::to_string(n));
    auto [graph, report] = testing::load_text(dump_of(n));
    ASSERT_TRUE(graph.ok());
    const HeapGraph& g = graph.value();
    ASSERT_EQ(g.object_count(), n + 1);
    EXPECT_EQ(report.duplicate_addresses, 1u);
    for (uint64_t i = 0; i < n; ++i) {
      const std::optional<ObjectId> found = g.find(address_of(i));
      ASSERT_TRUE(found.has_value()) << i;
      ASSERT_EQ(*found, ObjectId(static_cast<uint32_t>(i)));
    }
    for (uint64_t i = n; i < n + 100; ++i) EXPECT_FALSE(g.find(address_of(i)).has_value());
    for (uint64_t i = 0; i < std::min<uint64_t>(n, 100); ++i)
      EXPECT_FALSE(g.find(address_of(i) + 8).has_value());
  }
}

}  // namespace
}  // namespace heapq
