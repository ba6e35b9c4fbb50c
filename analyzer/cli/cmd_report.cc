// heapq report: one HTML file that works offline: summary, top classes and sites, leak
// suspects with their retention trees, and the dominator tree to click through.
#include <algorithm>
#include <cmath>

#include "cli/command.h"
#include "cli/input.h"
#include "cli/output.h"
#include "cli/paths.h"
#include "heapq/answer/pictures.h"
#include "heapq/leaks.h"
#include "heapq/sites.h"
#include "heapq/stats.h"
#include "heapq/viz/picture.h"
#include "heapq/viz/report.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"o", "FILE", "the report to write (required)"},
    {"output", "FILE", "same as -o"},
    {"top", "N", "rows of each table (default 50)"},
    {"suspects", "N", "leak suspects shown, each with its retention tree (default 5)"},
    {"nodes", "N", "objects of the dominator tree drawn in the icicle (default 2000)"},
    kAsGivenOption,
};

viz::Cell number(uint64_t n, std::string text) {
  return {std::move(text), static_cast<double>(n)};
}

viz::Table class_table(const HeapGraph& g, const HeapStats& stats, size_t top) {
  viz::Table t{"Top classes by memory",
               {"class", "objects", "bytes", "retained"},
               {false, true, true, true},
               {}};
  for (size_t i = 0; i < std::min(top, stats.by_class.size()); ++i) {
    const ClassTotals& c = stats.by_class[i];
    const uint64_t retained = c.retained_bytes.value_or(0);
    t.rows.push_back({{std::string(g.class_name(c.cls)), {}},
                      number(c.count, format_count(c.count)),
                      number(c.bytes, format_bytes(c.bytes)),
                      number(retained, format_bytes(retained))});
  }
  return t;
}

viz::Table site_table(const HeapGraph& g, const SiteReport& sites, size_t top) {
  viz::Table t{"Top allocation sites by memory",
               {"site", "method", "class", "objects", "bytes", "retained"},
               {false, false, false, true, true, true},
               {}};
  for (size_t i = 0; i < std::min(top, sites.groups.size()); ++i) {
    const SiteGroup& s = sites.groups[i];
    const uint64_t retained = s.retained_bytes.value_or(0);
    std::string where = s.file.valid() ? site_location(g.string(s.file), s.line) : "(no site)";
    t.rows.push_back({{where, {}},
                      {std::string(g.string(s.method)), {}},
                      {std::string(g.class_name(s.cls)), {}},
                      number(s.count, format_count(s.count)),
                      number(s.bytes, format_bytes(s.bytes)),
                      number(retained, format_bytes(retained))});
  }
  return t;
}

std::string group_text(const GroupTable::Group& group) {
  if (!group.has_site()) return group.cls;
  return group.cls + " allocated at " + site_text(group.file, group.line, group.method);
}

std::vector<viz::SuspectSection> suspect_sections(const HeapGraph& g, const HeapDominators& dom,
                                                  const LeakReport& report, bool several) {
  std::vector<viz::SuspectSection> out;
  if (report.suspects.empty()) return out;
  const ShortestPathTree tree = ShortestPathTree::compute(g);
  for (const LeakSuspect& s : report.suspects) {
    viz::SuspectSection section;
    section.heading = group_text(s.group);
    if (several) {
      std::string growth;
      for (uint64_t n : s.growth) growth += (growth.empty() ? "" : " \u2192 ") + format_count(n);
      section.facts.push_back("objects in each dump: " + growth +
                              (s.steady    ? " (grows between every two dumps)"
                               : s.growing ? " (grows)"
                                           : " (grew, then stopped)"));
      section.facts.push_back(
          format_count(s.count) + " born after the first dump and still alive: " +
          format_bytes(s.bytes) + ", retaining " + format_bytes(s.retained_bytes));
    } else {
      section.facts.push_back(
          (s.count == 1 ? std::string("1 object") : format_count(s.count) + " held together") +
          ": " + format_bytes(s.bytes) + ", retaining " + format_bytes(s.retained_bytes));
    }
    viz::Picture picture =
        shapes_picture(g, tree, dom, s.members, section.heading + ", in the last dump", s.holder,
                       PictureLimits{24, 12});
    const bool drawn =
        std::any_of(picture.boxes.begin(), picture.boxes.end(),
                    [](const viz::Box& b) { return b.kind == viz::BoxKind::kHolder; });
    if (s.holder.valid()) {
      section.facts.push_back(
          "held by " + describe(g, s.holder) + " " + hex_address(g.address(s.holder)) + " (" +
          format_count(s.holder_share) + " of them)" + (drawn ? ", drawn in red" : ""));
      section.facts.push_back("path: " + path_text(g, tree.path_to(g, s.holder, 24)));
    } else {
      section.facts.push_back("no single object holds most of them");
    }
    picture.id = "suspect" + std::to_string(out.size() + 1);
    auto svg = viz::dot_to_svg(viz::to_dot(picture));
    if (svg)
      section.svg = std::move(*svg);
    else
      section.facts.push_back("(no picture: " + svg.error().message + ")");
    out.push_back(std::move(section));
  }
  return out;
}

