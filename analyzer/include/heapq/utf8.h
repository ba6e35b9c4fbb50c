// UTF-8, the one decoder every part of heapq uses: the reader checks the strings it keeps (Ruby
// 3.1 writes some file names with raw bytes), and JSON, terminal text and pictures repair or
// escape what reaches them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace heapq {

// The length of the well-formed UTF-8 sequence at s[i] (1 to 4), or 0 when the bytes there
// are not one (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
size_t utf8_sequence_length(std::string_view s, size_t i);

// True when s is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool valid_utf8(std::string_view s);

// s with each ill-formed sequence replaced by U+FFFD.
std::string repair_utf8(std::string_view s);

}  // namespace heapq
