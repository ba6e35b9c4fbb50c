// A picture of part of the heap (a retention tree, the top of a dominator tree) as boxes and
// labelled arrows, and its renderings: DOT text, and SVG through graphviz.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "heapq/answer/picture.h"
#include "heapq/base/result.h"

namespace heapq::viz {

// DOT text. Every string is escaped: box ids are generated (n0, n1, ...), never taken from
// the heap. O(boxes + arrows).
std::string to_dot(const Picture& picture);

// SVG laid out by graphviz's dot program (run as a child, the DOT on its stdin); when dot is
// missing, an error that says to install graphviz or, if given, what the caller offers instead
// ("use --format dot").
Result<std::string> dot_to_svg(std::string_view dot, std::string_view instead = {});

}  // namespace heapq::viz
