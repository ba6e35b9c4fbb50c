// Per-object columns of the graph in as few bytes as their values need (heap_graph.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "heapq/base/ids.h"
#include "heapq/base/keyed_hash.h"

namespace heapq {

// Unsigned values in 1, 2 or 4 bytes each: as many as the largest value so far needs. A value
// too wide for the column widens it whole, at most twice in its life, so that a dump's class,
// site and generation columns take the byte or two an object that their counts need.
class PackedColumn {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  unsigned width() const { return width_; }  // bytes a value

  uint32_t operator[](size_t i) const {
    return width_ == 1 ? u8_[i] : width_ == 2 ? u16_[i] : u32_[i];
  }
  void push_back(uint32_t v) {
    fit(v);
    with_values([v](auto& values) { values.push_back(as_element(values, v)); });
    ++size_;
  }
  void append(std::span<const uint32_t> values) {
    for (uint32_t v : values) push_back(v);
  }
  void set(size_t i, uint32_t v) {
    fit(v);
    with_values([i, v](auto& values) { values[i] = as_element(values, v); });
  }
  // Grows to n values with v, or cuts to n.
  void resize(size_t n, uint32_t v = 0) {
    fit(v);
    with_values([n, v](auto& values) { values.resize(n, as_element(values, v)); });
    size_ = n;
  }
  void reserve(size_t n) {
    with_values([n](auto& values) { values.reserve(n); });
  }
  // Empty, its memory freed, one byte wide again.
  void clear() { *this = PackedColumn(); }
  // The smallest and the largest value; {0, 0} when empty.
  std::pair<uint32_t, uint32_t> min_max() const {
    if (size_ == 0) return {0, 0};
    auto of = [](const auto& values) {
      const auto [lo, hi] = std::ranges::minmax(values);
      return std::pair<uint32_t, uint32_t>(lo, hi);
    };
    return width_ == 1 ? of(u8_) : width_ == 2 ? of(u16_) : of(u32_);
  }

 private:
  template <typename Fn>
  void with_values(Fn fn) {
    if (width_ == 1)
      fn(u8_);
    else if (width_ == 2)
      fn(u16_);
    else
      fn(u32_);
  }
  template <typename Vector>
  static typename Vector::value_type as_element(const Vector&, uint32_t v) {
    return static_cast<typename Vector::value_type>(v);
  }
  void fit(uint32_t v) {
    const unsigned needed = v > 0xffff ? 4 : v > 0xff ? 2 : 1;
    if (needed <= width_) return;
    size_t capacity = 0;
    with_values([&](auto& values) { capacity = values.capacity(); });
    auto widen = [&](auto& to) {
      to.reserve(capacity);
      with_values([&](auto& from) { to.assign(from.begin(), from.end()); });
    };
    needed == 2 ? widen(u16_) : widen(u32_);
    std::vector<uint8_t>().swap(u8_);
    if (needed == 4) std::vector<uint16_t>().swap(u16_);
    width_ = needed;
  }

  std::vector<uint8_t> u8_;
  std::vector<uint16_t> u16_;
  std::vector<uint32_t> u32_;
  size_t size_ = 0;
  unsigned width_ = 1;
};

// Ids, none included, in a PackedColumn: id k as k + 1 and none as 0, so that a column of
// small ids with some none stays narrow.
template <typename IdT>
class PackedIds {
 public:
  size_t size() const { return column_.size(); }
  bool empty() const { return column_.empty(); }
  unsigned width() const { return column_.width(); }
  IdT operator[](size_t i) const { return IdT(column_[i] - 1); }  // 0 - 1: none's value
  void push_back(IdT id) { column_.push_back(id.value() + 1); }
  void set(size_t i, IdT id) { column_.set(i, id.value() + 1); }
  void resize(size_t n, IdT id) { column_.resize(n, id.value() + 1); }
  void reserve(size_t n) { column_.reserve(n); }
  void clear() { column_.clear(); }
  // Whether every id is below count, none among them only if none_ok.
  bool all_below(size_t count, bool none_ok) const {
    const auto [lo, hi] = column_.min_max();
    return empty() || ((none_ok || lo > 0) && hi <= count);
  }

