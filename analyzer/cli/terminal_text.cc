#include "cli/terminal_text.h"

#include <cstdint>
#include <cstdio>

#include "heapq/utf8.h"

namespace heapq::cli {

namespace {

uint32_t code_point(std::string_view s, size_t i, size_t n) {
  const auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k])); };
  if (n == 1) return b(0);
  if (n == 2) return (b(0) & 0x1f) << 6 | (b(1) & 0x3f);
  if (n == 3) return (b(0) & 0x0f) << 12 | (b(1) & 0x3f) << 6 | (b(2) & 0x3f);
  return (b(0) & 0x07) << 18 | (b(1) & 0x3f) << 12 | (b(2) & 0x3f) << 6 | (b(3) & 0x3f);
}

// Characters that change how a terminal shows what follows them.
bool invisible_control(uint32_t cp) {
  return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

void append_escape(std::string& out, uint32_t cp) {
  switch (cp) {
    case '\n': out += "\\n"; return;
    case '\t': out += "\\t"; return;
    case '\r': out += "\\r"; return;
    case 0x1b: out += "\\e"; return;
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, cp < 0x80 ? "\\x%02x" : "\\u%04x", static_cast<unsigned>(cp));
  out += buf;
}

std::string escape(std::string_view s, bool keep_newlines) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence_length(s, i);
    if (n == 0) {  // a byte that is not UTF-8: shown, not sent
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(s[i])));
      out += buf;
      ++i;
      continue;
    }
    const uint32_t cp = code_point(s, i, n);
    if (invisible_control(cp) && !(keep_newlines && cp == '\n'))
      append_escape(out, cp);
    else
      out.append(s.data() + i, n);
    i += n;
  }
  return out;
}

}  // namespace

std::string escape_controls(std::string_view s) { return escape(s, false); }

std::string escape_controls_keep_lines(std::string_view text) { return escape(text, true); }

size_t display_width(std::string_view s) {
  size_t width = 0;
  for (unsigned char c : s) width += (c & 0xc0) != 0x80;
  return width;
}

std::string fit_width(std::string_view s, size_t max_width) {
  const size_t width = display_width(s);
  if (width <= max_width || max_width < 3) return std::string(s);
  const size_t keep = max_width - 1, head = (keep + 1) / 2, tail = keep - head;
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

}  // namespace heapq::cli
