// The report's page: its model (heapq/viz/report.h) built from the answers of stats, sites and
// leaks, then written by viz/ (the page, the SVG of each leak's picture).
#include "heapq/viz/report.h"

#include <algorithm>

#include "heapq/answer/wording.h"
#include "heapq/render/render.h"
#include "heapq/render/terminal_text.h"
#include "heapq/viz/picture.h"
#include "text/common.h"

namespace heapq::render {

namespace {

viz::Cell number(uint64_t n, std::string text) {
  return {std::move(text), static_cast<double>(n)};
}

viz::Table class_table(const StatsAnswer& stats) {
  viz::Table t{"Top classes by memory",
               {"class", "objects", "bytes", "retained"},
               {false, true, true, true},
               {}};
  for (const StatsAnswer::ClassRow& c : stats.by_class) {
    const uint64_t retained = c.retained_bytes.value_or(0);
    t.rows.push_back({{c.cls, {}},
                      number(c.count, format_count(c.count)),
                      number(c.bytes, format_bytes(c.bytes)),
                      number(retained, format_bytes(retained))});
  }
  return t;
}

viz::Table site_table(const SitesAnswer& sites) {
  viz::Table t{"Top allocation sites by memory",
               {"site", "method", "class", "objects", "bytes", "retained"},
               {false, false, false, true, true, true},
               {}};
  for (const SitesAnswer::Row& s : sites.rows) {
    const uint64_t retained = s.retained_bytes.value_or(0);
    t.rows.push_back({{s.file ? site_location(*s.file, s.line) : "(no site)", {}},
                      {s.method, {}},
                      {s.cls, {}},
                      number(s.count, format_count(s.count)),
                      number(s.bytes, format_bytes(s.bytes)),
                      number(retained, format_bytes(retained))});
  }
  return t;
}

std::string growth_text(const std::vector<uint64_t>& growth) {
  std::string out;
  for (uint64_t n : growth) out += (out.empty() ? "" : " \u2192 ") + format_count(n);
  return out;
}

viz::LeakSection leak_section(const LeaksAnswer& leaks, size_t i,
                              const ReportAnswer::LeakPicture& picture) {
  const LeaksAnswer::Leak& l = leaks.leaks[i];
  viz::LeakSection section;
  if (l.holder) {
    section.heading = (l.own_memory ? "" : "Held by ") + l.holder->description + " " +
                      hex_address(l.holder->address) +
                      (l.holder_edge.empty() ? "" : " (" + l.holder_edge + ")");
    if (l.holder->site)
      section.heading += ", allocated at " + site_and_app_string(*l.holder->site, l.holder->app);
    for (const auto& [label, path] : holder_paths(l)) section.facts.push_back(label + " " + path);
  } else if (!l.holder_root.empty()) {
    const std::string meaning = root_meaning(l.holder_root);
    section.heading =
        "Held by a GC root: ROOT(" + l.holder_root + ")" + (meaning.empty() ? "" : ", " + meaning);
    for (const auto& [name, count] : l.holder_root_names)
      section.facts.push_back(name + " (" + counted(count, "entry", "entries") + ")");
  } else {
    section.heading = "No single object holds it";
  }
  if (leaks.several) {
    section.facts.push_back("objects in each dump: " + growth_text(l.growth) +
                            (l.steady    ? " (grows between every two dumps)"
                             : l.growing ? " (grows)"
                                         : " (grew, then stopped)"));
    section.facts.push_back(counted(l.count, "object", "objects") +
                            " born after the first dump and still alive: " + format_bytes(l.bytes) +
                            ", retaining " + format_bytes(l.retained_bytes));
  } else {
    section.facts.push_back(
        (l.count == 1 ? std::string("1 object") : format_count(l.count) + " held together") + ": " +
        format_bytes(l.bytes) + ", retaining " + format_bytes(l.retained_bytes));
  }
  if (std::string share = leak_share_text(l); !share.empty())
    section.facts.push_back(std::move(share));
  if (std::string pending = pending_finalizers_text(l); !pending.empty())
    section.facts.push_back(std::move(pending));
  if (l.holder && picture.holder_drawn) section.facts.push_back("the holder is drawn in red");
  section.holds = {"What it holds",
                   {"class", "allocated at", "objects", "bytes", "retaining"},
                   {false, false, true, true, true},
                   {}};
  // memprof's allocation stacks: the application's line when a gem's or Ruby's made them.
  const bool app_lines = std::any_of(l.holds.begin(), l.holds.end(),
                                     [](const auto& h) { return other_line(h.site, h.app); });
  if (app_lines) {
    section.holds.header.insert(section.holds.header.begin() + 2, "from the app's line");
    section.holds.numeric.insert(section.holds.numeric.begin() + 2, false);
  }
  if (leaks.several) {
    section.holds.header.push_back("in each dump");
    section.holds.numeric.push_back(false);
  }
  for (const LeaksAnswer::Held& h : l.holds) {
    std::vector<viz::Cell> row = {
        {h.sample ? h.cls + " (e.g. \"" + fit_width(*h.sample, 40) + "\")" : h.cls, {}},
        {!h.site     ? "(no allocation site)"
         : app_lines ? library_site_string(*h.site)
                     : site_string(*h.site),
         {}},
        number(h.count, format_count(h.count)),
        number(h.bytes, format_bytes(h.bytes)),
        number(h.retained_bytes, format_bytes(h.retained_bytes))};
    if (app_lines) {
      std::string app = !other_line(h.site, h.app) ? "" : site_string(*h.app);
      if (!app.empty() && h.app_count < h.count) app += " (" + format_count(h.app_count) + ")";
      row.insert(row.begin() + 2, {std::move(app), {}});
    }
    if (leaks.several) row.push_back({growth_text(h.growth), {}});
    section.holds.rows.push_back(std::move(row));
  }
  auto svg = viz::dot_to_svg(viz::to_dot(picture.picture));
  if (svg)
    section.svg = std::move(*svg);
  else
    section.facts.push_back("(no picture: " + svg.error().message + ")");
  return section;
}

// heapq fleet's answer as two tables: what grows across the processes, and each one's heap.
viz::Section fleet_section(const FleetAnswer& f) {
  viz::Section section{"fleet", "Across processes", {}, {}};
  section.note = f.store + ": " + counted(f.processes, "process", "processes") + " on " +
                 counted(f.hosts, "host", "hosts") + ", " + counted(f.dumps, "dump", "dumps") +
                 (f.options.app.empty() ? "" : " of app " + f.options.app) +
                 (f.first_time.empty() ? "" : ", " + f.first_time + " to " + f.last_time) + ". " +
                 (f.groups.empty() ? "Nothing grows from dump to dump in any process of two "
                                     "dumps or more."
                                   : "What grows in each process (counts never falling from dump "
                                     "to dump), most processes first; rates are per process.");
  if (f.unattributed_dumps)
    section.note += " " + counted(f.unattributed_dumps, "dump says", "dumps say") +
                    " no process (ObjectSpace dumps have no META): left out.";
  viz::Table groups{"What grows across processes",
                    {"class", "allocated at", "grows in", "objects an hour", "bytes an hour",
                     "objects", "bytes", "share of the heaps", "fastest", "hosts"},
                    {false, false, true, true, true, true, true, true, false, false},
                    {}};
  for (const FleetAnswer::Group& g : f.groups) {
    std::string fastest, hosts;
    for (const FleetAnswer::Worst& w : g.worst)
      fastest += (fastest.empty() ? "" : "; ") + worst_text(w);
    for (const std::string& h : g.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
    if (g.more_hosts) hosts += " and " + counted(g.more_hosts, "more", "more");
    groups.rows.push_back(
        {{g.class_name, {}},
         {g.site ? library_site_text(*g.site) : "(no allocation site)", {}},
         {format_count(g.growing_in) + " of " + format_count(g.seen_in),
          static_cast<double>(g.growing_in)},
         {g.objects_per_hour ? rate_text(*g.objects_per_hour) : "no rate", g.objects_per_hour},
         {g.bytes_per_hour ? bytes_rate_text(*g.bytes_per_hour) : "no rate", g.bytes_per_hour},
         number(g.count, format_count(g.count)),
         number(g.bytes, format_bytes(g.bytes)),
         {percent_text(g.share), g.share},
         {fastest, {}},
         {hosts, {}}});
  }
  if (!groups.rows.empty()) section.tables.push_back(std::move(groups));
  viz::Table heaps{"The processes' heaps (what the roots reach)",
                   {"process", "app", "dumps", "first", "last", "objects first", "objects last",
                    "bytes first", "bytes last"},
                   {false, false, true, false, false, true, true, true, true},
                   {}};
  for (const FleetAnswer::ProcessHeap& p : f.heaps) {
    const FleetAnswer::Point& first = p.heap.front();
    const FleetAnswer::Point& last = p.heap.back();
    heaps.rows.push_back({{process_text(p.process, true), {}},
                          {p.process.app, {}},
                          number(p.heap.size(), format_count(p.heap.size())),
                          {first.time, {}},
                          {last.time, {}},
                          number(first.objects, format_count(first.objects)),
                          number(last.objects, format_count(last.objects)),
                          number(first.bytes, format_bytes(first.bytes)),
                          number(last.bytes, format_bytes(last.bytes))});
  }
  if (!heaps.rows.empty()) section.tables.push_back(std::move(heaps));
  return section;
}

}  // namespace

std::string html(const ReportAnswer& a) {
  const LeaksAnswer& leaks = a.leaks;
  viz::Report r;
  r.title = "heapq report: " + leaks.input.path;
  if (leaks.several)
    r.summary.push_back({"dumps", format_count(leaks.inputs.size()) + ", " +
                                      leaks.inputs.front().path + " to " + leaks.input.path});
  r.summary.push_back(
      {"objects", format_count(a.stats.objects) + " (" + format_bytes(a.stats.bytes) + ")"});
  r.summary.push_back(
      {"reachable from the GC roots",
       counted(a.reachable_objects, "object", "objects") + ", " + format_bytes(a.reachable_bytes)});
  if (a.unreachable_objects)
    r.summary.push_back({leaks.input.incomplete
                             ? "unreachable (through the objects the dump has; some may be "
                               "alive, held by objects missing from it)"
                             : "unreachable (garbage not yet swept)",
                         counted(a.unreachable_objects, "object", "objects") + ", " +
                             format_bytes(a.unreachable_bytes)});
  r.summary.push_back({"classes", format_count(a.stats.classes)});
  r.summary.push_back({"objects with an allocation site", format_count(a.sites.objects_with_site)});
  for (const std::string& warning : leaks.input.warnings) r.summary.push_back({"warning", warning});
  if (leaks.several) {
    r.summary.push_back({"objects matched across dumps by", match_method_name(leaks.match)});
    r.leaks_note =
        counted(leaks.born, "object", "objects") + " of the last dump " +
        (leaks.born == 1 ? "was" : "were") + " born after the first; " +
        counted(leaks.groups, "group", "groups") + " (class, allocation site) gained " +
        std::to_string(leaks.min_growth) + " or more" +
        (leaks.found ? ": " + counted(leaks.found, "leak", "leaks") + ". " : ". ") +
        (leaks.leaks.empty()
             ? "No group gained enough to be a leak."
             : "Steady growth first, then by the memory they hold; as heapq leaks ranks them.");
  } else {
    r.leaks_note = "One dump: where memory accumulates (objects retaining " +
                   std::to_string(leaks.threshold_percent) +
                   "% or more of the heap, followed down to their accumulation point). Give "
                   "several dumps of one process to see what grows." +
                   std::string(leaks.below_threshold
                                   ? " No object retains that much: the biggest accumulation "
                                     "points all the same."
                                   : "");
  }
  for (size_t i = 0; i < leaks.leaks.size() && i < a.pictures.size(); ++i)
    r.leaks.push_back(leak_section(leaks, i, a.pictures[i]));
  if (a.fleet) r.sections.push_back(fleet_section(*a.fleet));
  r.tables.push_back(class_table(a.stats));
  r.tables.push_back(site_table(a.sites));
  r.icicle = a.icicle;
  return viz::render_report(r);
}

}  // namespace heapq::render
