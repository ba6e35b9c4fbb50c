#include "render/render.h"

namespace heapq::render {

std::string render(const Answer& answer, Format format, const TextOptions& options) {
  return std::visit(
      [&](const auto& a) { return format == Format::kJson ? json(a) : text(a, options); }, answer);
}

}  // namespace heapq::render
