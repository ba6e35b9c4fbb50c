// Text for a terminal: dump strings (class, method and file names, reference names, SQL values)
// are data, and must neither drive the terminal (escape sequences that retitle or clear it) nor
// blow up a table (one huge name padding every row).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace heapq::cli {

// s with every control character (C0, DEL, C1), bidirectional override and byte that is not
// UTF-8 written as a visible escape (\n, \t, \e, \xHH, \u202e), the rest as it is.
std::string escape_controls(std::string_view s);

// The same for a block of text made of lines: its newlines are kept.
std::string escape_controls_keep_lines(std::string_view text);

// Columns a string takes on a terminal: one per code point (what heapq's tables hold).
size_t display_width(std::string_view s);

// s cut to at most max_width columns, keeping its head and tail around an ellipsis ("…"):
// the end of a long path or class name is as telling as its start.
std::string fit_width(std::string_view s, size_t max_width);

}  // namespace heapq::cli
