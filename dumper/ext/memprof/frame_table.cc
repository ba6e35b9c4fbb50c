#include "frame_table.h"

#include <ruby/debug.h>

#include <new>

namespace memprof {

void FrameTable::Clear() {
  by_object_.Clear();
  watched_imemo_types_ = 0;
  names_.Clear();
  frames_.assign(1, Frame{0, kNoName, false});
  by_names_.clear();
}

namespace {

std::string_view StringBytes(VALUE str) {
  return {RSTRING_PTR(str), static_cast<size_t>(RSTRING_LEN(str))};
}

}  // namespace

// Throws std::bad_alloc, leaving the table whole.
uint32_t FrameTable::Intern(VALUE path, VALUE method) {
  const uint32_t path_id = names_.Intern(StringBytes(path));
  const uint32_t method_id =
      RB_TYPE_P(method, T_STRING) ? names_.Intern(StringBytes(method)) : kNoName;
  const uint64_t key = uint64_t{path_id} << 32 | method_id;
  if (auto it = by_names_.find(key); it != by_names_.end()) return it->second;
  const auto id = static_cast<uint32_t>(frames_.size());
  frames_.push_back(Frame{path_id, method_id, libraries_.IsApp(names_[path_id])});
  try {
    by_names_.emplace(key, id);
  } catch (...) {
    frames_.pop_back();
    throw;
  }
  return id;
}

uint32_t FrameTable::Resolve(VALUE frame) noexcept {
  if (const uint32_t* id = by_object_.Find(frame)) return *id;
  // Both return the iseq's own Strings (Ruby 3.1 to 3.4): nothing is allocated.
  const VALUE path = rb_profile_frame_path(frame);
  uint32_t id = kCFrame;
  if (RB_TYPE_P(path, T_STRING)) {
    try {
      id = Intern(path, rb_profile_frame_label(frame));
    } catch (const std::bad_alloc&) {
      return kFailed;
    }
  }
  by_object_.Insert(frame, id);  // out of memory, the next sight names it again
  watched_imemo_types_ |= 1u << ImemoType(frame);
  return id;
}

// The frame objects that moved are still the same code: their ids stand.
void FrameTable::UpdateAfterCompaction() {
  by_object_.RekeyAll([](uintptr_t key) { return static_cast<uintptr_t>(rb_gc_location(key)); });
}

size_t FrameTable::Bytes() const {
  return by_object_.Bytes() + names_.Bytes() + frames_.capacity() * sizeof(Frame) +
         by_names_.size() * 32 + by_names_.bucket_count() * sizeof(void*);
}

}  // namespace memprof
