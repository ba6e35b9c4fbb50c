#include <algorithm>
#include <string>

#include "heapq/answer/wording.h"
#include "heapq/render/render.h"
#include "heapq/render/terminal_text.h"
#include "text/common.h"
#include "text/table.h"

namespace heapq::render {

namespace {

std::string growth_text(const std::vector<uint64_t>& growth) {
  std::string out;
  for (uint64_t n : growth) out += (out.empty() ? "" : " -> ") + format_count(n);
  return out;
}

std::string heading(const LeaksAnswer& a) {
  if (!a.several) {
    std::string out =
        escape_controls(a.input.path) + ": " + format_bytes(a.heap_bytes) + " reachable" +
        (a.profiler_bytes ? " (and " + format_bytes(a.profiler_bytes) + " of profiler overhead)"
                          : "") +
        ".\nWhere memory accumulates: objects retaining " + std::to_string(a.threshold_percent) +
        "% or more, followed down to\ntheir accumulation point (several dumps of one "
        "process show what grows).\n";
    if (a.leaks.empty())
      out += "No object retains " + std::to_string(a.threshold_percent) + "% of the heap.\n";
    else if (a.below_threshold)
      out += "No object retains " + std::to_string(a.threshold_percent) +
             "% of the heap; the biggest accumulation points all the same:\n";
    return out;
  }
  std::string out = format_count(a.inputs.size()) + " dumps, " +
                    escape_controls(a.inputs.front().path) + " to " +
                    escape_controls(a.input.path) + ":\n" + counted(a.born, "object", "objects") +
                    " of the last " + (a.born == 1 ? "was" : "were") + " born after the first.\n" +
                    counted(a.groups, "group", "groups") + " (class, allocation site) gained " +
                    std::to_string(a.min_growth) + " or more" +
                    (a.groups ? ", " + format_count(a.groups_growing) + " still growing" : "") +
                    (a.found ? ": " + counted(a.found, "leak", "leaks") : "") + ".\n";
  if (a.profiler_bytes)
    out += "The profiler's own objects and what they alone hold (" +
           format_bytes(a.profiler_bytes) + " of profiler overhead) are left out.\n";
  switch (a.match) {
    case MatchMethod::kSeq:
      break;
    case MatchMethod::kGeneration:
      out +=
          "Objects matched by address, class and GC generation (memprof dumps match them "
          "exactly).\n";
      break;
    case MatchMethod::kAddress:
      out +=
          "The dumps have no allocation tracing: objects matched by address and class only\n"
          "(a reused address passes for the old object), and no allocation sites. Trace\n"
          "allocations (Memprof.start, or ObjectSpace.trace_object_allocations_start)\n"
          "to see which line leaks.\n";
      break;
  }
  for (const std::string& w : a.warnings) out += "Warning: " + w + ".\n";
  if (a.leaks.empty())
    out += "No leak: no group of objects born after the first dump gained " +
           std::to_string(a.min_growth) + " or more (--min-growth).\n";
  else
    out += "Leaks, steady growth first, then by the memory they hold:\n";
  return out;
}

std::string growth_note(bool steady, bool growing) {
  return steady    ? " (grows between every two dumps)"
         : growing ? " (grows, though not between every two dumps)"
                   : " (grew, then stopped: a warm-up?)";
}

constexpr size_t kHeldRows = 8;  // rows of a leak's table in text

// A sample value in quotes, its control characters escaped, cut to 40 columns.
std::string quoted_sample(std::string_view value) {
  return "\"" + fit_width(escape_controls(value), 40) + "\"";
}

// What a leak holds, by class and site (their counts in each dump are in --format json and the
// report: a column of them would not leave a terminal room for the sites).
std::string held_table(const LeaksAnswer::Leak& leak, size_t width) {
  std::vector<std::string> head = {"count", "bytes", "retaining"};
  std::vector<bool> numeric = {true, true, true};
  // Without allocation tracing no row has a site: no column says so on every row.
  const bool sites = std::any_of(leak.holds.begin(), leak.holds.end(),
                                 [](const LeaksAnswer::Held& h) { return h.site.has_value(); });
  head.push_back("class");
  numeric.push_back(false);
  if (sites) {
    head.push_back("allocated at");
    numeric.push_back(false);
  }
  TextTable table(head, numeric);
  for (size_t i = 0; i < leak.holds.size() && i < kHeldRows; ++i) {
    const LeaksAnswer::Held& h = leak.holds[i];
    std::vector<std::string> row = {format_count(h.count), format_bytes(h.bytes),
                                    format_bytes(h.retained_bytes)};
    row.push_back(escape_controls(h.cls));
    if (sites) row.push_back(h.site ? library_site_text(*h.site) : "(no allocation site)");
    table.add(std::move(row));
    // memprof's allocation stacks: the application's line when a gem's or Ruby's made them,
    // under the row (a column of its own would leave no room in a terminal).
    if (sites && other_line(h.site, h.app))
      table.note(3, "from the app's line ",
                 site_text(*h.app) +
                     (h.app_count < h.count ? " (" + format_count(h.app_count) + " of them)" : ""));
    // A String's or Symbol's value gives its cause away (an inline template's method name).
    if (h.sample) table.note(3, "e.g. ", quoted_sample(*h.sample));
  }
  std::string out = table.render(width);
  if (leak.holds.size() > kHeldRows)
    out += "(" + counted(leak.holds.size() - kHeldRows, "more group", "more groups") +
           "; --format json lists all)\n";
  return out;
}

std::string leak_text(const LeaksAnswer& a, size_t i, size_t width) {
  const LeaksAnswer::Leak& leak = a.leaks[i];
  std::string t = "\n" + std::to_string(i + 1) + ". ";
  if (!leak.holder && !leak.holder_root.empty()) {
    const std::string meaning = root_meaning(leak.holder_root);
    t += "Held by a GC root: ROOT(" + name_text(leak.holder_root) + ")" +
         (meaning.empty() ? "" : ", " + meaning) + "\n";
    for (const auto& [name, count] : leak.holder_root_names)
      t += "   " + name_text(name) + " (" + counted(count, "entry", "entries") + ")\n";
  } else if (!leak.holder) {
    t += "No single object holds it\n";
  } else {
    // Held by a root directly: the edge is the root's category, which the path shows.
    const bool by_root = !leak.path->steps.empty() &&
                         leak.path->steps.front().object.address == leak.holder->address;
    t += leak.own_memory ? "" : "Held by ";
    t += object_text(*leak.holder) + " " + hex_address(leak.holder->address) +
         (leak.holder_edge.empty() || by_root ? "" : " (" + name_text(leak.holder_edge) + ")");
    t += "\n";
    if (leak.holder->site && other_line(leak.holder->site, leak.holder->app))
      t += "   allocated at " + library_site_text(*leak.holder->site) +
           ",\n   from the app's line " + site_text(*leak.holder->app) + "\n";
    else if (leak.holder->site)
      t += "   allocated at " + site_text(*leak.holder->site) + "\n";
    // The owners' path beside its label; a longer label's path on a line of its own.
    for (const auto& [label, path] : holder_paths(leak))
      t += "   " + label + (label.size() < 12 ? " " : "\n     ") + path + "\n";
    // A big object whose own memory is the accumulation (a Thread's stack, a huge String).
    if (leak.own_memory)
      return t + "   its memory is its own, not its children's: " + format_bytes(leak.bytes) + "\n";
  }
  const std::string share = leak_share_text(leak);
  if (a.several) {
    t += "   " + counted(leak.count, "object", "objects") +
         " born after the first dump: " + format_bytes(leak.bytes) + ", retaining " +
         format_bytes(leak.retained_bytes) + (share.empty() ? "" : "\n   " + share) + "\n";
    t += "   in each dump: " + growth_text(leak.growth) + growth_note(leak.steady, leak.growing) +
         "\n";
    if (std::string pending = pending_finalizers_text(leak); !pending.empty())
      t += "   " + pending + "\n";
  } else {
    t += "   " +
         (leak.count == 1 ? std::string("1 object") : format_count(leak.count) + " held together") +
         ": " + format_bytes(leak.bytes) + ", retaining " + format_bytes(leak.retained_bytes) +
         (share.empty() ? "" : "\n   " + share) + "\n";
  }
  return t + held_table(leak, width);
}

}  // namespace

std::string text(const LeaksAnswer& a, const TextOptions& options) {
  if (!a.processes.empty()) {
    std::string out = "The dumps are of " + format_count(a.processes.size()) +
                      " processes: objects of different processes never match, so each is "
                      "taken on its own (--as-given compares them all the same).\n";
    for (const LeaksAnswer& p : a.processes)
      out += "  " + name_text(process_name(p.pid, p.host)) +
             (p.started.empty() ? "" : " (started " + name_text(p.started) + ")") + ": " +
             counted(p.inputs.size(), "dump", "dumps") + ", " + counted(p.found, "leak", "leaks") +
             "\n";
    out = finish_text(out, options.width);
    for (const LeaksAnswer& p : a.processes)
      out +=
          finish_text("\n== " + name_text(process_name(p.pid, p.host)) + " ==\n", options.width) +
          text(p, options);
    return out;
  }
  std::string out = heading(a);
  for (size_t i = 0; i < a.leaks.size(); ++i) out += leak_text(a, i, options.width);
  if (a.leaks.size() < a.found)
    out += "\n(" + counted(a.found - a.leaks.size(), "more leak", "more leaks") +
           "; --top 0 shows all)\n";
  return finish_text(out, options.width);
}

}  // namespace heapq::render
