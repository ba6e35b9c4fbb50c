// The graph's packed columns give back every value as it was put in, however wide the values
// that came after it made the column.
#include "heapq/model/packed_column.h"

#include <gtest/gtest.h>

#include <vector>

namespace heapq {
namespace {

TEST(PackedColumn, WidensToTheLargestValueAndKeepsTheEarlierOnes) {
  PackedColumn c;
  const std::vector<uint32_t> values = {0, 1, 255, 256, 65535, 65536, UINT32_MAX, 7};
  std::vector<unsigned> widths;
  for (uint32_t v : values) {
    c.push_back(v);
    widths.push_back(c.width());
  }
  EXPECT_EQ(widths, (std::vector<unsigned>{1, 1, 1, 2, 2, 4, 4, 4}));
  ASSERT_EQ(c.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(c[i], values[i]) << i;
}

TEST(PackedColumn, OneByteToFourAtOnce) {
  PackedColumn c;
  c.append(std::vector<uint32_t>{3, 200});
  c.push_back(1u << 20);
  EXPECT_EQ(c.width(), 4u);
  EXPECT_EQ(c[0], 3u);
  EXPECT_EQ(c[1], 200u);
  EXPECT_EQ(c[2], 1u << 20);
}

TEST(PackedColumn, SetAndResizeWidenToo) {
  PackedColumn c;
  c.resize(3, 9);
  c.set(1, 300);
  EXPECT_EQ(c.width(), 2u);
  c.resize(5, 70'000);
  EXPECT_EQ(c.width(), 4u);
  EXPECT_EQ((std::vector<uint32_t>{c[0], c[1], c[2], c[3], c[4]}),
            (std::vector<uint32_t>{9, 300, 9, 70'000, 70'000}));
  c.clear();
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(c.width(), 1u);
}

TEST(PackedIds, NoneTakesNoWidth) {
  PackedIds<SiteId> ids;
  ids.resize(2, SiteId::none());
  ids.push_back(SiteId(0));
  ids.push_back(SiteId(254));
  EXPECT_EQ(ids.width(), 1u);
  EXPECT_FALSE(ids[0].valid());
  EXPECT_EQ(ids[2], SiteId(0));
  EXPECT_EQ(ids[3], SiteId(254));
  ids.push_back(SiteId(255));
  EXPECT_EQ(ids.width(), 2u);
  ids.set(0, SiteId(UINT32_MAX - 1));  // the largest id there is
  EXPECT_EQ(ids.width(), 4u);
  EXPECT_EQ(ids[0], SiteId(UINT32_MAX - 1));
  EXPECT_FALSE(ids[1].valid());
  EXPECT_EQ(ids[4], SiteId(255));
}

TEST(PackedSizes, BigOnesBesideTheRest) {
  PackedSizes sizes;
  const std::vector<uint64_t> values = {40, 65534, 65535, 0, uint64_t{1} << 40, UINT64_MAX, 80};
  for (uint64_t v : values) sizes.push_back(v);
  ASSERT_EQ(sizes.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(sizes[i], values[i]) << i;
}

TEST(AddressColumn, HeapAddressesPackInFourBytes) {
  AddressColumn a;
  // Two pages' slots, in turns, and the extremes of a region.
  std::vector<uint64_t> addresses;
  for (uint64_t i = 0; i < 3000; ++i)
    addresses.push_back((i % 2 ? 0x7f3a9c0b0000ull : 0x55d1e3a40000ull) + 40 * (i / 2));
  addresses.push_back(0);
  addresses.push_back(0xfffffffffff8ull);
  addresses.push_back(0x7f3a9c0bfff8ull);
  addresses.push_back(0xfffffffffffffff8ull);
  a.append(addresses);
  EXPECT_TRUE(a.packed());
  ASSERT_EQ(a.size(), addresses.size());
  for (size_t i = 0; i < addresses.size(); ++i) EXPECT_EQ(a[i], addresses[i]) << i;
}

TEST(AddressColumn, AnUnalignedAddressMakesItWide) {
  AddressColumn a;
  a.push_back(0x7f0000001000ull);
  a.push_back(0x7f0000001028ull);
  a.push_back(0x1001);
  a.push_back(0x7f0000001050ull);
  EXPECT_FALSE(a.packed());
  EXPECT_EQ(
      (std::vector<uint64_t>{a[0], a[1], a[2], a[3]}),
      (std::vector<uint64_t>{0x7f0000001000ull, 0x7f0000001028ull, 0x1001, 0x7f0000001050ull}));
  AddressColumn first;
  first.push_back(1);
  EXPECT_FALSE(first.packed());
  EXPECT_EQ(first[0], 1u);
}

TEST(AddressColumn, MoreRegionsThanTheCodeHoldsMakeItWide) {
  AddressColumn a;
  const uint64_t regions = uint64_t{1} << 19;
  for (uint64_t r = 0; r < regions; ++r) a.push_back(r << 16 | 0x28);
  EXPECT_TRUE(a.packed());
  a.push_back(0x28);  // a region seen before still packs
  EXPECT_TRUE(a.packed());
  a.push_back(regions << 16);
  EXPECT_FALSE(a.packed());
  ASSERT_EQ(a.size(), regions + 2);
  for (uint64_t r = 0; r < regions; r += 4099) EXPECT_EQ(a[r], r << 16 | 0x28);
  EXPECT_EQ(a[regions], 0x28u);
  EXPECT_EQ(a[regions + 1], regions << 16);
}

}  // namespace
}  // namespace heapq
