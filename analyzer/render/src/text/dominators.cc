#include <algorithm>

#include "heapq/answer/wording.h"
#include "heapq/render/render.h"
#include "heapq/render/terminal_text.h"
#include "text/common.h"

namespace heapq::render {

namespace {

// Deeper levels are indented no further (their depth is written instead): indentation would
// make the output quadratic in the depth of a chain.
constexpr size_t kMaxIndent = 12;  // 24 columns: a line keeps 56 of 80

std::string object_line(const DominatorsAnswer::Node& n) {
  std::string line = format_bytes(n.retained_bytes) + " in " +
                     counted(n.retained_count, "object", "objects") + ": " + object_text(n.object) +
                     " " + hex_address(n.object.address);
  if (n.object.site) line += " (" + site_text(*n.object.site) + ")";
  return line;
}

std::string tree_text(const DominatorsAnswer& a) {
  std::string out;
  for (const DominatorsAnswer::TreeEntry& e : a.entries) {
    std::string indent(2 * std::min(e.depth, kMaxIndent), ' ');
    if (e.depth > kMaxIndent) indent += "[" + std::to_string(e.depth) + "] ";
    if (e.hidden)
      out += indent + "(" + format_count(e.hidden) + " more)\n";
    else if (e.roots)
      out += "(roots) " + format_bytes(e.node.retained_bytes) + "\n";
    else
      out += indent + object_line(e.node) + "\n";
  }
  return out;
}

}  // namespace

std::string text(const DominatorsAnswer& a, const TextOptions& options) {
  if (a.tree) return finish_text(tree_text(a), options.width);
  std::string out = escape_controls(a.input.name) + ": " + format_bytes(a.reachable_bytes) +
                    " in " + counted(a.reachable_count, "object", "objects") +
                    " reachable from the roots";
  if (a.unreachable_count)
    out += "; " + counted(a.unreachable_count, "unreachable object", "unreachable objects") + " (" +
           format_bytes(a.unreachable_bytes) + ", " + unreachable_text(a.input) + ") left out";
  out += "\n\n";
  for (size_t i = 0; i < a.dominators.size(); ++i) {
    out += std::to_string(i + 1) + ". " + object_line(a.dominators[i].node) + "\n";
    out += "   " + path_text(a.dominators[i].path) + "\n";
  }
  return finish_text(out, options.width);
}

}  // namespace heapq::render
