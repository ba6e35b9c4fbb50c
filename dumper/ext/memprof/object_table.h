// An open-addressing hash map from object address to allocation site, cheap enough to update
// inside the NEWOBJ/FREEOBJ hooks (malloc only, never Ruby's allocator, never throws).
#pragma once

#include <cstddef>
#include <cstdint>

namespace memprof {

struct AllocationSite {
  uint64_t seq;   // monotonic per process
  uint32_t path;  // index into the tracker's path table
  uint32_t line;
  uintptr_t method;     // ID, 0 when unknown
  uint32_t generation;  // GC.count at allocation
  uint32_t stack;       // the tracker's allocation stack id, 0 when none
};

class ObjectTable {
 public:
  ObjectTable() = default;
  ~ObjectTable();
  ObjectTable(const ObjectTable&) = delete;
  ObjectTable& operator=(const ObjectTable&) = delete;

  const AllocationSite* Find(uintptr_t key) const;
  void Insert(uintptr_t key, const AllocationSite& site);  // drops the entry if out of memory
  void Erase(uintptr_t key);
  void Clear();
  size_t Size() const { return count_; }

  // fn(key, site) for every entry; fn must not modify the table.
  template <class Fn>
  void ForEach(Fn&& fn) const {
    for (size_t i = 0; i < capacity_; ++i) {
      if (slots_[i].key != 0) fn(slots_[i].key, slots_[i].site);
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
      if (old[i].key != 0) Insert(move(old[i].key), old[i].site);
    }
    Free(old);
  }

 private:
  struct Slot {
    uintptr_t key;  // 0: empty
    AllocationSite site;
  };
  size_t Home(uintptr_t key) const {
    return static_cast<size_t>(((key >> 3) * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  bool Grow();
  static void Free(Slot* slots);

  Slot* slots_ = nullptr;
  size_t capacity_ = 0;  // a power of two
  size_t count_ = 0;
  unsigned shift_ = 64;
};

}  // namespace memprof
