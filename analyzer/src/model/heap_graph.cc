#include "heapq/heap_graph.h"

#include <algorithm>
#include <bit>

#include "model/address_hash.h"

namespace heapq {

size_t HeapGraph::build_address_index() const {
  std::call_once(*index_once_, [this] {
    const size_t n = address_.size();
    // At most 3/4 full: linear probing still finds an address in about 2.5 probes, which
    // mostly share a cache line, and the table costs 5.3 to 10.7 bytes an object.
    address_index_.assign(std::bit_ceil(std::max<size_t>(16, n + n / 3 + 1)), ObjectId::none());
    const size_t mask = address_index_.size() - 1;
    for (uint32_t id = 0; id < n; ++id) {
      const uint64_t address = address_[id];
      for (size_t slot = address_hash(address) & mask;; slot = (slot + 1) & mask) {
        ObjectId& cell = address_index_[slot];
        if (!cell.valid()) {
          cell = ObjectId(id);
          break;
        }
        if (address_[cell.value()] == address) {
          ++duplicate_addresses_;
          break;
        }
      }
    }
  });
  return duplicate_addresses_;
}

std::optional<ObjectId> HeapGraph::find(uint64_t address) const {
  build_address_index();
  const size_t mask = address_index_.size() - 1;
  for (size_t slot = address_hash(address) & mask;; slot = (slot + 1) & mask) {
    ObjectId id = address_index_[slot];
    if (!id.valid()) return std::nullopt;
    if (address_[id.value()] == address) return id;
  }
}

void HeapGraph::prefetch_slot(uint64_t address) const {
  if (address_index_.empty()) return;  // not built yet
  const size_t mask = address_index_.size() - 1;
  __builtin_prefetch(&address_index_[address_hash(address) & mask]);
}

void HeapGraph::prefetch_object(uint64_t address) const {
  if (address_index_.empty()) return;
  const size_t mask = address_index_.size() - 1;
  const ObjectId id = address_index_[address_hash(address) & mask];
  if (id.valid()) __builtin_prefetch(&address_[id.value()]);
}

void HeapGraph::drop_empty_fields() {
  if (std::none_of(site_.begin(), site_.end(), [](SiteId s) { return s.valid(); }))
    std::vector<SiteId>().swap(site_);
  if (std::none_of(generation_.begin(), generation_.end(), [](uint32_t g) { return g != 0; }))
    std::vector<uint32_t>().swap(generation_);
}

void HeapGraph::drop_references() {
  std::vector<uint32_t>().swap(edge_target_);
  std::vector<StringId>().swap(edge_name_);
  edge_begin_.assign(object_count() + 2, 0);
}

}  // namespace heapq
