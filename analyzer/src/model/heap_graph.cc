#include "heapq/heap_graph.h"

#include "model/address_hash.h"

namespace heapq {

std::optional<ObjectId> HeapGraph::find(uint64_t address) const {
  if (address_index_.empty()) return std::nullopt;
  const size_t mask = address_index_.size() - 1;
  for (size_t slot = address_hash(address) & mask;; slot = (slot + 1) & mask) {
    ObjectId id = address_index_[slot];
    if (!id.valid()) return std::nullopt;
    if (address_[id.value()] == address) return id;
  }
}

size_t HeapGraph::bytes() const {
  auto v = [](const auto& vec) { return vec.capacity() * sizeof(vec[0]); };
  return v(address_) + v(type_) + v(class_of_) + v(memsize_) + v(site_) + v(generation_) +
         v(edge_begin_) + v(edge_target_) + v(edge_name_) + weak_holder_.capacity() / 8 + v(roots_) + v(classes_) + v(sites_) +
         v(address_index_) + strings_.bytes();
}

}  // namespace heapq
