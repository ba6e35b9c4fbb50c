// The stacks the tracker has named, by their control frames' raw words (memprof_raw_frames): a
// stack seen before is named by a hash of those words, where naming it again would walk it with
// rb_profile_frames, find each frame's line and intern the result. What rb_profile_frames makes
// of a stack is a function of those words as long as the iseqs and method entries they hold
// stay where they are: the cache forgets everything when one of them is freed or moved.
#pragma once

#include <cstdint>

#include "object_table.h"

namespace memprof {

class StackCache {
 public:
  // The most control frames a cached stack may have (deeper ones are named the long way).
  static constexpr int kMaxFrames = 256;
  static constexpr int kWords = 3;  // a control frame's words
  // At most this many stacks: past it the cache starts over.
  static constexpr size_t kMaxStacks = 1 << 16;

  struct Key {
    uint64_t a, b;  // two independent hashes of the words: 128 bits
  };
  static Key KeyOf(const uintptr_t* words, int frames) noexcept;

  // The stack id named by key, or 0.
  uint32_t Find(const Key& key) const noexcept {
    const Entry* e = stacks_.Find(Slot(key));
    return e != nullptr && e->b == key.b ? e->stack : 0;
  }
  // Remembers key's stack, and the iseqs and method entries its words hold (out of memory, not
  // the stack).
  void Insert(const Key& key, uint32_t stack, const uintptr_t* words, int frames) noexcept;
  // Whether obj is one of the objects the cached stacks' words hold.
  bool Holds(uintptr_t obj) const noexcept { return objects_.Find(obj) != nullptr; }
  // Whether pred holds for any object the cached stacks' words hold.
  template <class Pred>
  bool AnyObject(Pred&& pred) const {
    bool any = false;
    objects_.ForEach([&](uintptr_t obj, uint8_t) { any = any || pred(obj); });
    return any;
  }
  void Clear() noexcept {
    stacks_.Clear();
    objects_.Clear();
  }
  size_t Size() const { return stacks_.Size(); }
  size_t Bytes() const { return stacks_.Bytes() + objects_.Bytes(); }

 private:
  struct Entry {
    uint64_t b;
    uint32_t stack;
  };
  static uintptr_t Slot(const Key& key) { return key.a | 1; }  // never 0, the empty slot

  AddressTable<Entry> stacks_;
  AddressTable<uint8_t> objects_;  // iseqs and method entries, a set
};

}  // namespace memprof
