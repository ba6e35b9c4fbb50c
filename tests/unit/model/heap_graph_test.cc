// The address index finds every object by its address, whatever the number of objects (its
// size is not a power of two, and probe chains run past its end to its start).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

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
    // The last record repeats the first one's address: a bad line.
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
    ASSERT_EQ(g.object_count(), n);
    EXPECT_EQ(report.bad_lines, 1u);
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

// An index of one's own over a graph's addresses finds what the graph's finds, and serves the
// graph's column after the graph has moved.
TEST(AddressIndex, OneOfOnesOwnOverAGraphsAddresses) {
  auto [graph, report] = testing::load_text(dump_of(5000));
  ASSERT_TRUE(graph.ok());
  const AddressIndex index(graph.value().addresses());
  const HeapGraph g = std::move(graph.value());
  for (uint64_t i = 0; i < 5000; ++i) {
    index.prefetch_cell(address_of(i + 16));
    index.prefetch_object(g.addresses(), address_of(i + 8));
    ASSERT_EQ(index.find(g.addresses(), address_of(i)), g.find(address_of(i))) << i;
    ASSERT_EQ(index.find(g.addresses(), address_of(i)), ObjectId(static_cast<uint32_t>(i)));
  }
  EXPECT_FALSE(index.find(g.addresses(), address_of(5000)).has_value());
  EXPECT_FALSE(index.find(g.addresses(), address_of(3) + 8).has_value());
}

// Over a column whose addresses repeat (a store's graph written before a repeat was a bad line
// may have them), the first object of an address is the one found.
TEST(AddressIndex, FindsTheFirstObjectOfARepeatedAddress) {
  AddressColumn column;
  for (uint64_t i = 0; i < 3000; ++i) column.push_back(address_of(i % 1000));
  const AddressIndex index(column);
  for (uint32_t i = 0; i < 1000; ++i) ASSERT_EQ(index.find(column, address_of(i)), ObjectId(i));
}

// Filled a run at a time, the index grows whatever the estimate of the objects to come (none,
// far too few, far too many), and tells the repeats: of the index and within the run.
TEST(AddressIndex, GrowsAsObjectsComeAndTellsTheRepeats) {
  for (size_t expected : {size_t(0), size_t(10), size_t(1) << 24}) {
    SCOPED_TRACE("expected: " + std::to_string(expected));
    AddressIndex index;
    AddressColumn column;
    std::vector<uint64_t> expected_repeats;
    for (uint64_t run = 0; run < 40; ++run) {
      std::vector<uint64_t> fresh;
      for (uint64_t i = 0; i < 1000; ++i) fresh.push_back(address_of(run * 1000 + i));
      fresh.push_back(address_of(run * 1000));  // within the run
      fresh.push_back(address_of(run * 500));   // of an earlier run, or of this one
      std::vector<uint32_t> repeats;
      index.add_new(column, fresh, expected, repeats);
      EXPECT_EQ(repeats, (std::vector<uint32_t>{1000, 1001})) << run;
    }
    ASSERT_EQ(column.size(), 40'000u);
    for (uint32_t i = 0; i < 40'000; ++i) {
      ASSERT_EQ(column[i], address_of(i));
      ASSERT_EQ(index.find(column, address_of(i)), ObjectId(i));
    }
    EXPECT_FALSE(index.find(column, address_of(40'000)).has_value());
  }
}

}  // namespace
}  // namespace heapq
