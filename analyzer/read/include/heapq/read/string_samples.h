// A few String and Symbol values of a dump file, read again for the addresses an answer shows
// (a leak's example String): the graph keeps no values unless a command needs them all.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "heapq/base/result.h"
#include "heapq/read/byte_source.h"

namespace heapq {

// The "value" of the STRING and SYMBOL records at `addresses` in the dump `source` reads (their
// first max_bytes bytes each), by address; an address whose record has no value (a binary String,
// a memprof dump without strings) is left out. One pass over the dump that parses only the
// lines of those records; a line longer than max_line_bytes is skipped.
Result<std::unordered_map<uint64_t, std::string>> read_string_samples(
    ByteSource& source, const std::vector<uint64_t>& addresses, size_t max_bytes,
    size_t max_line_bytes);

}  // namespace heapq
