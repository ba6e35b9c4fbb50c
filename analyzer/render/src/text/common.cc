#include "text/common.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "heapq/answer/wording.h"
#include "heapq/render/terminal_text.h"

namespace heapq::render {

namespace {
thread_local size_t name_width = kNameWidth;
}  // namespace

NameWidthScope::NameWidthScope(size_t output_width) : was_(name_width) {
  name_width = output_width == 0 ? SIZE_MAX : std::max(kNameWidth, output_width);
}

NameWidthScope::~NameWidthScope() {
  name_width = was_;
}

std::string name_text(std::string_view name) {
  return fit_width(escape_controls(name), name_width);
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

std::string unreachable_text(const InputSummary& input) {
  if (!input.incomplete) return "garbage not yet swept";
  return counted(input.report.dangling_references, "reference points", "references point") +
         " to objects missing from the dump: some may be alive, held by those";
}

std::string path_text(const PathRef& path) {
  // A path from an object (a leak's outermost owner) has no root.
  std::string out = path.root.empty() ? "" : "ROOT(" + name_text(path.root) + ")";
  if (!path.root_name.empty()) out += " " + name_text(path.root_name);
  for (size_t i = 0; i < path.steps.size(); ++i) {
    if (path.elided && i == path.elided_after)
      out += " -> ... (" + counted(path.elided, "step", "steps") + ") ...";
    out += (out.empty() ? "" : " -> ") + object_text(path.steps[i].object);
    if (i + 1 < path.steps.size()) {
      if (!path.steps[i + 1].edge.empty()) out += " " + name_text(path.steps[i + 1].edge);
    } else {
      out += " " + hex_address(path.steps[i].object.address);
    }
  }
  return out;
}

std::vector<LabelledPath> holder_paths(const LeaksAnswer::Leak& leak) {
  if (!leak.path) return {};
  if (leak.path_kind == LeaksAnswer::Leak::PathKind::kShortest)
    return {{"no object alone keeps it alive; the shortest path to it:", path_text(*leak.path)}};
  std::vector<LabelledPath> out = {{"owned by:", path_text(*leak.path)}};
  if (leak.owner_path)
    out.push_back({"which several paths reach; the shortest:", path_text(*leak.owner_path)});
  return out;
}

std::string leak_share_text(const LeaksAnswer::Leak& leak) {
  if ((!leak.holder && leak.holder_root.empty()) || leak.holder_share >= leak.count) return {};
  if (leak.holder) return "the holder holds " + format_count(leak.holder_share) + " of them";
  return "the root holds " + format_count(leak.holder_share) + " of them directly, the other " +
         format_count(leak.count - leak.holder_share) + " through references";
}

std::string pending_finalizers_text(const LeaksAnswer::Leak& leak) {
  if (leak.pending_finalizers == 0) return {};
  return counted(leak.pending_finalizers, "finalizer", "finalizers") +
         " of objects already dead reach most of it: the next GC runs them, and they may undo it "
         "(a dump after GC.start shows what stays)";
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
