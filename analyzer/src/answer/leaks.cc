#include "heapq/answer/leaks.h"

#include <algorithm>

#include "heapq/dominators.h"
#include "heapq/leaks.h"
#include "heapq/retainers.h"

namespace heapq {

namespace {

std::optional<SiteRef> group_site(const GroupTable::Group& g) {
  if (!g.has_site()) return std::nullopt;
  return SiteRef{g.file, g.line, g.method};
}

}  // namespace

Result<LeaksAnswer> answer_leaks(const std::vector<std::string>& paths, const LeaksOptions& options,
                                 const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(const std::vector<LoadedDump> dumps,
                         load_dumps_over_time(paths, inputs, options.as_given));
  const HeapDominators dom = HeapDominators::compute(dumps.back().graph);
  return leaks_answer(dumps, find_leaks(dumps, dom, options), options);
}

LeakReport find_leaks(const std::vector<LoadedDump>& dumps, const HeapDominators& dom,
                      const LeaksOptions& options) {
  LeakOptions leak_options;
  leak_options.top = options.top;
  leak_options.threshold = static_cast<double>(options.threshold_percent) / 100;
  leak_options.min_growth = options.min_growth;
  if (dumps.size() == 1) return find_accumulations(dumps.back().graph, dom, leak_options);
  std::vector<const HeapGraph*> graphs;
  for (const LoadedDump& d : dumps) graphs.push_back(&d.graph);
  return find_growing_leaks(graphs, dom, leak_options);
}

LeaksAnswer leaks_answer(const std::vector<LoadedDump>& dumps, const LeakReport& report,
                         const LeaksOptions& options) {
  const HeapGraph& last = dumps.back().graph;
  LeaksAnswer a;
  a.several = dumps.size() > 1;
  a.input = summarize(dumps.back());
  for (const LoadedDump& d : dumps) a.inputs.push_back(summarize(d));
  a.heap_bytes = report.heap_bytes;
  a.profiler_bytes = report.profiler_bytes;
  a.match = report.match;
  a.born = report.born;
  a.groups_growing = report.groups_growing;
  a.min_growth = options.min_growth;
  a.threshold_percent = options.threshold_percent;
  a.below_threshold = report.below_threshold;
  if (report.suspects.empty()) return a;

  const ShortestPathTree tree = ShortestPathTree::compute(last);
  for (size_t i = 0; i < report.suspects.size(); ++i) {
    const LeakSuspect& s = report.suspects[i];
    LeaksAnswer::Suspect out;
    out.cls = s.group.cls;
    out.site = group_site(s.group);
    out.count = s.count;
    out.bytes = s.bytes;
    out.retained_bytes = s.retained_bytes;
    out.growth = s.growth;
    out.growing = s.growing;
    out.steady = s.steady;
    out.example = last.address(s.example);
    for (const auto& [site, n] : s.sites) out.sites.push_back({group_site(site), n});
    out.holder_share = s.holder_share;
    if (s.holder.valid()) {
      out.holder = object_ref(last, s.holder);
      out.holder_edge = std::string(last.string(tree.edge_into(last, s.holder)));
      out.path = path_ref(last, tree.path_to(last, s.holder, options.max_depth));
      const auto same =
          std::find_if(report.suspects.begin(), report.suspects.begin() + static_cast<ptrdiff_t>(i),
                       [&](const LeakSuspect& x) { return x.holder == s.holder; });
      if (same != report.suspects.begin() + static_cast<ptrdiff_t>(i))
        out.same_holder_as = static_cast<size_t>(same - report.suspects.begin()) + 1;
      out.own_memory = s.count == 1 && s.holder == s.example;
    }
    a.suspects.push_back(std::move(out));
  }
  return a;
}

}  // namespace heapq
