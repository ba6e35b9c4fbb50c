// heapq leaks: what grows across dumps, which line allocated it, and who holds it.
#include <algorithm>

#include "cli/command.h"
#include "cli/input.h"
#include "cli/output.h"
#include "cli/paths.h"
#include "heapq/leaks.h"
#include "render/text/terminal_text.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"top", "N", "suspects to show (default 5; 0: every growing group)"},
    {"min-growth", "N", "objects a group gains, first to last dump, at least (10)"},
    {"threshold", "PCT", "one dump: % of the heap a suspect retains at least (10)"},
    {"max-depth", "D", "steps shown of a path, its middle elided past them (64)"},
    kAsGivenOption,
};

std::string site_of(const GroupTable::Group& g) {
  return g.has_site() ? name_text(site_text(g.file, g.line, g.method)) : "";
}

void group_site_json(JsonWriter& w, const GroupTable::Group& g) {
  if (g.has_site())
    site_json(w, g.file, g.line, g.method);
  else
    w.Null();
}

std::string growth_text(const std::vector<uint64_t>& growth) {
  std::string out;
  for (uint64_t n : growth) out += (out.empty() ? "" : " -> ") + format_count(n);
  return out;
}

void render_suspects(const HeapGraph& g, const LeakReport& report, size_t max_depth, bool several,
                     Rendering& out) {
  JsonWriter& w = out.w;
  json_key(w, "suspects");
  w.StartArray();
  if (report.suspects.empty()) {
    w.EndArray();
    return;
  }
  const ShortestPathTree tree = ShortestPathTree::compute(g);
  for (size_t i = 0; i < report.suspects.size(); ++i) {
    const LeakSuspect& s = report.suspects[i];
    std::string& t = out.text;
    t += "\n" + std::to_string(i + 1) + ". " + name_text(s.group.cls);
    if (s.group.has_site()) t += " allocated at " + site_of(s.group);
    t += "\n";
    if (several) {
      t += "   growth " + growth_text(s.growth) +
           (s.steady    ? " (grows between every two dumps)"
            : s.growing ? " (grows, though not between every two dumps)"
                        : " (grew, then stopped: a warm-up?)") +
           "\n";
      t += "   " + format_count(s.count) +
           " born after the first dump, still alive: " + format_bytes(s.bytes) + ", retaining " +
           format_bytes(s.retained_bytes) + "\n";
    } else {
      t += "   " +
           (s.count == 1 ? std::string("1 object") : format_count(s.count) + " held together") +
           ": " + format_bytes(s.bytes) + ", retaining " + format_bytes(s.retained_bytes) + "\n";
      // A group of one site has it in its heading already.
      if (!s.group.has_site())
        for (const auto& [site, n] : s.sites)
          t += "   " + format_count(n) + " allocated at " + site_of(site) + "\n";
    }
    const RetentionPath path =
        s.holder.valid() ? tree.path_to(g, s.holder, max_depth) : RetentionPath();
    const std::string_view edge =
        s.holder.valid() ? g.string(tree.edge_into(g, s.holder)) : std::string_view();
    const auto same =
        std::find_if(report.suspects.begin(), report.suspects.begin() + static_cast<ptrdiff_t>(i),
                     [&](const LeakSuspect& x) { return x.holder == s.holder; });
    if (s.holder.valid() && same != report.suspects.begin() + static_cast<ptrdiff_t>(i)) {
      t += "   held by the same " + describe_text(g, s.holder) + " as #" +
           std::to_string(same - report.suspects.begin() + 1) +
           (s.holder_share == s.count ? "" : " (" + format_count(s.holder_share) + " of them)") +
           "\n";
    } else if (s.holder.valid() && s.count == 1 && s.holder == s.example) {
      // A big object whose own memory is the accumulation (a Thread's stack, a huge String).
      t += "   its memory is its own, not its children's\n";
      t += "   " + path_text(g, path) + "\n";
    } else if (s.holder.valid()) {
      t += "   held by " + describe_text(g, s.holder) + " " + hex_address(g.address(s.holder)) +
           (edge.empty() || s.holder == path.steps.front().object ? ""
                                                                  : " (" + name_text(edge) + ")") +
           ", which " +
           (s.holder_share == s.count ? "holds all of them\n"
                                      : "holds " + format_count(s.holder_share) + " of them\n");
      t += "   " + path_text(g, path) + "\n";
    } else {
      t += "   no single object holds most of them\n";
    }

    w.StartObject();
    json_key(w, "class");
    json_string(w, s.group.cls);
    json_key(w, "site");
    group_site_json(w, s.group);
    json_key(w, "count");
    w.Uint64(s.count);
    json_key(w, "bytes");
    w.Uint64(s.bytes);
    json_key(w, "retained_bytes");
    w.Uint64(s.retained_bytes);
    json_key(w, "growth");
    w.StartArray();
    for (uint64_t n : s.growth) w.Uint64(n);
    w.EndArray();
    json_key(w, "growing");
    w.Bool(s.growing);
    json_key(w, "steady");
    w.Bool(s.steady);
    json_key(w, "example");
    json_string(w, hex_address(g.address(s.example)));
    if (!several) {
      json_key(w, "sites");
      w.StartArray();
      for (const auto& [site, n] : s.sites) {
        w.StartObject();
        json_key(w, "site");
        group_site_json(w, site);
        json_key(w, "count");
        w.Uint64(n);
        w.EndObject();
      }
      w.EndArray();
    }
    json_key(w, "holder");
    if (s.holder.valid()) {
      w.StartObject();
      object_json(w, g, s.holder);
      json_key(w, "edge");
      json_string_or_null(w, edge);
      json_key(w, "holds");
      w.Uint64(s.holder_share);
      w.EndObject();
    } else {
      w.Null();
    }
    json_key(w, "path");
    if (s.holder.valid())
      path_json(w, g, path);
    else
      w.Null();
    w.EndObject();
  }
  w.EndArray();
}

