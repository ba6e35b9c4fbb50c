// An Array's elements, or a big Hash's keys, values and default, one at a time in the order the
// GC marks them, read in place: what lets the namer and the reachable set walk a 6M-element
// Array in memory that does not grow with it.
#pragma once

#include <ruby.h>

#include <cstdint>

namespace memprof {

class Elements {
 public:
  enum class Kind : uint8_t { kIndex, kKey, kValue, kDefault };
  struct Element {
    VALUE value;
    Kind kind;
    uintptr_t detail;  // kIndex: the index; kValue: the key
  };

  // Starts on obj; false (and nothing to walk) for anything but an Array that owns its
  // elements or a Hash too big for its 8-entry table (smaller ones: rb_hash_foreach).
  bool Start(VALUE obj, int type);
  // The next element that is a heap object (the GC marks no other); false at the end.
  bool Next(Element& next);
  // How many elements, keys and values it walks at most.
  long Size() const { return of_ == Of::kHash ? 2 * positions_ : positions_; }

 private:
  enum class Of : uint8_t { kNothing, kArray, kHash } of_ = Of::kNothing;
  VALUE container_ = 0;
  long position_ = 0;
  long positions_ = 0;
  VALUE key_ = 0;            // Hash: the key at position_, given; its value comes next
  bool value_next_ = false;  // Hash: the key at position_ was given
  bool default_left_ = false;
};

}  // namespace memprof
