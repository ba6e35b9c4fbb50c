#include <string>

#include "heapq/viz/escape.h"
#include "heapq/viz/picture.h"

namespace heapq::viz {

namespace {

std::string_view box_style(BoxKind kind) {
  switch (kind) {
    case BoxKind::kRoots:
      return "shape=ellipse, style=filled, fillcolor=\"#dddddd\"";
    case BoxKind::kObject:
      return "style=\"rounded,filled\", fillcolor=\"#f4f6fb\"";
    case BoxKind::kTarget:
      return "style=\"rounded,filled\", fillcolor=\"#cfe3ff\", color=\"#2c5aa0\"";
    case BoxKind::kHolder:
      return "style=\"rounded,filled,bold\", fillcolor=\"#ffd9d4\", color=\"#c0392b\", penwidth=3";
    case BoxKind::kMore:
      return "style=\"rounded,dashed\", fontcolor=\"#555555\"";
  }
  return "";
}

std::string label(const Box& box) {
  std::string out = dot_string(box.title);
  for (const std::string& line : box.lines) out += "\\n" + dot_string(line);
  return out;
}

}  // namespace

std::string to_dot(const Picture& p) {
  std::string out = "digraph heapq {\n";
  out += "  graph [rankdir=" + std::string(p.left_to_right ? "LR" : "TB") +
         ", fontname=\"Helvetica\", fontsize=11, labelloc=t, label=\"" + dot_string(p.caption) +
         "\"" + (p.id.empty() ? "" : ", id=\"" + dot_string(p.id) + "\"") + "];\n";
  out += "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n";
  out += "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];\n";
  for (size_t i = 0; i < p.boxes.size(); ++i)
    out += "  n" + std::to_string(i) + " [label=\"" + label(p.boxes[i]) + "\", " +
           std::string(box_style(p.boxes[i].kind)) + "];\n";
  for (const Arrow& a : p.arrows) {
    out += "  n" + std::to_string(a.from) + " -> n" + std::to_string(a.to);
    if (!a.label.empty()) out += " [label=\"" + dot_string(a.label) + "\"]";
    out += ";\n";
  }
  return out + "}\n";
}

}  // namespace heapq::viz
