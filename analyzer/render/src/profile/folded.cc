// A profile as folded stacks (flamegraph.pl, speedscope, inferno): one line per sample, its
// frames outermost first joined by ';', a space, and its value of the profile's last type.
#include <string>

#include "heapq/answer/wording.h"
#include "heapq/base/utf8.h"
#include "heapq/render/render.h"

namespace heapq::render {

namespace {

// A frame as one field of a line: no control characters (a newline would end the line), and
// no ';' (it would split the frame in two): both escaped as terminal text escapes them, a
// backslash included, so that no frame reads as another.
void append_frame(std::string& out, std::string_view frame) {
  for (char c : escape_controls(frame)) {
    if (c == ';')
      out += "\\x3b";
    else
      out += c;
  }
}

std::string frame_text(const ProfileAnswer::Frame& f) {
  if (f.file.empty()) return f.name;
  return f.name + " (" + site_location(f.file, f.line) + ")";
}

}  // namespace

std::string folded(const ProfileAnswer& a) {
  std::string out;
  if (a.types.empty()) return out;
  const size_t types = a.types.size();
  std::vector<uint32_t> stack;
  for (size_t i = 0; i < a.samples.size(); ++i) {
    const int64_t value = a.values[i * types + types - 1];
    if (value <= 0) continue;
    stack.clear();
    for (uint32_t node = a.samples[i].node; node != ProfileAnswer::kNoParent;
         node = a.node_parent[node])
      stack.push_back(a.node_frame[node]);
    for (size_t f = stack.size(); f-- > 0;) {
      append_frame(out, frame_text(a.frames[stack[f]]));
      if (f) out += ';';
    }
    const auto& labels = a.label_sets[a.samples[i].labels];
    if (!labels.empty()) {
      if (!stack.empty()) out += ';';
      append_frame(out, labels.front().second);
    }
    out += ' ';
    out += std::to_string(value);
    out += '\n';
  }
  return out;
}

}  // namespace heapq::render