 private:
  PackedColumn column_;
};

// Byte counts in two bytes each where they fit, the few that do not (an object of 64 KiB or
// more) beside them by position.
class PackedSizes {
 public:
  size_t size() const { return small_.size(); }
  uint64_t operator[](size_t i) const {
    const uint16_t m = small_[i];
    return m != kBig ? m : big_.at(static_cast<uint32_t>(i));
  }
  void push_back(uint64_t m) {
    if (m >= kBig) big_.emplace(static_cast<uint32_t>(small_.size()), m);
    small_.push_back(m >= kBig ? kBig : static_cast<uint16_t>(m));
  }
  void reserve(size_t n) { small_.reserve(n); }
  void clear() { *this = PackedSizes(); }

 private:
  static constexpr uint16_t kBig = UINT16_MAX;
  std::vector<uint16_t> small_;
  std::unordered_map<uint32_t, uint64_t> big_;
};

// Object addresses in 4 bytes each where the dump allows: a Ruby object lies in a heap page,
// 8-byte aligned, so an address is the number of its 64 KiB region (among the regions of the
// dump, in the order first seen) and its offset there in eighths (13 bits). The column holds 8
// bytes an address (as given) once one is not aligned or the regions pass 2^19 (32 GiB).
class AddressColumn {
 public:
  size_t size() const { return wide_mode_ ? wide_.size() : packed_.size(); }
  bool packed() const { return !wide_mode_; }

  uint64_t operator[](size_t i) const { return wide_mode_ ? wide_[i] : decode(packed_[i]); }
  // Where value i is kept, for a prefetch.
  const void* at(size_t i) const {
    return wide_mode_ ? static_cast<const void*>(&wide_[i]) : &packed_[i];
  }
  void push_back(uint64_t address) {
    if (!wide_mode_) {
      if (const auto code = encode(address)) return packed_.push_back(*code);
      widen();
    }
    wide_.push_back(address);
  }
  void append(std::span<const uint64_t> addresses) {
    for (uint64_t a : addresses) push_back(a);
  }
  void reserve(size_t n) { wide_mode_ ? wide_.reserve(n) : packed_.reserve(n); }
  void clear() { *this = AddressColumn(); }

 private:
  static constexpr unsigned kRegionShift = 16;
  static constexpr unsigned kOffsetBits = kRegionShift - 3;
  static constexpr uint32_t kOffsetMask = (uint32_t{1} << kOffsetBits) - 1;
  static constexpr size_t kMaxRegions = size_t{1} << (32 - kOffsetBits);

  uint64_t decode(uint32_t c) const {
    return regions_[c >> kOffsetBits] << kRegionShift | uint64_t{c & kOffsetMask} << 3;
  }
  std::optional<uint32_t> encode(uint64_t address);
  void widen();

  bool wide_mode_ = false;
  std::vector<uint32_t> packed_;
  std::vector<uint64_t> regions_;  // address >> 16 of each region
  std::unordered_map<uint64_t, uint32_t, KeyedHash> region_number_;
  uint64_t last_region_ = UINT64_MAX;
  uint32_t last_number_ = 0;
  std::vector<uint64_t> wide_;  // every address, once one does not pack
};

inline std::optional<uint32_t> AddressColumn::encode(uint64_t address) {
  if (address & 7) return std::nullopt;
  const uint64_t region = address >> kRegionShift;
  if (region != last_region_) {
    const auto it = region_number_.find(region);
    if (it != region_number_.end()) {
      last_number_ = it->second;
    } else {
      if (regions_.size() == kMaxRegions) return std::nullopt;
      last_number_ = static_cast<uint32_t>(regions_.size());
      region_number_.emplace(region, last_number_);
      regions_.push_back(region);
    }
    last_region_ = region;
  }
  return last_number_ << kOffsetBits | (static_cast<uint32_t>(address >> 3) & kOffsetMask);
}

inline void AddressColumn::widen() {
  wide_.reserve(std::max(packed_.capacity(), packed_.size() + 1));
  for (uint32_t c : packed_) wide_.push_back(decode(c));
  std::vector<uint32_t>().swap(packed_);
  std::vector<uint64_t>().swap(regions_);
  decltype(region_number_)().swap(region_number_);
  wide_mode_ = true;
}

}  // namespace heapq
