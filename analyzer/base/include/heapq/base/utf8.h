// UTF-8, the one decoder every part of heapq uses: the reader checks the strings it keeps (Ruby
// 3.1 writes some file names with raw bytes), and JSON, terminal text and pictures repair or
// escape what reaches them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace heapq {

// The length of the well-formed UTF-8 sequence at s[i] (1 to 4), or 0 when the bytes there
// are not one (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
size_t utf8_sequence_length(std::string_view s, size_t i);

// True when s is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool valid_utf8(std::string_view s);

// s with each ill-formed sequence replaced by U+FFFD.
std::string repair_utf8(std::string_view s);

// The code point of the well-formed sequence of n bytes (utf8_sequence_length) at s[i].
uint32_t utf8_code_point(std::string_view s, size_t i, size_t n);

// True for a character that changes how what follows it is shown, or is not shown at all: the
// C0 controls, DEL, the C1 controls and the bidirectional embeddings, overrides and isolates
// (U+202A-U+202E, U+2066-U+2069), which reorder the text after them.
bool control_character(uint32_t cp);

// How escape_controls writes what it escapes.
enum class ControlEscapes {
  // For a terminal: \n \t \r \e, \xhh below U+0080, \uhhhh above, \xhh for each byte that
  // is not UTF-8, and \\ for a backslash, so that no string reads as another's escape (a NUL
  // and the four characters "\x00"). A string is escaped so once, not again.
  kTerminal,
  // For text made of pieces escaped already (kTerminal): controls and bytes as kTerminal writes
  // them, backslashes left as they are (they start the pieces' escapes). A second look that no
  // control character gets through; what it escapes was not escaped before.
  kTerminalEscaped,
  // For the picture formats, whose text must be UTF-8: \xHH below U+0100, \uhhhh above, and
  // U+FFFD for each byte that is not UTF-8.
  kPicture,
};

// s with every control_character and (for a terminal) every byte that is not UTF-8 written
// as a visible escape, the rest as it is; keep_newlines leaves '\n' as it is (a block of
// text made of lines). Dump strings are data: they must not drive a terminal or reorder a page.
std::string escape_controls(std::string_view s, ControlEscapes style = ControlEscapes::kTerminal,
                            bool keep_newlines = false);

}  // namespace heapq
