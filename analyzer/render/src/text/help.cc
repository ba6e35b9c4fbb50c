#include "heapq/render/help.h"

#include <algorithm>
#include <vector>

#include "heapq/render/terminal_text.h"

namespace heapq::render {

namespace {

// Wraps a usage line between its [options], never inside one.
std::string wrap_usage(std::string_view line, size_t indent, size_t hang, size_t width) {
  std::string glued(line);
  int depth = 0;
  for (char& c : glued) {
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (c == ' ' && depth > 0) c = '\x01';
  }
  std::string out = wrap_words(glued, indent, hang, width);
  std::replace(out.begin(), out.end(), '\x01', ' ');
  return out;
}

}  // namespace

std::string fit_help(std::string_view text, size_t width) {
  std::vector<std::string_view> lines;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  std::string out;
  for (size_t i = 0; i < lines.size();) {
    const std::string_view line = lines[i];
    if (line.empty() || line.starts_with(' ')) {
      const size_t lead = line.find_first_not_of(' ');
      const size_t indent = line.starts_with("usage:") || lead == std::string_view::npos ? 0 : lead;
      out += display_width(line) <= width
                 ? std::string(line)
                 : std::string(indent, ' ') +
                       wrap_usage(line.substr(indent), indent, indent + 10, width);
      out += "\n";
      ++i;
      continue;
    }
    size_t end = i;
    bool too_long = false;
    std::string joined;
    for (; end < lines.size() && !lines[end].empty() && !lines[end].starts_with(' '); ++end) {
      too_long = too_long || display_width(lines[end]) > width;
      joined += (joined.empty() ? "" : " ") + std::string(lines[end]);
    }
    if (!too_long) {
      for (; i < end; ++i) out += std::string(lines[i]) + "\n";
      continue;
    }
    // A usage line wraps under the command's first option.
    const size_t hang =
        joined.starts_with("usage: ") ? std::min<size_t>(joined.find(' ', 13) + 1, 24) : 0;
    out += (hang ? wrap_usage(joined, 0, hang, width) : wrap_words(joined, 0, 0, width)) + "\n";
    i = end;
  }
  return out;
}

}  // namespace heapq::render
