#include "reachable_set.h"

#include <new>

extern "C" {
// Exported by libruby, declared by no public header.
int rb_objspace_markable_object_p(VALUE obj);
void rb_objspace_reachable_objects_from(VALUE obj, void (*func)(VALUE, void*), void* data);
}

namespace memprof {

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

void ReachableSet::Drain() {
  while (!pending_.empty() && !out_of_memory_) {
    VALUE obj = pending_.back();
    pending_.pop_back();
    if (rb_objspace_markable_object_p(obj))
      rb_objspace_reachable_objects_from(obj, &ReachableSet::OnReference, this);
  }
}

}  // namespace memprof
