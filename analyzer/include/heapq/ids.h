// Strongly typed dense indexes, so that an object id cannot be passed where a class id is meant.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>

namespace heapq {

template <typename Tag>
class Id {
 public:
  using value_type = uint32_t;
  static constexpr value_type kNoneValue = std::numeric_limits<value_type>::max();

  constexpr Id() = default;
  constexpr explicit Id(value_type v) : value_(v) {}
  static constexpr Id none() { return Id(); }

  constexpr value_type value() const { return value_; }
  constexpr bool valid() const { return value_ != kNoneValue; }
  constexpr auto operator<=>(const Id&) const = default;

 private:
  value_type value_ = kNoneValue;
};

using ObjectId = Id<struct ObjectTag>;
using ClassId = Id<struct ClassTag>;
using SiteId = Id<struct SiteTag>;
using StringId = Id<struct StringTag>;

}  // namespace heapq

template <typename Tag>
struct std::hash<heapq::Id<Tag>> {
  size_t operator()(heapq::Id<Tag> id) const noexcept { return std::hash<uint32_t>()(id.value()); }
};
