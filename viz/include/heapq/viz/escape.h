// Escaping for the picture formats: every string taken from a dump goes through one of these
// before it reaches DOT, SVG, HTML or a script's JSON, so that it always reads as text: its
// control characters and bidirectional overrides as escapes (heapq::escape_controls, kPicture),
// bytes that are not UTF-8 as U+FFFD.
#pragma once

#include <string>
#include <string_view>

namespace heapq::viz {

// The inside of a DOT double-quoted string (without the quotes): \ " and graphviz's escapes
// (\n, \l, \N, ...) read literally, & does not start an entity, braces and bars stay text.
std::string dot_string(std::string_view s);

// Text or attribute value for HTML, SVG and XML: & < > " ' become character references.
std::string xml_text(std::string_view s);

// A JSON string literal (with its quotes) safe inside an HTML <script> element: < > & and
// U+2028/U+2029 are \u escapes, so no "</script>" or "<!--" can close or open anything.
std::string script_json_string(std::string_view s);

}  // namespace heapq::viz
