#include "heapq/render/terminal_text.h"

#include <algorithm>
#include <vector>

namespace heapq::render {

namespace {

// A unit of a line to wrap: a word (with the spaces that follow it) or a " -> " step.
std::vector<std::string_view> split_units(std::string_view body, std::string_view separator) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t at = body.find(separator, 1); at != std::string_view::npos;
       at = body.find(separator, at + separator.size())) {
    out.push_back(body.substr(start, at - start));
    start = at + 1;  // the next unit starts after the space
  }
  out.push_back(body.substr(start));
  return out;
}

void wrap_line(std::string_view line, size_t width, std::string& out) {
  const size_t lead = std::min(line.find_first_not_of(' '), line.size());
  const std::string_view body = line.substr(lead);
  const bool path = body.find(" -> ") != std::string_view::npos;
  // A path's steps go on under its first one (two columns in); other lines, four columns in.
  const size_t root = path ? line.find("ROOT(") : std::string_view::npos;
  const size_t start =
      root == std::string_view::npos ? lead + 2 : display_width(line.substr(0, root));
  const size_t indent = std::min(start + 2, width / 2);
  std::vector<std::string_view> units = split_units(body, path ? " -> " : " ");
  std::string current(lead, ' ');
  size_t used = lead;
  bool empty = true;  // no unit on the current line yet
  auto new_line = [&] {
    out += current;
    out += '\n';
    current.assign(indent, ' ');
    used = indent;
    empty = true;
  };
  auto place = [&](std::string_view unit) {
    const size_t w = display_width(unit);
    const size_t gap = empty ? 0 : 1;
    if (!empty && used + gap + w > width) new_line();
    if (!empty) {
      current += ' ';
      ++used;
    }
    const std::string fitted = fit_width(unit, width - used);
    current += fitted;
    used += display_width(fitted);
    empty = false;
  };
  for (std::string_view unit : units) {
    if (path && display_width(unit) + indent > width) {
      // A step longer than a line: its words wrap in turn, the arrow kept with the first.
      std::vector<std::string_view> words = split_units(unit, " ");
      if (words.size() > 1 && words[0] == "->") {
        words[1] = unit.substr(0, words[1].data() + words[1].size() - unit.data());
        words.erase(words.begin());
      }
      for (std::string_view word : words) place(word);
    } else {
      place(unit);
    }
  }
  out += current;
}

}  // namespace

std::string wrap_words(std::string_view text, size_t start, size_t indent, size_t width) {
  std::string out;
  size_t used = start;
  bool empty = true;
  for (size_t at = 0; at <= text.size();) {
    size_t end = text.find(' ', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    const size_t w = display_width(word);
    if (!empty && used + 1 + w > width) {
      out += "\n" + std::string(indent, ' ');
      used = indent;
      empty = true;
    }
    if (!empty) {
      out += ' ';
      ++used;
    }
    out += word;
    used += w;
    empty = false;
  }
  return out;
}

std::string fit_lines(std::string_view text, size_t width) {
  if (width == 0) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    const bool newline = end != std::string_view::npos;
    if (!newline) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (line.size() <= width || display_width(line) <= width)
      out += line;
    else
      wrap_line(line, width, out);
    if (newline) out += '\n';
    start = end + 1;
  }
  return out;
}

std::string escape_stray_controls(std::string_view text, bool keep_lines) {
  return escape_controls(text, ControlEscapes::kTerminalEscaped, keep_lines);
}

size_t display_width(std::string_view s) {
  size_t width = 0;
  for (unsigned char c : s) width += (c & 0xc0) != 0x80;
  return width;
}

std::string fit_width(std::string_view s, size_t max_width) {
  const size_t width = display_width(s);
  if (width <= max_width || max_width < 3) return std::string(s);
  const size_t keep = max_width - 1, head = max_width < 20 ? 0 : keep / 4, tail = keep - head;
  // Byte offsets of the head's end and the tail's start, on code point boundaries.
  size_t head_end = 0, seen = 0;
  for (; head_end < s.size(); ++head_end) {
    if ((static_cast<unsigned char>(s[head_end]) & 0xc0) != 0x80 && seen++ == head) break;
  }
  size_t tail_start = s.size(), counted = 0;
  while (tail_start > 0 && counted < tail) {
    --tail_start;
    if ((static_cast<unsigned char>(s[tail_start]) & 0xc0) != 0x80) ++counted;
  }
  return std::string(s.substr(0, head_end)) + "\u2026" + std::string(s.substr(tail_start));
}

}  // namespace heapq::render
