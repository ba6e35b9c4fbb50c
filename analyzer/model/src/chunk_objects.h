// A chunk's objects join the graph's address index in dump order: a record at an address an
// earlier record has is a bad line of its chunk, and leaves it.
#pragma once

#include <cstdint>
#include <vector>

#include "heapq/read/parsed_chunk.h"

namespace heapq {

// Takes the records that repeat an address (their positions, ascending, as
// GraphBuilder::add_objects gives them) out of the chunk, each one a bad line among the
// chunk's others. Returns how many there were.
uint64_t drop_repeated_objects(ParsedChunk& chunk, const std::vector<uint32_t>& repeats);

}  // namespace heapq
