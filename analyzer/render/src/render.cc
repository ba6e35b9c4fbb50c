#include "heapq/render/render.h"

#include "heapq/viz/picture.h"
#include "text/common.h"

namespace heapq::render {

namespace {

constexpr std::pair<std::string_view, Format> kNames[] = {
    {"text", Format::kText},     {"json", Format::kJson}, {"csv", Format::kCsv},
    {"dot", Format::kDot},       {"svg", Format::kSvg},   {"pprof", Format::kPprof},
    {"folded", Format::kFolded}, {"html", Format::kHtml}};

}  // namespace

std::optional<Format> format_named(std::string_view name) {
  for (const auto& [n, format] : kNames)
    if (n == name && format != Format::kHtml) return format;
  return std::nullopt;
}

std::string_view format_name(Format format) {
  for (const auto& [n, f] : kNames)
    if (f == format) return n;
  return "";
}

Result<std::string> picture(const VizAnswer& answer, Format format) {
  std::string dot = viz::to_dot(answer.picture);
  if (format != Format::kSvg) return dot;
  return viz::dot_to_svg(dot, "use --format dot");
}

Result<std::string> render(const Answer& answer, Format format, const TextOptions& options) {
  const NameWidthScope names(options.width);
  return std::visit(
      [&](const auto& a) -> Result<std::string> {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, VizAnswer>)
          return picture(a, format);
        else if constexpr (std::is_same_v<T, ReportAnswer>)
          return html(a);
        else if constexpr (std::is_same_v<T, ProfileAnswer>)
          return format == Format::kPprof ? pprof(a) : Result<std::string>(folded(a));
        else
          return format == Format::kJson ? json(a) : text(a, options);
      },
      answer);
}

}  // namespace heapq::render
