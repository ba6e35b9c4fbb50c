// A picture of part of the heap (a retention tree, the top of a dominator tree) as boxes and
// labelled arrows, and its renderings: DOT text, and SVG through graphviz.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "heapq/result.h"

namespace heapq::viz {

enum class BoxKind {
  kRoots,   // the GC roots
  kObject,  // an object, or a shape of many
  kTarget,  // what the picture explains
  kHolder,  // the object a leak goes through
  kMore,    // "+ 1,999 more": what was collapsed
};

struct Box {
  BoxKind kind = BoxKind::kObject;
  std::string title;               // first line, bold: the class
  std::vector<std::string> lines;  // address, sizes, site...
};

struct Arrow {
  size_t from = 0, to = 0;  // indexes into Picture::boxes
  std::string label;        // the reference's name; may be empty
};

struct Picture {
  std::string caption;
  std::string id;  // prefixes the SVG's element ids, so that several SVGs share one page
  bool left_to_right = false;  // default: top to bottom, roots on top
  std::vector<Box> boxes;
  std::vector<Arrow> arrows;
};

// DOT text. Every string is escaped: box ids are generated (n0, n1, ...), never taken from
// the heap. O(boxes + arrows).
std::string to_dot(const Picture& picture);

// SVG laid out by graphviz's dot program (run as a child, the DOT on its stdin); when dot is
// missing, an error that says to install graphviz or, if given, what the caller offers instead
// ("use --format dot").
Result<std::string> dot_to_svg(std::string_view dot, std::string_view instead = {});

}  // namespace heapq::viz
