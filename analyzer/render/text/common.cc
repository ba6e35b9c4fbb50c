#include "render/text/common.h"

#include <cmath>
#include <cstdio>

#include "heapq/wording.h"
#include "render/text/terminal_text.h"

namespace heapq::render {

std::string name_text(std::string_view name) {
  return fit_width(escape_controls(name), kNameWidth);
}

std::string site_text(const SiteRef& site) {
  return name_text(site_string(site));
}

std::string library_site_text(const SiteRef& site) {
  return name_text(library_site_string(site));
}

std::string object_text(const ObjectRef& object) {
  std::string out = name_text(object.description);
  if (object.block)
    out += " (block at " + name_text(site_location(object.block->file, object.block->line)) + ")";
  return out;
}

std::string path_text(const PathRef& path) {
  std::string out = "ROOT(" + name_text(path.root) + ")";
  if (!path.root_name.empty()) out += " " + name_text(path.root_name);
  for (size_t i = 0; i < path.steps.size(); ++i) {
    if (path.elided && i == path.elided_after)
      out += " -> ... (" + counted(path.elided, "step", "steps") + ") ...";
    out += " -> " + object_text(path.steps[i].object);
    if (i + 1 < path.steps.size()) {
      if (!path.steps[i + 1].edge.empty()) out += " " + name_text(path.steps[i + 1].edge);
    } else {
      out += " " + hex_address(path.steps[i].object.address);
    }
  }
  return out;
}

std::string finish_text(std::string_view text, size_t width) {
  return fit_lines(escape_stray_controls(text, true), width);
}

std::string process_text(const FleetAnswer::Process& p, bool started) {
  std::string s = (p.host.empty() ? std::string("(unknown host)") : name_text(p.host)) + " pid " +
                  std::to_string(p.pid);
  if (started && !p.started.empty()) s += " started " + name_text(p.started);
  return s;
}

std::string rate_text(double per_hour) {
  const double r = std::round(per_hour);
  return (r < 0 ? "-" : "+") + format_count(static_cast<uint64_t>(std::fabs(r)));
}

std::string bytes_rate_text(double per_hour) {
  return (per_hour < 0 ? "-" : "+") +
         format_bytes(static_cast<uint64_t>(std::llround(std::fabs(per_hour))));
}

std::string worst_text(const FleetAnswer::Worst& w) {
  return process_text(w.process) + " " +
         (w.per_hour ? rate_text(*w.per_hour) + "/h"
                     : rate_text(static_cast<double>(w.growth)) + " (no interval)");
}

std::string percent_text(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
  return buf;
}

}  // namespace heapq::render
