// Help text fitted to a terminal's width: paragraphs refilled, usage lines wrapped between
// their [options], examples under their own indent.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace heapq::render {

// Help text within `width` columns: a run of lines that starts at the margin is refilled when
// one of them is too long (runs that fit keep their lines); an indented line (an example)
// that is too long wraps under its own indent. A usage line wraps under the command name.
std::string fit_help(std::string_view text, size_t width);

}  // namespace heapq::render
