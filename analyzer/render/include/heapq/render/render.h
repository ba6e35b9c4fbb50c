// Every answer in every format: one renderer per answer per format. Renderers compute nothing
// and see no HeapGraph; text is fitted to the width it is given, its dump strings escaped.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "heapq/answer/diff.h"
#include "heapq/answer/dominators.h"
#include "heapq/answer/fleet.h"
#include "heapq/answer/leaks.h"
#include "heapq/answer/load.h"
#include "heapq/answer/profile.h"
#include "heapq/answer/report.h"
#include "heapq/answer/retainers.h"
#include "heapq/answer/sites.h"
#include "heapq/answer/stats.h"
#include "heapq/answer/strings.h"
#include "heapq/answer/viz.h"
#include "heapq/base/result.h"
#include "heapq/render/terminal_text.h"

namespace heapq::render {

enum class Format { kText, kJson, kDot, kSvg, kCsv, kHtml, kPprof, kFolded };

// The format --format names ("json"); none for a name that is not one (html is the report's).
std::optional<Format> format_named(std::string_view name);
// The name --format gives the format ("json"; "html" for the report's).
std::string_view format_name(Format format);

// Formats the renderers below write, for a command to say which it accepts.
class Formats {
 public:
  constexpr Formats(std::initializer_list<Format> formats) {
    for (Format f : formats) bits_ |= 1u << static_cast<unsigned>(f);
  }
  constexpr bool has(Format f) const { return bits_ >> static_cast<unsigned>(f) & 1u; }
  constexpr Formats operator|(Formats other) const { return Formats(bits_ | other.bits_); }

 private:
  constexpr explicit Formats(unsigned bits) : bits_(bits) {}
  unsigned bits_ = 0;
};

// text() and json() of every answer; the report's html() whatever of the two is asked.
inline constexpr Formats kTextAndJson = {Format::kText, Format::kJson};
// picture(): DOT (also for text, the default), or SVG.
inline constexpr Formats kPictureFormats = {Format::kText, Format::kDot, Format::kSvg};
// pprof() and folded().
inline constexpr Formats kProfileFormats = {Format::kPprof, Format::kFolded};
// sql_renderer() (render/sql.h).
inline constexpr Formats kSqlFormats = {Format::kText, Format::kJson, Format::kCsv};

struct TextOptions {
  size_t width = kDefaultWidth;  // columns; 0: no limit
};

std::string text(const StatsAnswer& answer, const TextOptions& options);
std::string json(const StatsAnswer& answer);
std::string text(const RetainersAnswer& answer, const TextOptions& options);
std::string json(const RetainersAnswer& answer);
std::string text(const LeaksAnswer& answer, const TextOptions& options);
std::string json(const LeaksAnswer& answer);
std::string text(const LoadAnswer& answer, const TextOptions& options);
std::string json(const LoadAnswer& answer);
std::string text(const SitesAnswer& answer, const TextOptions& options);
std::string json(const SitesAnswer& answer);
std::string text(const DiffAnswer& answer, const TextOptions& options);
std::string json(const DiffAnswer& answer);
std::string text(const DominatorsAnswer& answer, const TextOptions& options);
std::string json(const DominatorsAnswer& answer);
std::string text(const StringsAnswer& answer, const TextOptions& options);
std::string json(const StringsAnswer& answer);
std::string text(const FleetAnswer& answer, const TextOptions& options);
std::string json(const FleetAnswer& answer);
std::string text(const ProfileLeaksAnswer& answer, const TextOptions& options);
std::string json(const ProfileLeaksAnswer& answer);

// The report: one self-contained HTML page (each suspect's picture laid out by graphviz).
std::string html(const ReportAnswer& answer);

// A picture: DOT, or SVG laid out by graphviz (an error when graphviz cannot).
Result<std::string> picture(const VizAnswer& answer, Format format);

// A profile: pprof's profile.proto, gzip-compressed (binary), or folded stacks (text).
Result<std::string> pprof(const ProfileAnswer& answer);
std::string folded(const ProfileAnswer& answer);

// Any command's answer, for the dispatcher.
using Answer = std::variant<StatsAnswer, RetainersAnswer, LeaksAnswer, LoadAnswer, VizAnswer,
                            SitesAnswer, ReportAnswer, DiffAnswer, DominatorsAnswer, ProfileAnswer,
                            StringsAnswer, FleetAnswer, ProfileLeaksAnswer>;

// In the format asked for: text and JSON for every answer but a picture (DOT, SVG), the report
// (HTML, whatever the format) and a profile (pprof, else folded stacks).
Result<std::string> render(const Answer& answer, Format format, const TextOptions& options);

}  // namespace heapq::render