int run(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().empty())
    return report_error(usage_error("leaks takes one or more INPUTs (see heapq leaks --help)"));
  auto top = get_limit(args, "top", 5);
  if (!top) return report_error(top.error());
  auto max_depth = get_count(args, "max-depth", 64);
  if (!max_depth) return report_error(max_depth.error());
  auto min_growth = get_count(args, "min-growth", 10);
  if (!min_growth) return report_error(min_growth.error());
  auto threshold = get_count(args, "threshold", 10);
  if (!threshold) return report_error(threshold.error());
  if (*threshold == 0 || *threshold > 100)
    return report_error(usage_error("--threshold expects a percentage from 1 to 100"));
  auto loaded = load_dumps_over_time(args.positional(), global, args.has("as-given"));
  if (!loaded) return report_error(loaded.error());
  const std::vector<LoadedDump>& dumps = *loaded;
  const HeapGraph& last = dumps.back().graph;
  const HeapDominators dom = HeapDominators::compute(last);
  LeakOptions options;
  options.top = *top;
  options.threshold = static_cast<double>(*threshold) / 100;
  options.min_growth = *min_growth;
  const bool several = dumps.size() > 1;
  LeakReport report;
  if (several) {
    std::vector<const HeapGraph*> graphs;
    for (const LoadedDump& d : dumps) graphs.push_back(&d.graph);
    report = find_growing_leaks(graphs, dom, options);
  } else {
    report = find_accumulations(last, dom, options);
  }

  Rendering out;
  JsonWriter& w = out.w;
  w.StartObject();
  write_input_json(w, dumps.back());
  json_key(w, "inputs");
  w.StartArray();
  for (const LoadedDump& d : dumps) write_input_object(w, d);
  w.EndArray();
  json_key(w, "heap_bytes");
  w.Uint64(report.heap_bytes);
  json_key(w, "profiler_bytes");
  w.Uint64(report.profiler_bytes);
  if (several) {
    json_key(w, "matched_by");
    json_string(w, match_method_name(report.match));
    json_key(w, "born");
    w.Uint64(report.born);
    json_key(w, "groups_growing");
    w.Uint64(report.groups_growing);
    out.text = format_count(dumps.size()) + " dumps, " + dumps.front().path + " to " +
               dumps.back().path + ":\n" + counted(report.born, "object", "objects") +
               " of the last " + (report.born == 1 ? "was" : "were") + " born after the first; " +
               counted(report.groups_growing, "group", "groups") + "\n(class, allocation site) " +
               (report.groups_growing == 1 ? "is" : "are") + " growing.\n";
    switch (report.match) {
      case MatchMethod::kSeq:
        break;
      case MatchMethod::kGeneration:
        out.text +=
            "Objects matched by address, class and GC generation (memprof dumps match them "
            "exactly).\n";
        break;
      case MatchMethod::kAddress:
        out.text +=
            "The dumps have no allocation tracing: objects matched by address and class only (a "
            "reused\n"
            "address passes for the old object), and no allocation sites. Trace allocations\n"
            "(Memprof.start, or ObjectSpace.trace_object_allocations_start) to see which line "
            "leaks.\n";
        break;
    }
    if (report.suspects.empty())
      out.text += "No suspect: no group of objects born after the first dump gained " +
                  std::to_string(*min_growth) + " or more (--min-growth).\n";
    else
      out.text += "Suspects, steady growth first, then by the memory they hold:\n";
  } else {
    out.text = dumps.back().path + ": " + format_bytes(report.heap_bytes) + " reachable" +
               (report.profiler_bytes
                    ? " (and " + format_bytes(report.profiler_bytes) + " of profiler overhead)"
                    : "") +
               ".\nWhere memory accumulates: objects retaining " + std::to_string(*threshold) +
               "% or more, followed down to\ntheir accumulation point (several dumps of one "
               "process show what grows).\n";
    if (report.suspects.empty())
      out.text += "No object retains " + std::to_string(*threshold) + "% of the heap.\n";
  }
  render_suspects(last, report, *max_depth, several, out);
  w.EndObject();
  return out.emit(global.format);
}

}  // namespace

