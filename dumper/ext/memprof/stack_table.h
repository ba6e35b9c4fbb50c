// Allocation stacks, interned: each distinct stack (frame ids of the FrameTable and lines,
// innermost first) is stored once and named by a small id that the tracked objects keep. Updated
// inside the NEWOBJ hook: malloc only, never Ruby's allocator; a stack that cannot be stored is 0
// (none).
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace memprof {

class StackTable {
 public:
  static constexpr int kMaxDepth = 64;

  StackTable();
  // frames[i] (FrameTable ids) and lines[i] as rb_profile_frames gives them, n of each; returns
  // the stack's id (1, 2, ...), or 0 when n is 0 or memory ran out.
  uint32_t Intern(const uint32_t* frames, const int* lines, int n) noexcept;
  std::span<const uint32_t> Frames(uint32_t id) const {
    return {frames_.data() + begin_[id], frames_.data() + begin_[id + 1]};
  }
  std::span<const int> Lines(uint32_t id) const {
    return {lines_.data() + begin_[id], lines_.data() + begin_[id + 1]};
  }
  uint32_t Count() const { return static_cast<uint32_t>(begin_.size() - 1); }  // id 0 included
  void Clear();
  size_t Bytes() const;

 private:
  static uint64_t Hash(const uint32_t* frames, const int* lines, int n);
  bool Same(uint32_t id, const uint32_t* frames, const int* lines, int n) const;

  std::vector<uint32_t> frames_;
  std::vector<int> lines_;
  std::vector<uint32_t> begin_;  // stack id -> its first frame; id 0 is the empty stack
  std::unordered_map<uint64_t, uint32_t> by_hash_;  // hash -> the last stack with it
  std::vector<uint32_t> same_hash_;                 // by id: the one before with its hash, or 0
};

}  // namespace memprof
