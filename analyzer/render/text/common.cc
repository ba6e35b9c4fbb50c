#include "render/text/common.h"

#include "render/text/terminal_text.h"

namespace heapq::render {

std::string finish_text(std::string_view text, size_t width) {
  return fit_lines(escape_controls_keep_lines(text), width);
}

}  // namespace heapq::render
