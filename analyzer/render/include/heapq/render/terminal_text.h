// Text for a terminal: dump strings (class, method and file names, reference names, SQL values)
// are data, and must neither drive the terminal (escape sequences that retitle or clear it) nor
// blow up a table (one huge name padding every row).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "heapq/base/utf8.h"

namespace heapq::render {

// s with every control character (C0, DEL, C1), bidirectional override and byte that is not
// UTF-8 written as a visible escape (\n, \t, \e, \xHH, \u202e), and each backslash as \\,
// the rest as it is: the one escaper heapq has, shared with the pictures. Each dump string
// goes through it once, where it is put in the text.
using heapq::escape_controls;

// Text whose dump strings are escaped already (name_text, escape_controls): any control
// character still in it escaped all the same, its backslashes left; keep_lines leaves newlines.
std::string escape_stray_controls(std::string_view text, bool keep_lines = false);

// Columns a string takes on a terminal: one per code point (what heapq's tables hold).
size_t display_width(std::string_view s);

// Columns text output may take: 80 unless --width says otherwise (also when stdout is not a
// terminal: the output does not depend on where it goes); 0: no limit.
constexpr size_t kDefaultWidth = 80;

// Every line of text made to fit `width` columns (0: left as it is) without losing anything
// but the middle of a word longer than a line: a long line wraps at " -> " (a retention path)
// or else at spaces, onto continuation lines indented under its start (a path's: under its
// first step, "ROOT(...)").
std::string fit_lines(std::string_view text, size_t width);

// text wrapped at spaces into lines of at most `width` columns, the first starting at column
// `start` (after a label the caller writes), the others indented to `indent`; no final newline.
std::string wrap_words(std::string_view text, size_t start, size_t indent, size_t width);

// s cut to at most max_width columns, keeping its head and tail around an ellipsis ("…"),
// three times as much tail as head, and only the tail in fewer than 20 columns: the end of a
// path (file and line) or of a class name (the innermost module) tells most.
std::string fit_width(std::string_view s, size_t max_width);

}  // namespace heapq::render
