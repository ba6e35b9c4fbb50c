#include "heapq/render/render.h"
#include "heapq/render/terminal_text.h"
#include "text/common.h"

namespace heapq::render {

std::string text(const FleetAnswer& a, const TextOptions& options) {
  std::string out = name_text(a.store) + ": " + counted(a.processes, "process", "processes") +
                    " on " + counted(a.hosts, "host", "hosts") + ", " +
                    counted(a.dumps, "dump", "dumps");
  if (a.profiles) out += ", " + counted(a.profiles, "sampled profile", "sampled profiles");
  if (!a.options.app.empty()) out += " of app " + name_text(a.options.app);
  if (!a.first_time.empty())
    out += ", " + name_text(a.first_time) + " to " + name_text(a.last_time);
  out += "\n";
  if (a.unattributed_dumps)
    out += counted(a.unattributed_dumps, "dump says", "dumps say") +
           " no process (ObjectSpace dumps have no META): left out\n";
  out += "\n";
  if (a.groups.empty()) {
    out += "Nothing grows from dump to dump in any process of two dumps or more.\n";
  } else {
    out +=
        "What grows, in how many processes (counts never falling from dump to dump; rates "
        "per process; share of the last dumps' heaps):\n";
    if (a.profiles)
      out +=
          "(a sampled profile's counts are estimates: each sampled object stands for the "
          "period's; they grow by two sampled objects at least)\n";
    for (size_t i = 0; i < a.groups.size(); ++i) {
      const FleetAnswer::Group& g = a.groups[i];
      out += std::to_string(i + 1) + ". " + name_text(g.class_name) + " allocated at " +
             (g.site ? library_site_text(*g.site) : std::string("(no allocation site)")) + "\n";
      std::string rate = kNoRate;
      if (g.objects_per_hour && g.bytes_per_hour)
        rate = rate_text(*g.objects_per_hour) + " objects (" + bytes_rate_text(*g.bytes_per_hour) +
               ") an hour each" +
               (g.rated_in < g.growing_in
                    ? " of the " + format_count(g.rated_in) + " whose dumps span some time"
                    : "");
      out += "   grows in " + format_count(g.growing_in) + " of " + format_count(g.seen_in) +
             (g.seen_in == 1 ? " process" : " processes") + ": " + rate + "; " +
             format_count(g.count) + " objects, " + format_bytes(g.bytes) + ", " +
             percent_text(g.share) + " of the heaps\n";
      std::string worst;
      for (const FleetAnswer::Worst& x : g.worst)
        worst += (worst.empty() ? "" : "; ") + worst_text(x);
      out += "   fastest: " + worst + "\n";
      std::string hosts;
      for (const std::string& h : g.hosts) hosts += (hosts.empty() ? "" : ", ") + name_text(h);
      if (g.more_hosts) hosts += " and " + counted(g.more_hosts, "more", "more");
      out += "   hosts: " + hosts + "\n";
    }
    if (a.more_groups)
      out += "(" + counted(a.more_groups, "more group grows", "more groups grow") +
             "; --top 0 lists all)\n";
  }
  out += "\nThe processes' heaps, what the roots reach (first dump -> last):\n";
  for (const FleetAnswer::ProcessHeap& p : a.heaps) {
    const FleetAnswer::Point& f = p.heap.front();
    const FleetAnswer::Point& l = p.heap.back();
    out += process_text(p.process, true) + ": " +
           (p.process.profiles ? counted(p.heap.size(), "profile", "profiles") + " (estimates)"
                               : counted(p.heap.size(), "dump", "dumps")) +
           ", " + format_count(f.objects) + " -> " + format_count(l.objects) + " objects, " +
           format_bytes(f.bytes) + " -> " + format_bytes(l.bytes) + "\n";
  }
  return finish_text(out, options.width);
}

}  // namespace heapq::render
