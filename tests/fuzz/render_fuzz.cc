// libFuzzer target: any bytes read as a dump, every answer built from it, and every renderer
// (text at two widths, JSON, DOT, the report's HTML, pprof, folded stacks) on every answer. The
// JSON must parse and the text must hold no control character (a dump's strings never drive a
// terminal).
// Build and run with tests/fuzz/run.sh (needs clang).
#include <rapidjson/document.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "heapq/answer/ask/diff.h"
#include "heapq/answer/ask/dominators.h"
#include "heapq/answer/ask/leaks.h"
#include "heapq/answer/ask/profile.h"
#include "heapq/answer/ask/retainers.h"
#include "heapq/answer/ask/sites.h"
#include "heapq/answer/ask/stats.h"
#include "heapq/answer/ask/strings.h"
#include "heapq/answer/ask/viz.h"
#include "heapq/base/utf8.h"
#include "heapq/model/load.h"
#include "heapq/render/render.h"
#include "heapq/viz/picture.h"
#include "pictures.h"

namespace {

using namespace heapq;

// Text for a terminal: newlines, and no character that moves the cursor, clears, retitles or
// reorders what follows (heapq::control_character), nor a byte that is not UTF-8.
void check_text(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_sequence_length(text, i);
    if (n == 0) std::abort();
    const uint32_t cp = utf8_code_point(text, i, n);
    if (cp != '\n' && control_character(cp)) std::abort();
    i += n;
  }
}

void check_json(const std::string& json) {
  rapidjson::Document doc;
  if (doc.Parse(json.c_str(), json.size()).HasParseError()) std::abort();
}

template <typename Answer>
void render_all(const Answer& answer) {
  for (size_t width : {size_t(80), size_t(0)}) check_text(render::text(answer, {width}));
  check_json(render::json(answer));
}

// A profile: pprof always encodes it; each folded line is frames, a space and a number.
void render_profile(const ProfileAnswer& profile) {
  if (!render::pprof(profile)) std::abort();
  const std::string folded = render::folded(profile);
  check_text(folded);
  for (size_t at = 0, nl; (nl = folded.find('\n', at)) != std::string::npos; at = nl + 1) {
    const size_t space = folded.rfind(' ', nl);
    if (space == std::string::npos || space < at || space + 1 == nl) std::abort();
    if (folded.find_first_not_of("0123456789", space + 1) != nl) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  LoadOptions options;
  options.threads = 1;
  options.values = true;  // for strings; no other answer reads them
  auto input = memory_input(bytes, "fuzz.json");
  LoadedDump dump;
  dump.path = dump.name = "fuzz.json";
  auto graph = load_dump(*input, options, dump.report);
  if (!graph) return 0;
  dump.graph = std::move(*graph);
  const HeapDominators dom = HeapDominators::compute(dump.graph);

  StatsOptions stats;
  stats.top = SIZE_MAX;
  stats.retained = true;
  const StatsAnswer stats_a = stats_answer(dump, &dom, stats);
  render_all(stats_a);
  SitesOptions sites;
  sites.by = size % 2 ? SiteGrouping::kGem : SiteGrouping::kSite;
  const SitesAnswer sites_a = sites_answer(dump, &dom, sites);
  render_all(sites_a);
  render_all(strings_answer(dump, StringsOptions()));
  render_profile(sites_profile(dump, &dom));
  render_profile(dominators_profile(dump, dom, 4));
  DominatorsOptions dominators;
  render_all(dominators_answer(dump, dominators));
  dominators.tree = true;
  dominators.depth = 4;
  dominators.top = 3;
  render_all(dominators_answer(dump, dominators));

  LeaksOptions leaks;
  leaks.min_growth = 1;
  leaks.threshold = 0.01;
  std::vector<LoadedDump> one;
  one.push_back(std::move(dump));
  const LeakReport accumulations = find_leaks(one, dom, leaks);
  render_all(leaks_answer(one, dom, accumulations, leaks));
  const LoadedDump& d = one.back();
  if (auto diff = diff_answer(d, d, DiffOptions())) render_all(*diff);

  if (d.graph.object_count() > 0) {
    RetainersOptions retainers;
    retainers.referrers = true;
    const std::string address = "0x" + [&] {
      char buf[20];
      std::snprintf(buf, sizeof buf, "%llx",
                    static_cast<unsigned long long>(d.graph.address(ObjectId(0))));
      return std::string(buf);
    }();
    if (auto r = retainers_answer(d, address, retainers)) render_all(*r);
    const std::string cls(d.graph.class_name(d.graph.class_of(ObjectId(0))));
    if (auto r = retainers_answer(d, cls, retainers)) render_all(*r);
    VizOptions viz;
    if (auto picture = viz_answer(d, cls, viz)) viz::to_dot(picture->picture);
    viz.dominators = true;
    if (auto picture = viz_answer(d, "", viz)) viz::to_dot(picture->picture);
  }

  // The report's page from these answers, without its pictures (graphviz is a process).
  ReportAnswer report;
  report.stats = stats_a;
  report.sites = sites_a;
  report.leaks = leaks_answer(one, dom, accumulations, leaks);
  report.icicle = icicle_nodes(d.graph, dom, 50);
  render::html(report);
  return 0;
}
