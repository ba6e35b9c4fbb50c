// Interned byte strings named by small ids: the file paths and frame names the tracker copies
// out of Ruby's Strings, so that it holds none of them. Updated inside the NEWOBJ hook: malloc
// only, never Ruby's allocator.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace memprof {

class StringTable {
 public:
  // The id of bytes, the same for equal bytes (0, 1, ...). Throws std::bad_alloc; the table
  // then stays as it was.
  uint32_t Intern(std::string_view bytes) {
    if (last_ < strings_.size() && strings_[last_] == bytes) return last_;
    auto it = ids_.find(bytes);
    if (it == ids_.end()) {
      strings_.emplace_back(bytes);
      try {
        it = ids_.emplace(strings_.back(), static_cast<uint32_t>(strings_.size() - 1)).first;
      } catch (...) {
        strings_.pop_back();
        throw;
      }
      bytes_ += sizeof(std::string) + bytes.size() + kNodeBytes;
    }
    last_ = it->second;
    return last_;
  }
  std::string_view operator[](uint32_t id) const { return strings_[id]; }
  uint32_t Size() const { return static_cast<uint32_t>(strings_.size()); }
  void Clear() {
    strings_.clear();
    ids_.clear();
    last_ = 0;
    bytes_ = 0;
  }
  // Roughly what the table holds in memory (a map node and the string's bytes per string).
  size_t Bytes() const { return bytes_ + ids_.bucket_count() * sizeof(void*); }

 private:
  std::deque<std::string> strings_;  // a deque: the map's views stay valid as it grows
  std::unordered_map<std::string_view, uint32_t> ids_;
  uint32_t last_ = 0;  // the last id interned: most allocations repeat the last file
  size_t bytes_ = 0;
  static constexpr size_t kNodeBytes = 32;
};

}  // namespace memprof
