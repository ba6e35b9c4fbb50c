// A container's elements one at a time; see elements.h.
#include "elements.h"

#include "ruby_compat.h"
#include "vm_internals.h"

namespace memprof {

bool Elements::Start(VALUE obj, int type) {
  *this = Elements();
  if (type == T_ARRAY && !compat::ArrayShared(obj)) {
    of_ = Of::kArray;
    positions_ = RARRAY_LEN(obj);
  } else if (type == T_HASH && (positions_ = memprof_hash_positions(obj)) >= 0) {
    of_ = Of::kHash;
    default_left_ = true;
  } else {
    positions_ = 0;
    return false;
  }
  container_ = obj;
  return true;
}

bool Elements::Next(Element& next) {
  if (of_ == Of::kArray) {
    // Read in place: nothing moves or changes while the heap is walked.
    const VALUE* elements = ArrayElements(container_);
    while (position_ < positions_) {
      long index = position_++;
      if (!SPECIAL_CONST_P(elements[index])) {
        next = {elements[index], Kind::kIndex, static_cast<uintptr_t>(index)};
        return true;
      }
    }
    return false;
  }
  if (of_ != Of::kHash) return false;
  while (position_ < positions_) {
    VALUE key = 0;
    VALUE value = 0;
    if (value_next_) {
      value_next_ = false;
      memprof_hash_entry_at(container_, position_++, &key, &value);
      if (!SPECIAL_CONST_P(value)) {
        next = {value, Kind::kValue, key_};
        return true;
      }
      continue;
    }
    if (!memprof_hash_entry_at(container_, position_, &key_, &value)) {
      ++position_;  // a deleted entry
      continue;
    }
    value_next_ = true;
    if (!SPECIAL_CONST_P(key_)) {
      next = {key_, Kind::kKey, 0};
      return true;
    }
  }
  if (default_left_) {
    default_left_ = false;
    VALUE ifnone = memprof_hash_ifnone(container_);
    if (!SPECIAL_CONST_P(ifnone)) {
      next = {ifnone, Kind::kDefault, 0};
      return true;
    }
  }
  return false;
}

}  // namespace memprof
