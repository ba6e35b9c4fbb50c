#include "heapq/viz/escape.h"

#include "heapq/base/utf8.h"

namespace heapq::viz {

namespace {

// A dump string as picture text: valid UTF-8 whose controls and bidirectional overrides are
// visible escapes (the escaper heapq's terminal text uses, in the pictures' form).
std::string printable(std::string_view s) {
  return escape_controls(s, ControlEscapes::kPicture);
}

}  // namespace

std::string dot_string(std::string_view s) {
  std::string out;
  for (char c : printable(s)) {
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
  for (char c : printable(s)) {
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
  const std::string text = printable(s);
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
