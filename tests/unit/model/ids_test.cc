// Group and leak ids are typed like object ids: one cannot be passed for the other, each takes
// 4 bytes, and an array of them by object goes from one kind to the next in place.
#include "heapq/base/ids.h"

#include <gtest/gtest.h>

#include <type_traits>
#include <vector>

namespace heapq {
namespace {

static_assert(!std::is_convertible_v<GroupId, LeakId> && !std::is_convertible_v<LeakId, GroupId>);
static_assert(!std::is_convertible_v<uint32_t, GroupId> &&
              !std::is_convertible_v<GroupId, uint32_t>);
static_assert(!std::is_convertible_v<ObjectId, GroupId> &&
              !std::is_convertible_v<LeakId, ObjectId>);
static_assert(sizeof(GroupId) == 4 && sizeof(LeakId) == 4);

TEST(IdsByObject, NoneForEveryObjectUntilSet) {
  IdsByObject<GroupId> group_of(3);
  group_of.set(ObjectId(1), GroupId(7));
  EXPECT_FALSE(group_of[ObjectId(0)].valid());
  EXPECT_EQ(group_of[ObjectId(1)], GroupId(7));
  EXPECT_FALSE(group_of[ObjectId(2)].valid());
  EXPECT_EQ(group_of.raw(), (std::vector<uint32_t>{UINT32_MAX, 7, UINT32_MAX}));
}

TEST(IdsByObject, MapsEachIdInPlaceAndKeepsNone) {
  IdsByObject<GroupId> group_of(std::vector<uint32_t>{2, UINT32_MAX, 0, 2});
  const uint32_t* storage = group_of.raw().data();
  const std::vector<LeakId> leak_of_group = {LeakId(1), LeakId(5), LeakId::none()};
  const IdsByObject<LeakId> leak_of =
      std::move(group_of).map<LeakId>([&](GroupId k) { return leak_of_group[k.value()]; });
  EXPECT_EQ(leak_of.raw().data(), storage);  // the same array: no second one
  EXPECT_FALSE(leak_of[ObjectId(0)].valid());
  EXPECT_FALSE(leak_of[ObjectId(1)].valid());
  EXPECT_EQ(leak_of[ObjectId(2)], LeakId(1));
  EXPECT_FALSE(leak_of[ObjectId(3)].valid());
}

}  // namespace
}  // namespace heapq
