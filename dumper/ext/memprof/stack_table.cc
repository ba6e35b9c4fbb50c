#include "stack_table.h"

#include <algorithm>
#include <new>

namespace memprof {

StackTable::StackTable() {
  Clear();
}

void StackTable::Clear() {
  frames_.clear();
  lines_.clear();
  begin_.assign(2, 0);
  by_hash_.clear();
  same_hash_.assign(1, 0);
}

uint64_t StackTable::Hash(const uint32_t* frames, const int* lines, int n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ static_cast<uint64_t>(n);
  for (int i = 0; i < n; ++i) {
    h = (h ^ static_cast<uint64_t>(frames[i])) * 0x100000001B3ULL;
    h = (h ^ static_cast<uint64_t>(static_cast<uint32_t>(lines[i]))) * 0x100000001B3ULL;
  }
  return h ^ (h >> 29);
}

bool StackTable::Same(uint32_t id, const uint32_t* frames, const int* lines, int n) const {
  if (begin_[id + 1] - begin_[id] != static_cast<uint32_t>(n)) return false;
  for (int i = 0; i < n; ++i)
    if (frames_[begin_[id] + i] != frames[i] || lines_[begin_[id] + i] != lines[i]) return false;
  return true;
}

namespace {

// Room for `more` elements, growing geometrically (reserving the exact size each time would
// copy the table once per stack).
template <typename T>
void Reserve(std::vector<T>& v, size_t more) {
  if (v.capacity() - v.size() < more) v.reserve(std::max(v.capacity() * 2, v.size() + more));
}

}  // namespace

uint32_t StackTable::Intern(const uint32_t* frames, const int* lines, int n) noexcept {
  if (n <= 0) return 0;
  const uint64_t h = Hash(frames, lines, n);
  try {
    auto [it, added] = by_hash_.try_emplace(h, 0);
    for (uint32_t id = it->second; id != 0; id = same_hash_[id])
      if (Same(id, frames, lines, n)) return id;
    // Every allocation first: past them nothing throws, and the table stays whole.
    Reserve(frames_, static_cast<size_t>(n));
    Reserve(lines_, static_cast<size_t>(n));
    Reserve(begin_, 1);
    Reserve(same_hash_, 1);
    const auto id = static_cast<uint32_t>(begin_.size() - 1);
    frames_.insert(frames_.end(), frames, frames + n);
    lines_.insert(lines_.end(), lines, lines + n);
    begin_.push_back(static_cast<uint32_t>(frames_.size()));
    same_hash_.push_back(it->second);
    it->second = id;
    return id;
  } catch (const std::bad_alloc&) {
    return 0;  // the object goes without a stack; the table is as it was or one stack longer
  }
}

size_t StackTable::Bytes() const {
  return frames_.capacity() * sizeof(uint32_t) + lines_.capacity() * sizeof(int) +
         (begin_.capacity() + same_hash_.capacity()) * sizeof(uint32_t) + by_hash_.size() * 32 +
         by_hash_.bucket_count() * sizeof(void*);
}

}  // namespace memprof
