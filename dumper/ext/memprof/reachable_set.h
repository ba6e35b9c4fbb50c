// Which heap objects the GC roots reach: a mark phase without its sweep. A fork child's dump
// writes only these, so it holds no garbage, and no finalizer or free function of the program
// runs (a full GC in the child would flush a garbage File's buffer into the file a second time).
#pragma once

#include <ruby.h>

#include <array>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "elements.h"

namespace memprof {

class ReachableSet {
 public:
  // Ruby context, GC disabled: marks every object the roots (category, object) reach through
  // the references the GC marks. Allocates only C++ memory; false when it ran out (the set is
  // then incomplete: write everything).
  template <typename Roots>
  bool MarkFrom(const Roots& roots) {
    for (const auto& root : roots) Push(root.second);
    Drain();
    return !out_of_memory_;
  }

  bool Contains(VALUE obj) const;
  size_t Count() const { return count_; }

 private:
  static void OnReference(VALUE ref, void* data);
  static void OnReferenceButElement(VALUE ref, void* data);
  void Push(VALUE obj) noexcept;  // marks obj; traces its references later if it was new
  void Trace(VALUE obj);
  void Drain();

  // One bit per 8 bytes of the heap, in 4 KiB blocks: about a byte per object of a full heap.
  static constexpr int kBlockShift = 12;
  using Block = std::array<uint64_t, (1 << kBlockShift) / 8 / 64>;
  std::unordered_map<uintptr_t, uint32_t> block_index_;  // address >> kBlockShift -> blocks_
  std::vector<Block> blocks_;
  std::vector<VALUE> pending_;  // marked, references not yet traced: an explicit stack, so
                                // that a 100k-long linked list costs no recursion
  // Big containers whose elements are pushed a few at a time, so that a 6M-element Array does
  // not put 6M objects on pending_ at once.
  std::vector<Elements> containers_;
  Elements tracing_;  // the container being traced, whose elements its marker reports too
  Elements::Element next_element_;
  bool has_next_element_ = false;
  size_t count_ = 0;
  bool out_of_memory_ = false;  // no exception crosses Ruby's marking code
};

}  // namespace memprof
