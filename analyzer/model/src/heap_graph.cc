#include "heapq/model/heap_graph.h"

#include <algorithm>
#include <bit>

#include "heapq/read/address_hash.h"

namespace heapq {

namespace {

// The address index: a table of 4-byte cells, each an object id in its low bits and, above
// them, a few bits of its address's hash (the tag), so that most probes that miss are told by
// the cell alone and never read the object's address at random. It has 4/3 as many cells as
// the objects it may hold (5.3 bytes an object when full), and an address's first cell is its
// hash scaled to that size (a multiply: the table need not be a power of two).
struct IndexShape {
  size_t cells;
  unsigned id_bits;  // ids are below 2^id_bits; the cell of all ones is never an id: empty
  uint32_t id_mask;

  explicit IndexShape(size_t limit, size_t table_cells)
      : cells(table_cells),
        id_bits(static_cast<unsigned>(std::bit_width(limit))),
        id_mask(id_bits >= 32 ? UINT32_MAX : (uint32_t{1} << id_bits) - 1) {}

  size_t first_cell(uint64_t hash) const {
    return static_cast<size_t>((static_cast<unsigned __int128>(hash) * cells) >> 64);
  }
  // Bits of the hash other than those first_cell reads most (its high ones): its low ones.
  uint32_t tag(uint64_t hash) const {
    return id_bits >= 32
               ? 0
               : static_cast<uint32_t>((hash & ((uint64_t{1} << (32 - id_bits)) - 1)) << id_bits);
  }
  size_t next(size_t cell) const { return cell + 1 == cells ? 0 : cell + 1; }
};

constexpr uint32_t kEmptyCell = UINT32_MAX;
// Inserts start at random cells of a table far bigger than the caches: the cell of an insert
// this many ahead is asked for meanwhile.
constexpr size_t kInsertAhead = 16;

// The cell that holds this address's id, or the empty cell where it would go.
size_t probe(const std::vector<uint32_t>& table, const IndexShape& shape,
             const AddressColumn& addresses, uint64_t address, uint64_t hash) {
  const uint32_t tag = shape.tag(hash);
  for (size_t cell = shape.first_cell(hash);; cell = shape.next(cell)) {
    const uint32_t c = table[cell];
    if (c == kEmptyCell || ((c & ~shape.id_mask) == tag && addresses[c & shape.id_mask] == address))
      return cell;
  }
}

// The next size of a full table: about the objects expected, with a little room as that
// estimate moves, but between a quarter more and four times what it holds (each growth puts
// every object in again: few of them, the last one late, when the estimate is good); half more
// when there is no estimate.
size_t grown_limit(size_t limit, size_t expected) {
  const size_t grown = expected == 0
                           ? limit + limit / 2
                           : std::clamp(expected + expected / 16, limit + limit / 4, 4 * limit);
  return std::max<size_t>(grown, 1024);
}

}  // namespace

AddressIndex::AddressIndex(const AddressColumn& addresses) {
  rebuild(addresses, addresses.size(), addresses.size());
}

void AddressIndex::rebuild(const AddressColumn& addresses, size_t objects, size_t limit) {
  // The ids come from the column, not the old table: it goes first.
  std::vector<uint32_t>().swap(cells_);
  limit_ = limit;
  objects_ = objects;
  // At most 3/4 full: linear probing still finds an address in about 2.5 probes, which mostly
  // share a cache line and mostly end at the tag.
  cells_.assign(std::max<size_t>(16, limit + limit / 3 + 1), kEmptyCell);
  const IndexShape shape(limit, cells_.size());
  for (uint32_t id = 0; id < objects; ++id) {
    if (id + kInsertAhead < objects)
      __builtin_prefetch(&cells_[shape.first_cell(address_hash(addresses[id + kInsertAhead]))]);
    // Each id at the first empty cell of its chain: of ids with one address (a store's graph
    // may have them), the first in id order comes first in the chain, and is the one found.
    const uint64_t hash = address_hash(addresses[id]);
    size_t cell = shape.first_cell(hash);
    while (cells_[cell] != kEmptyCell) cell = shape.next(cell);
    cells_[cell] = shape.tag(hash) | id;
  }
}

void AddressIndex::add_new(AddressColumn& addresses, std::span<const uint64_t> fresh,
                           size_t expected, std::vector<uint32_t>& repeats) {
  IndexShape shape(limit_, cells_.size());
  for (size_t i = 0; i < fresh.size(); ++i) {
    if (objects_ == limit_) {
      rebuild(addresses, objects_, grown_limit(limit_, expected));
      shape = IndexShape(limit_, cells_.size());
    }
    if (i + kInsertAhead < fresh.size())
      __builtin_prefetch(&cells_[shape.first_cell(address_hash(fresh[i + kInsertAhead]))]);
    const uint64_t hash = address_hash(fresh[i]);
    uint32_t& c = cells_[probe(cells_, shape, addresses, fresh[i], hash)];
    if (c != kEmptyCell) {
      repeats.push_back(static_cast<uint32_t>(i));
      continue;
    }
    c = shape.tag(hash) | static_cast<uint32_t>(objects_++);
    addresses.push_back(fresh[i]);
  }
}

std::optional<ObjectId> AddressIndex::find(const AddressColumn& addresses, uint64_t address) const {
  if (cells_.empty()) return std::nullopt;
  const IndexShape shape(limit_, cells_.size());
  const uint32_t c = cells_[probe(cells_, shape, addresses, address, address_hash(address))];
  if (c == kEmptyCell) return std::nullopt;
  return ObjectId(c & shape.id_mask);
}

void AddressIndex::prefetch_cell(uint64_t address) const {
  if (cells_.empty()) return;
  const IndexShape shape(limit_, cells_.size());
  __builtin_prefetch(&cells_[shape.first_cell(address_hash(address))]);
}

void AddressIndex::prefetch_object(const AddressColumn& addresses, uint64_t address) const {
  if (cells_.empty()) return;
  const IndexShape shape(limit_, cells_.size());
  const uint64_t hash = address_hash(address);
  const uint32_t c = cells_[shape.first_cell(hash)];
  if (c != kEmptyCell && (c & ~shape.id_mask) == shape.tag(hash))
    __builtin_prefetch(addresses.at(c & shape.id_mask));
}

void HeapGraph::build_address_index() const {
  std::call_once(*index_once_, [this] { address_index_ = AddressIndex(address_); });
}

void HeapGraph::drop_address_index() {
  address_index_ = AddressIndex();
  index_once_ = std::make_shared<std::once_flag>();
}

std::optional<ObjectId> HeapGraph::find(uint64_t address) const {
  build_address_index();
  return address_index_.find(address_, address);
}

void HeapGraph::prefetch_cell(uint64_t address) const {
  build_address_index();
  address_index_.prefetch_cell(address);
}

void HeapGraph::prefetch_object(uint64_t address) const {
  build_address_index();
  address_index_.prefetch_object(address_, address);
}

void HeapGraph::drop_empty_fields() {
  size_t o = 0;
  while (o < site_.size() && !site_[o].valid()) ++o;
  if (o == site_.size()) site_.clear();
  o = 0;
  while (o < generation_.size() && generation_[o] == 0) ++o;
  if (o == generation_.size()) generation_.clear();
}

std::vector<bool> reachable_from(const HeapGraph& g, std::vector<uint32_t> starts,
                                 const std::vector<bool>& not_through) {
  std::vector<bool> seen(g.object_count() + 1, false);
  for (uint32_t v : starts) seen[v] = true;
  std::vector<uint32_t>& stack = starts;
  while (!stack.empty()) {
    const uint32_t v = stack.back();
    stack.pop_back();
    if (!g.retains_from(v) || (v < not_through.size() && not_through[v])) continue;
    for (ObjectId w : g.references(ObjectId(v)))
      if (!seen[w.value()]) {
        seen[w.value()] = true;
        stack.push_back(w.value());
      }
  }
  seen.pop_back();  // the virtual root
  return seen;
}

std::vector<bool> reachable_from_roots(const HeapGraph& g) {
  return reachable_from(g, {g.virtual_root().value()}, {});
}

void HeapGraph::drop_references() {
  std::vector<uint32_t>().swap(edge_target_);
  std::vector<StringId>().swap(edge_name_);
  edge_begin_.assign(object_count() + 2, 0);
}

}  // namespace heapq
