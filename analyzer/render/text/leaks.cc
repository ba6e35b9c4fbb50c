#include <string>

#include "heapq/wording.h"
#include "render/render.h"
#include "render/text/common.h"

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
        a.input.path + ": " + format_bytes(a.heap_bytes) + " reachable" +
        (a.profiler_bytes ? " (and " + format_bytes(a.profiler_bytes) + " of profiler overhead)"
                          : "") +
        ".\nWhere memory accumulates: objects retaining " + std::to_string(a.threshold_percent) +
        "% or more, followed down to\ntheir accumulation point (several dumps of one "
        "process show what grows).\n";
    if (a.suspects.empty())
      out += "No object retains " + std::to_string(a.threshold_percent) + "% of the heap.\n";
    else if (a.below_threshold)
      out += "No object retains " + std::to_string(a.threshold_percent) +
             "% of the heap; the biggest accumulation points all the same:\n";
    return out;
  }
  std::string out = format_count(a.inputs.size()) + " dumps, " + a.inputs.front().path + " to " +
                    a.input.path + ":\n" + counted(a.born, "object", "objects") + " of the last " +
                    (a.born == 1 ? "was" : "were") + " born after the first; " +
                    counted(a.groups_growing, "group", "groups") + "\n(class, allocation site) " +
                    (a.groups_growing == 1 ? "is" : "are") + " growing.\n";
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
          "The dumps have no allocation tracing: objects matched by address and class only (a "
          "reused\n"
          "address passes for the old object), and no allocation sites. Trace allocations\n"
          "(Memprof.start, or ObjectSpace.trace_object_allocations_start) to see which line "
          "leaks.\n";
      break;
  }
  if (a.suspects.empty())
    out += "No suspect: no group of objects born after the first dump gained " +
           std::to_string(a.min_growth) + " or more (--min-growth).\n";
  else
    out += "Suspects, steady growth first, then by the memory they hold:\n";
  return out;
}

std::string suspect_text(const LeaksAnswer& a, size_t i) {
  const LeaksAnswer::Suspect& s = a.suspects[i];
  std::string t = "\n" + std::to_string(i + 1) + ". " + name_text(s.cls);
  if (s.site) t += " allocated at " + site_text(*s.site);
  t += "\n";
  if (a.several) {
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
    if (!s.site)
      for (const auto& [site, n] : s.sites)
        t += "   " + format_count(n) + " allocated at " + (site ? site_text(*site) : "") + "\n";
  }
  if (!s.holder) return t + "   no single object holds most of them\n";
  if (s.same_holder_as)
    return t + "   held by the same " + object_text(*s.holder) + " as #" +
           std::to_string(s.same_holder_as) +
           (s.holder_share == s.count ? "" : " (" + format_count(s.holder_share) + " of them)") +
           "\n";
  if (s.own_memory)
    // A big object whose own memory is the accumulation (a Thread's stack, a huge String).
    return t + "   its memory is its own, not its children's\n   " + path_text(*s.path) + "\n";
  // Held by a root directly: the edge is the root's category, which the path shows.
  const bool by_root =
      !s.path->steps.empty() && s.path->steps.front().object.address == s.holder->address;
  return t + "   held by " + object_text(*s.holder) + " " + hex_address(s.holder->address) +
         (s.holder_edge.empty() || by_root ? "" : " (" + name_text(s.holder_edge) + ")") +
         ", which " +
         (s.holder_share == s.count ? "holds all of them\n"
                                    : "holds " + format_count(s.holder_share) + " of them\n") +
         "   " + path_text(*s.path) + "\n";
}

}  // namespace

std::string text(const LeaksAnswer& a, const TextOptions& options) {
  std::string out = heading(a);
  for (size_t i = 0; i < a.suspects.size(); ++i) out += suspect_text(a, i);
  return finish_text(out, options.width);
}

}  // namespace heapq::render
