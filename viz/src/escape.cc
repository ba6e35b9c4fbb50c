#include "heapq/viz/escape.h"

#include <cstdint>
#include <cstdio>

#include "heapq/utf8.h"

namespace heapq::viz {

namespace {

void append_hex_escape(std::string& out, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", c);
  out += buf;
}

}  // namespace

std::string printable_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence_length(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else if (n == 1 && (c < 0x20 || c == 0x7F)) {
      append_hex_escape(out, c);
      ++i;
    } else if (n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
      append_hex_escape(out, static_cast<unsigned char>(s[i + 1]));  // C1 controls
      i += 2;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string dot_string(std::string_view s) {
  std::string out;
  for (char c : printable_utf8(s)) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      // Graphviz reads entities (&lt;) in labels; a literal & must not start one.
      case '&':
        out += "&amp;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string xml_text(std::string_view s) {
  std::string out;
  for (char c : printable_utf8(s)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string script_json_string(std::string_view s) {
  std::string out = "\"";
  const std::string text = printable_utf8(s);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        // U+2028 and U+2029 (E2 80 A8/A9) end a line in older JavaScript.
        if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
            (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
          out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
          i += 2;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace heapq::viz
