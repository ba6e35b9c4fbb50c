// Open-addressing hash maps keyed by object address, cheap enough to update inside the
// NEWOBJ/FREEOBJ/GC_END_MARK hooks (malloc only, never Ruby's allocator, never throws): the tracked
// objects' allocation sites, and the frames whose names the allocation stacks copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace memprof {

struct AllocationSite {
  uint64_t seq;   // monotonic per process
  uint32_t path;  // index into the tracker's path table
  uint32_t line;
  uintptr_t method;     // ID, 0 when unknown
  uint32_t generation;  // GC.count at allocation
  uint32_t stack;       // the tracker's allocation stack id, 0 when none
  uint32_t size;        // bytes: its slot at allocation, its memsize as the last profile read it
  bool old = false;     // old when a GC last saw it: no minor GC frees it (AllocTracker)
};

// Linear probing with backward-shift deletion (no tombstones), load factor at most 0.7.
template <class Value>
class AddressTable {
 public:
  AddressTable() = default;
  ~AddressTable() { std::free(slots_); }
  AddressTable(const AddressTable&) = delete;
  AddressTable& operator=(const AddressTable&) = delete;

  const Value* Find(uintptr_t key) const {
    if (count_ == 0) return nullptr;
    for (size_t i = Home(key);; i = (i + 1) & (capacity_ - 1)) {
      if (slots_[i].key == key) return &slots_[i].value;
      if (slots_[i].key == 0) return nullptr;
    }
  }
  Value* FindMutable(uintptr_t key) { return const_cast<Value*>(Find(key)); }
  // Drops the entry if out of memory.
  void Insert(uintptr_t key, const Value& value) {
    if ((count_ + 1) * 10 > capacity_ * 7 && !Grow()) return;
    size_t i = Home(key);
    while (slots_[i].key != 0 && slots_[i].key != key) i = (i + 1) & (capacity_ - 1);
    if (slots_[i].key == 0) ++count_;
    slots_[i].key = key;
    slots_[i].value = value;
  }
  // Removes key's entry, copied to *removed when there was one; returns whether there was.
  bool Erase(uintptr_t key, Value* removed = nullptr);
  void Clear() {
    std::free(slots_);
    slots_ = nullptr;
    capacity_ = count_ = 0;
    shift_ = 64;
  }
  size_t Size() const { return count_; }
  size_t Bytes() const { return capacity_ * sizeof(Slot); }

  // fn(key, value) for every entry; fn must not modify the table.
  template <class Fn>
  void ForEach(Fn&& fn) const {
    for (size_t i = 0; i < capacity_; ++i) {
      if (slots_[i].key != 0) fn(slots_[i].key, slots_[i].value);
    }
  }
  // fn(key, value) for every entry, value mutable; fn must not add or remove entries.
  template <class Fn>
  void ForEachMutable(Fn&& fn) {
    for (size_t i = 0; i < capacity_; ++i) {
      if (slots_[i].key != 0) fn(slots_[i].key, slots_[i].value);
    }
  }
  // The same, and the memory each key addresses (an object) is fetched some entries ahead: fn
  // reading the objects then waits for one cache miss at a time no more.
  template <class Fn>
  void ForEachObject(Fn&& fn) {
    constexpr size_t kAhead = 64;
    for (size_t i = 0; i < capacity_; ++i) {
      if (i + kAhead < capacity_ && slots_[i + kAhead].key != 0)
        __builtin_prefetch(reinterpret_cast<const void*>(slots_[i + kAhead].key));
      if (slots_[i].key != 0) fn(slots_[i].key, slots_[i].value);
    }
  }
  // Appends to *keys every key that pred(key) holds for (the table stays as it is). Throws
  // std::bad_alloc.
  template <class Pred>
  void KeysWhere(Pred&& pred, std::vector<uintptr_t>* keys) const {
    for (size_t i = 0; i < capacity_; ++i) {
      if (slots_[i].key != 0 && pred(slots_[i].key)) keys->push_back(slots_[i].key);
    }
  }
  // Replaces every key k by move(k) (after GC compaction moved objects).
  template <class Move>
  void RekeyAll(Move&& move) {
    Slot* old = slots_;
    size_t old_capacity = capacity_;
    slots_ = nullptr;
    capacity_ = count_ = 0;
    for (size_t i = 0; i < old_capacity; ++i) {
      if (old[i].key != 0) Insert(move(old[i].key), old[i].value);
    }
    std::free(old);
  }

 private:
  struct Slot {
    uintptr_t key;  // 0: empty
    Value value;
  };
  size_t Home(uintptr_t key) const {
    return static_cast<size_t>(((key >> 3) * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  bool Grow();

  Slot* slots_ = nullptr;
  size_t capacity_ = 0;  // a power of two
  size_t count_ = 0;
  unsigned shift_ = 64;
};

template <class Value>
bool AddressTable<Value>::Grow() {
  size_t capacity = capacity_ == 0 ? 1024 : capacity_ * 2;
  auto* slots = static_cast<Slot*>(std::calloc(capacity, sizeof(Slot)));
  if (slots == nullptr) return false;
  Slot* old = slots_;
  size_t old_capacity = capacity_;
  slots_ = slots;
  capacity_ = capacity;
  shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(capacity));
  for (size_t i = 0; i < old_capacity; ++i) {
    if (old[i].key == 0) continue;
    size_t j = Home(old[i].key);
    while (slots_[j].key != 0) j = (j + 1) & (capacity - 1);
    slots_[j] = old[i];
  }
  std::free(old);
  return true;
}

template <class Value>
bool AddressTable<Value>::Erase(uintptr_t key, Value* removed) {
  if (count_ == 0) return false;
  size_t mask = capacity_ - 1;
  size_t hole = Home(key);
  while (slots_[hole].key != key) {
    if (slots_[hole].key == 0) return false;
    hole = (hole + 1) & mask;
  }
  if (removed != nullptr) *removed = slots_[hole].value;
  // Shift later members of the probe run back into the hole when their home allows it.
  for (size_t j = (hole + 1) & mask; slots_[j].key != 0; j = (j + 1) & mask) {
    size_t home = Home(slots_[j].key);
    bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole].key = 0;
  --count_;
  return true;
}

using ObjectTable = AddressTable<AllocationSite>;

}  // namespace memprof
