#include "heapq/base/utf8.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace heapq {

// The RFC 3629 table, byte by byte.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return k < s.size() && byte(k) >= lo && byte(k) <= hi;
  };
  unsigned c = byte(i);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c == 0xE0) return cont(i + 1, 0xA0) && cont(i + 2) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(i + 1) && cont(i + 2) ? 3 : 0;
  if (c == 0xED) return cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? 3 : 0;
  if (c == 0xF0) return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (c == 0xF4) return cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  return 0;
}

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // ASCII fast path, eight bytes at a time.
    if (i + 8 <= s.size()) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if ((w & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string repair_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  size_t i = 0;
  while (i < s.size()) {
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

uint32_t utf8_code_point(std::string_view s, size_t i, size_t n) {
  const auto b = [&](size_t k) {
    return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k]));
  };
  if (n == 1) return b(0);
  if (n == 2) return (b(0) & 0x1f) << 6 | (b(1) & 0x3f);
  if (n == 3) return (b(0) & 0x0f) << 12 | (b(1) & 0x3f) << 6 | (b(2) & 0x3f);
  return (b(0) & 0x07) << 18 | (b(1) & 0x3f) << 12 | (b(2) & 0x3f) << 6 | (b(3) & 0x3f);
}

bool control_character(uint32_t cp) {
  return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

namespace {

void append_escape(std::string& out, uint32_t cp, ControlEscapes style) {
  if (style != ControlEscapes::kPicture) {
    switch (cp) {
      case '\n':
        out += "\\n";
        return;
      case '\t':
        out += "\\t";
        return;
      case '\r':
        out += "\\r";
        return;
      case 0x1b:
        out += "\\e";
        return;
    }
  }
  const bool picture = style == ControlEscapes::kPicture;
  char buf[16];
  const char* format =
      cp < (picture ? 0x100u : 0x80u) ? (picture ? "\\x%02X" : "\\x%02x") : "\\u%04x";
  std::snprintf(buf, sizeof buf, format, static_cast<unsigned>(cp));
  out += buf;
}

}  // namespace

std::string escape_controls(std::string_view s, ControlEscapes style, bool keep_newlines) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence_length(s, i);
    if (n == 0) {  // a byte that is not UTF-8: shown, not sent
      if (style == ControlEscapes::kPicture) {
        out += "\xEF\xBF\xBD";
      } else {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x",
                      static_cast<unsigned>(static_cast<unsigned char>(s[i])));
        out += buf;
      }
      ++i;
      continue;
    }
    const uint32_t cp = utf8_code_point(s, i, n);
    if (cp == '\\' && style == ControlEscapes::kTerminal)
      out += "\\\\";
    else if (control_character(cp) && !(keep_newlines && cp == '\n'))
      append_escape(out, cp, style);
    else
      out.append(s.data() + i, n);
    i += n;
  }
  return out;
}

}  // namespace heapq
