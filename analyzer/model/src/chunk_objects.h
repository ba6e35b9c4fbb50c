// A chunk's objects join the graph's address index in dump order: a record at an address an
// earlier record has is a bad line of its chunk, and leaves it.
#pragma once

#include <cstdint>
#include <vector>

#include "heapq/model/heap_graph.h"
#include "heapq/read/parsed_chunk.h"

namespace heapq {

// Appends the chunk's new addresses to `addresses` and the index (which grows to about
// `expected` objects when full; 0: unknown), and takes the records that repeat an address out
// of the chunk, each one a bad line among the chunk's others. Returns how many there were.
uint64_t index_chunk_objects(ParsedChunk& chunk, AddressIndex& index, AddressColumn& addresses,
                             size_t expected);

}  // namespace heapq
