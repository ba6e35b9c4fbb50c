// Text of the parts answers share, and the last step of every text renderer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace heapq::render {

// A renderer's text as the terminal gets it: control characters of dump strings escaped (lines
// kept), each line made to fit width columns (0: no limit).
std::string finish_text(std::string_view text, size_t width);

}  // namespace heapq::render
