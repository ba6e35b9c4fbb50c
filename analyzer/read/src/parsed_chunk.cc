#include "heapq/read/parsed_chunk.h"

#include <cstring>

namespace heapq {

namespace {

constexpr uint32_t kDropped = UINT32_MAX;

// Keeps the values of the objects kept, in order.
template <typename T>
void keep(std::vector<T>& values, const std::vector<uint32_t>& new_index) {
  size_t out = 0;
  for (size_t i = 0; i < values.size(); ++i)
    if (new_index[i] != kDropped) values[out++] = values[i];
  values.resize(out);
}

// Keeps the records of the objects kept, the object each names renumbered.
template <typename T, typename Object>
void renumber(std::vector<T>& records, const std::vector<uint32_t>& new_index, Object object) {
  size_t out = 0;
  for (T& r : records) {
    uint32_t& o = object(r);
    if (new_index[o] == kDropped) continue;
    o = new_index[o];
    records[out++] = r;
  }
  records.resize(out);
}

// An object's references are refs[refs_end[i - 1], refs_end[i]), their names (once any
// record has names) beside them in ref_names.
void keep_references(ParsedChunk& c, const std::vector<uint32_t>& new_index) {
  const bool named = !c.ref_names.empty();
  size_t out = 0, begin = 0, kept = 0;
  for (size_t i = 0; i < c.refs_end.size(); ++i) {
    const size_t end = c.refs_end[i];
    if (new_index[i] != kDropped) {
      for (size_t r = begin; r < end; ++r, ++out) {
        c.refs[out] = c.refs[r];
        if (named) c.ref_names[out] = c.ref_names[r];
      }
      c.refs_end[kept++] = static_cast<uint32_t>(out);
    }
    begin = end;
  }
  c.refs.resize(out);
  if (named) c.ref_names.resize(out);
  c.refs_end.resize(kept);
}

// STRING values: those of the objects kept, their bytes moved up to follow one another.
void keep_values(ParsedChunk& c, const std::vector<uint32_t>& new_index) {
  size_t out = 0;
  uint64_t bytes = 0;
  for (ValueRecord v : c.string_values) {
    if (new_index[v.object] == kDropped) continue;
    v.object = new_index[v.object];
    std::memmove(c.value_bytes.data() + bytes, c.value_bytes.data() + v.offset, v.size);
    v.offset = bytes;
    bytes += v.size;
    c.string_values[out++] = v;
  }
  c.string_values.resize(out);
  c.value_bytes.resize(bytes);
  // The graph keeps the buffer whole.
  if (bytes < c.value_bytes.capacity() / 2) c.value_bytes.shrink_to_fit();
}

}  // namespace

void drop_objects(ParsedChunk& c, std::span<const uint32_t> dropped) {
  if (dropped.empty()) return;
  std::vector<uint32_t> new_index(c.object_count());
  for (uint32_t i = 0, d = 0, kept = 0; i < new_index.size(); ++i) {
    const bool drop = d < dropped.size() && dropped[d] == i;
    d += drop;
    new_index[i] = drop ? kDropped : kept++;
  }
  keep_references(c, new_index);
  keep(c.address, new_index);
  keep(c.record_line, new_index);
  keep(c.type, new_index);
  keep(c.memsize, new_index);
  keep(c.class_slot, new_index);
  keep(c.site_slot, new_index);
  keep(c.generation, new_index);
  if (!c.seq.empty()) keep(c.seq, new_index);
  if (!c.stack.empty()) keep(c.stack, new_index);
  renumber(c.classes, new_index, [](ClassRecord& r) -> uint32_t& { return r.object; });
  renumber(c.class_names, new_index, [](ObjectLabel& l) -> uint32_t& { return l.object; });
  renumber(c.weak_holders, new_index, [](uint32_t& o) -> uint32_t& { return o; });
  renumber(c.block_sites, new_index,
           [](std::pair<uint32_t, uint32_t>& b) -> uint32_t& { return b.first; });
  keep_values(c, new_index);
}

}  // namespace heapq