const Command kLeaksCommand = {
    "leaks",
    "what grows across dumps, which line allocated it and who holds it",
    "heapq leaks [--top N] [--max-depth D] D1 D2 [D3...]\n"
    "       heapq leaks [--top N] [--threshold PCT] DUMP",
    "D1 D2 D3...: dumps of one process over time, oldest first (or one store\n"
    "holding several: heapq load d1 d2 d3 -o app.db; heapq leaks app.db). Take the\n"
    "first after warm-up, the others after more load. The suspects are the objects\n"
    "born after D1 and alive in the last dump, grouped by class and allocation\n"
    "site, that gained --min-growth objects or more: groups whose count grew\n"
    "between every two dumps first, then those still growing at the last dump, then\n"
    "the rest (a one-time warm-up grows once), each by the memory they hold. Each\n"
    "suspect names its counts per dump, its bytes, what freeing them all would\n"
    "free, the object that holds them (the deepest object that dominates most of\n"
    "them, else the one that references most) and a path from the GC roots to it.\n"
    "Objects are matched across dumps by memprof's seq, else by address, class and\n"
    "GC generation (allocation tracing on), else by address and class. The counts\n"
    "per dump are of every object, as heapq stats counts; objects the roots do not\n"
    "reach (garbage not yet swept) are never suspects.\n"
    "DUMP alone: objects that retain more than --threshold percent of the heap,\n"
    "followed down the dominator tree while one child keeps most of its parent (the\n"
    "accumulation point), with the class, count and allocation sites of what\n"
    "accumulates there.\n",
    kOptions,
    run,
};

}  // namespace heapq::cli