int run(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().empty())
    return report_error(usage_error("report takes one or more INPUTs (see heapq report --help)"));
  auto out = get_output_path(args, "report");
  if (!out) return report_error(out.error());
  const std::string out_path = std::move(*out);
  if (out_path.empty())
    return report_error(usage_error("report needs -o FILE (the HTML file to write)"));
  if (Status s = refuse_output_over_inputs(out_path, args.positional()); !s)
    return report_error(s.error());
  auto top = get_count(args, "top", 50);
  if (!top) return report_error(top.error());
  auto suspects = get_count(args, "suspects", 5);
  if (!suspects) return report_error(suspects.error());
  auto nodes = get_count(args, "nodes", 2000);
  if (!nodes) return report_error(nodes.error());
  auto loaded = load_dumps_over_time(args.positional(), global, args.has("as-given"));
  if (!loaded) return report_error(loaded.error());
  const std::vector<LoadedDump>& dumps = *loaded;
  const HeapGraph& g = dumps.back().graph;
  const HeapDominators dom = HeapDominators::compute(g);
  // Retained sizes only for the rows the tables show: each costs a walk of part of the graph.
  const HeapStats stats = compute_stats(g, SortKey::kBytes, &dom, *top);
  const SiteReport sites = compute_sites(g, SiteGrouping::kSite, SortKey::kBytes, &dom, *top);
  const bool several = dumps.size() > 1;
  LeakOptions options;
  options.top = *suspects;
  LeakReport leaks;
  if (several) {
    std::vector<const HeapGraph*> graphs;
    for (const LoadedDump& d : dumps) graphs.push_back(&d.graph);
    leaks = find_growing_leaks(graphs, dom, options);
  } else if (*suspects) {
    leaks = find_accumulations(g, dom, options);
  }

  viz::Report r;
  r.title = "heapq report: " + dumps.back().path;
  if (several)
    r.summary.push_back({"dumps", format_count(dumps.size()) + ", " + dumps.front().path + " to " +
                                      dumps.back().path});
  r.summary.push_back(
      {"objects", format_count(stats.objects) + " (" + format_bytes(stats.bytes) + ")"});
  r.summary.push_back({"reachable from the GC roots",
                       counted(dom.retained_count(g.virtual_root()) - 1, "object", "objects") +
                           ", " + format_bytes(dom.retained_bytes(g.virtual_root()))});
  if (dom.unreachable_count())
    r.summary.push_back({"unreachable (garbage not yet swept)",
                         counted(dom.unreachable_count(), "object", "objects") + ", " +
                             format_bytes(dom.unreachable_bytes())});
  r.summary.push_back({"classes", format_count(stats.by_class.size())});
  r.summary.push_back({"objects with an allocation site", format_count(sites.objects_with_site)});
  for (const std::string& warning : load_warnings(dumps.back()))
    r.summary.push_back({"warning", warning});
  if (several) {
    r.summary.push_back({"objects matched across dumps by", match_method_name(leaks.match)});
    r.suspects_note =
        counted(leaks.born, "object", "objects") + " of the last dump " +
        (leaks.born == 1 ? "was" : "were") + " born after the first; " +
        counted(leaks.groups_growing, "group", "groups") + " (class, allocation site) " +
        (leaks.groups_growing == 1 ? "is" : "are") + " growing. " +
        (leaks.suspects.empty()
             ? "No group gained enough to be a suspect."
             : "Steady growth first, then by the memory they hold; as heapq leaks ranks them.");
  } else {
    r.suspects_note = "One dump: where memory accumulates (objects retaining " +
                      std::to_string(std::lround(options.threshold * 100)) +
                      "% or more of the heap, followed down to their accumulation point). Give "
                      "several dumps of one process to see what grows.";
  }
  r.suspects = suspect_sections(g, dom, leaks, several);
  r.tables.push_back(class_table(g, stats, *top));
  r.tables.push_back(site_table(g, sites, *top));
  r.icicle = icicle_nodes(g, dom, std::max<uint64_t>(*nodes, 1));

  if (Status written = write_file(out_path, viz::render_report(r), global.quiet); !written)
    return report_error(written.error());
  return 0;
}

}  // namespace

const Command kReportCommand = {
    "report",
    "one self-contained HTML file: summary, tables, leak suspects, the dominator tree",
    "heapq report -o FILE [--top N] [--suspects N] [--nodes N] INPUT...",
    "Writes one HTML file that opens offline in any browser (no network, no server): a\n"
    "summary of the last INPUT, its top classes and allocation sites with retained sizes\n"
    "(tables sort by any column), leak suspects as heapq leaks finds them (several INPUTs,\n"
    "or a store holding several dumps: what grows; one INPUT: where memory accumulates), each\n"
    "with its retention tree drawn by graphviz, and an icicle of the dominator tree's top\n"
    "--nodes objects: click to zoom in and out, hover for class, size, site and path.\n",
    kOptions,
    run,
};

}  // namespace heapq::cli
