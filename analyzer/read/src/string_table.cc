#include "heapq/read/string_table.h"

#include <algorithm>
#include <cstring>

namespace heapq {

namespace {
constexpr size_t kBlockBytes = 64 * 1024;
}

StringId StringTable::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  std::string_view stored(store(s), s.size());
  StringId id(static_cast<uint32_t>(strings_.size()));
  strings_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

char* StringTable::store(std::string_view s) {
  if (s.size() > free_left_) {
    size_t n = std::max(kBlockBytes, s.size());
    blocks_.push_back(std::make_unique<char[]>(n));
    free_ = blocks_.back().get();
    free_left_ = n;
  }
  char* p = free_;
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  free_ += s.size();
  free_left_ -= s.size();
  stored_ += s.size();
  return p;
}

}  // namespace heapq
