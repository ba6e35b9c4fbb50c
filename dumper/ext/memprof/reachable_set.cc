#include "reachable_set.h"

#include <new>

#include "ruby_compat.h"

namespace memprof {
namespace {

// Elements of a big container pushed at a time (and what makes a container big).
constexpr int kElementsAtOnce = 256;

}  // namespace

bool ReachableSet::Contains(VALUE obj) const {
  auto found = block_index_.find(obj >> kBlockShift);
  if (found == block_index_.end()) return false;
  size_t bit = (obj & ((1 << kBlockShift) - 1)) >> 3;
  return (blocks_[found->second][bit / 64] >> (bit % 64)) & 1;
}

void ReachableSet::Push(VALUE obj) noexcept {
  if (RB_SPECIAL_CONST_P(obj) || out_of_memory_) return;
  auto found = block_index_.find(obj >> kBlockShift);
  if (found == block_index_.end()) {
    try {
      blocks_.emplace_back();
      found = block_index_.emplace(obj >> kBlockShift, blocks_.size() - 1).first;
    } catch (const std::bad_alloc&) {
      out_of_memory_ = true;
      return;
    }
  }
  size_t bit = (obj & ((1 << kBlockShift) - 1)) >> 3;
  uint64_t& word = blocks_[found->second][bit / 64];
  uint64_t mask = uint64_t{1} << (bit % 64);
  if ((word & mask) != 0) return;
  word |= mask;
  try {
    pending_.push_back(obj);
  } catch (const std::bad_alloc&) {
    out_of_memory_ = true;
    return;
  }
  ++count_;
}

void ReachableSet::OnReference(VALUE ref, void* data) {
  static_cast<ReachableSet*>(data)->Push(ref);
}

// The marker reports a container's elements in their order, among what else it holds (its
// class, its ivars, a Hash's default): the elements are left to Drain, the rest pushed now.
void ReachableSet::OnReferenceButElement(VALUE ref, void* data) {
  auto* self = static_cast<ReachableSet*>(data);
  if (self->has_next_element_ && ref == self->next_element_.value) {
    self->has_next_element_ = self->tracing_.Next(self->next_element_);
    return;
  }
  self->Push(ref);
}

void ReachableSet::Trace(VALUE obj) {
  if (!IsLiveHeapObject(obj)) return;
  int type = BUILTIN_TYPE(obj);
  if ((type == T_ARRAY || type == T_HASH) && tracing_.Start(obj, type) &&
      tracing_.Size() > kElementsAtOnce) {
    has_next_element_ = tracing_.Next(next_element_);
    rb_objspace_reachable_objects_from(obj, &ReachableSet::OnReferenceButElement, this);
    try {
      containers_.emplace_back().Start(obj, type);
    } catch (const std::bad_alloc&) {
      out_of_memory_ = true;
    }
    return;
  }
  rb_objspace_reachable_objects_from(obj, &ReachableSet::OnReference, this);
}

void ReachableSet::Drain() {
  while (!out_of_memory_) {
    if (!pending_.empty()) {
      VALUE obj = pending_.back();
      pending_.pop_back();
      Trace(obj);
      continue;
    }
    if (containers_.empty()) return;
    Elements::Element element;
    int pushed = 0;
    while (pushed < kElementsAtOnce && containers_.back().Next(element)) {
      Push(element.value);
      ++pushed;
    }
    if (pushed < kElementsAtOnce) containers_.pop_back();
  }
}

}  // namespace memprof
