// Pictures of part of the heap, as answers: a retention tree or the top of a dominator tree as
// boxes and labelled arrows, and the icicle's nodes. viz/ renders them (DOT, SVG, the report).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

// One node of the icicle: the dominator tree's top, the rest summed into "more" nodes.
struct IcicleNode {
  int32_t parent = -1;  // index of the parent; -1 for the root (index 0)
  std::string name;     // class (or "+ 12 more")
  std::string address;
  std::string site;
  std::string edge;    // the reference from its parent on a shortest path, when known
  uint64_t bytes = 0;  // retained
  uint64_t count = 0;  // retained objects
  bool more = false;   // stands for the children not drawn
};

}  // namespace heapq::viz
