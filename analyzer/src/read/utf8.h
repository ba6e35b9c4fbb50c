// UTF-8 checks for the strings heapq keeps: Ruby 3.1 writes some file names with raw bytes.
#pragma once

#include <string>
#include <string_view>

namespace heapq {

// True when s is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool valid_utf8(std::string_view s);

// s with each ill-formed sequence replaced by U+FFFD.
std::string repair_utf8(std::string_view s);

}  // namespace heapq
