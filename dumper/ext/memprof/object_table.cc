// Linear probing with backward-shift deletion (no tombstones), load factor at most 0.7.
#include "object_table.h"

#include <cstdlib>

namespace memprof {

ObjectTable::~ObjectTable() {
  Free(slots_);
}

void ObjectTable::Free(Slot* slots) {
  std::free(slots);
}

const AllocationSite* ObjectTable::Find(uintptr_t key) const {
  if (count_ == 0) return nullptr;
  size_t mask = capacity_ - 1;
  for (size_t i = Home(key);; i = (i + 1) & mask) {
    if (slots_[i].key == key) return &slots_[i].site;
    if (slots_[i].key == 0) return nullptr;
  }
}

bool ObjectTable::Grow() {
  size_t capacity = capacity_ == 0 ? 1024 : capacity_ * 2;
  auto* slots = static_cast<Slot*>(std::calloc(capacity, sizeof(Slot)));
  if (slots == nullptr) return false;
  Slot* old = slots_;
  size_t old_capacity = capacity_;
  slots_ = slots;
  capacity_ = capacity;
  shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(capacity));
  size_t mask = capacity - 1;
  for (size_t i = 0; i < old_capacity; ++i) {
    if (old[i].key == 0) continue;
    size_t j = Home(old[i].key);
    while (slots_[j].key != 0) j = (j + 1) & mask;
    slots_[j] = old[i];
  }
  Free(old);
  return true;
}

void ObjectTable::Insert(uintptr_t key, const AllocationSite& site) {
  if ((count_ + 1) * 10 > capacity_ * 7 && !Grow()) return;
  size_t mask = capacity_ - 1;
  size_t i = Home(key);
  while (slots_[i].key != 0 && slots_[i].key != key) i = (i + 1) & mask;
  if (slots_[i].key == 0) ++count_;
  slots_[i].key = key;
  slots_[i].site = site;
}

void ObjectTable::Erase(uintptr_t key) {
  if (count_ == 0) return;
  size_t mask = capacity_ - 1;
  size_t hole = Home(key);
  while (slots_[hole].key != key) {
    if (slots_[hole].key == 0) return;
    hole = (hole + 1) & mask;
  }
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
}

void ObjectTable::Clear() {
  Free(slots_);
  slots_ = nullptr;
  capacity_ = count_ = 0;
  shift_ = 64;
}

}  // namespace memprof
