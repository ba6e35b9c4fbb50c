// Strongly typed dense indexes, so that an object id cannot be passed where a class id is meant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

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

// A view of an array of raw ids as typed ids (the graph stores raw uint32 arrays so that
// algorithms can take them as they are).
template <typename IdT>
class IdRange {
 public:
  class iterator {
   public:
    using value_type = IdT;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    explicit iterator(const uint32_t* p) : p_(p) {}
    IdT operator*() const { return IdT(*p_); }
    iterator& operator++() { return ++p_, *this; }
    iterator operator++(int) { return iterator(p_++); }
    bool operator==(const iterator&) const = default;

   private:
    const uint32_t* p_ = nullptr;
  };

  IdRange() = default;
  IdRange(const uint32_t* begin, const uint32_t* end) : begin_(begin), end_(end) {}
  iterator begin() const { return iterator(begin_); }
  iterator end() const { return iterator(end_); }
  size_t size() const { return static_cast<size_t>(end_ - begin_); }
  bool empty() const { return begin_ == end_; }
  IdT operator[](size_t i) const { return IdT(begin_[i]); }

 private:
  const uint32_t* begin_ = nullptr;
  const uint32_t* end_ = nullptr;
};

using ObjectId = Id<struct ObjectTag>;
using ClassId = Id<struct ClassTag>;
using SiteId = Id<struct SiteTag>;
using StringId = Id<struct StringTag>;
// A group of objects of one class and allocation site, as one analysis numbers them (a leak's).
using GroupId = Id<struct GroupTag>;
using LeakId = Id<struct LeakTag>;

// An id for each object of a graph (none for many), kept as the raw array the dominator tree's
// per-key sums take as it is (HeapDominators::*_by_keys): 4 bytes an object.
template <typename IdT>
class IdsByObject {
 public:
  IdsByObject() = default;
  explicit IdsByObject(size_t objects) : raw_(objects, IdT::kNoneValue) {}
  explicit IdsByObject(std::vector<uint32_t> raw) : raw_(std::move(raw)) {}

  IdT operator[](ObjectId o) const { return IdT(raw_[o.value()]); }
  void set(ObjectId o, IdT id) { raw_[o.value()] = id.value(); }
  size_t size() const { return raw_.size(); }
  const std::vector<uint32_t>& raw() const { return raw_; }

  // The same array made ids of another kind, each id mapped by to(id) (none stays none): one
  // array goes through an analysis's steps without a copy.
  template <typename ToId, typename Map>
  IdsByObject<ToId> map(Map to) && {
    for (uint32_t& v : raw_)
      if (v != IdT::kNoneValue) v = to(IdT(v)).value();
    return IdsByObject<ToId>(std::move(raw_));
  }

 private:
  std::vector<uint32_t> raw_;
};

}  // namespace heapq

template <typename Tag>
struct std::hash<heapq::Id<Tag>> {
  size_t operator()(heapq::Id<Tag> id) const noexcept { return std::hash<uint32_t>()(id.value()); }
};
