// heapq leaks over sampled profiles, as text.
#include <algorithm>
#include <string>

#include "heapq/answer/wording.h"
#include "heapq/render/render.h"
#include "heapq/render/terminal_text.h"
#include "text/common.h"

namespace heapq::render {

namespace {

std::string series_text(const std::vector<int64_t>& values, bool bytes) {
  std::string out;
  for (int64_t v : values) {
    const uint64_t n = static_cast<uint64_t>(std::max<int64_t>(v, 0));
    out += (out.empty() ? "" : " -> ") + (bytes ? format_bytes(n) : format_count(n));
  }
  return out;
}

std::string process_heading(const ProfileLeaksAnswer::Process& p) {
  const FleetAnswer::Process process{p.host, p.pid, p.started, "", true};
  std::string out = counted(p.inputs.size(), "sampled profile", "sampled profiles") + " of " +
                    process_text(process, true);
  const std::string& first = p.inputs.front().time;
  const std::string& last = p.inputs.back().time;
  if (!first.empty() && !last.empty()) out += ", " + name_text(first) + " to " + name_text(last);
  out += ":\n";
  const int64_t period = p.inputs.back().period;
  if (period > 1)
    out += "1 in " + format_count(static_cast<uint64_t>(period)) +
           " allocations sampled: the counts are estimates (each sampled object counts " +
           format_count(static_cast<uint64_t>(period)) + " times).\n";
  out += "Live heap, estimated: " + series_text(p.heap_bytes, true) + "\n";
  return out;
}

std::string site_growth_text(size_t rank, const SiteGrowth& s) {
  const std::string site =
      s.file.empty()
          ? std::string("(no frame with a file)")
          : library_site_text(
                SiteRef{s.file, static_cast<uint32_t>(std::clamp<int64_t>(s.line, 0, UINT32_MAX)),
                        s.function});
  return std::to_string(rank) + ". " +
         name_text(s.class_name.empty() ? std::string("(no class)") : s.class_name) +
         " allocated at " + site + "\n   objects: " + series_text(s.objects, false) + " (" +
         rate_text(s.objects_per_hour) + "/h); bytes: " + series_text(s.bytes, true) + " (" +
         bytes_rate_text(s.bytes_per_hour) + "/h)\n";
}

}  // namespace

std::string text(const ProfileLeaksAnswer& a, const TextOptions& options) {
  std::string out;
  for (const ProfileLeaksAnswer::Process& p : a.processes) {
    if (!out.empty()) out += "\n";
    out += process_heading(p);
    if (p.growing.empty()) {
      out +=
          "Nothing grows: no site's estimated live objects rose by two sampled objects "
          "without falling.\n";
      continue;
    }
    out += counted(p.found, "site grows", "sites grow") +
           " (estimated live objects never fell, and rose by two sampled objects or more):\n";
    for (size_t i = 0; i < p.growing.size(); ++i) out += site_growth_text(i + 1, p.growing[i]);
    if (p.found > p.growing.size())
      out += "(" + counted(p.found - p.growing.size(), "more site grows", "more sites grow") +
             "; --top 0 lists all)\n";
  }
  out +=
      "\nA profile names the line that allocates, not what holds the objects: two dumps of the "
      "process (Memprof.dump_all, or its signal) and heapq leaks on them name the holder.\n";
  return finish_text(out, options.width);
}

}  // namespace heapq::render
