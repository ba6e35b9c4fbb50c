// Interned strings (class names, file paths, method names): each distinct string stored once.
#pragma once

#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "heapq/base/ids.h"
#include "heapq/base/keyed_hash.h"

namespace heapq {

class StringTable {
 public:
  StringTable() = default;
  StringTable(StringTable&&) noexcept = default;
  StringTable& operator=(StringTable&&) noexcept = default;

  StringId intern(std::string_view s);
  std::string_view operator[](StringId id) const { return strings_[id.value()]; }
  size_t size() const { return strings_.size(); }

 private:
  char* store(std::string_view s);

  std::vector<std::unique_ptr<char[]>> blocks_;  // stable storage: views never dangle
  char* free_ = nullptr;
  size_t free_left_ = 0;
  size_t stored_ = 0;
  std::vector<std::string_view> strings_;
  std::unordered_map<std::string_view, StringId, KeyedHash> index_;
};

}  // namespace heapq
