#include "heapq/answer/leaks.h"

#include "heapq/dominators.h"
#include "heapq/leaks.h"
#include "heapq/retainers.h"

namespace heapq {

namespace {

std::optional<SiteRef> group_site(const GroupTable::Group& g) {
  if (!g.has_site()) return std::nullopt;
  return SiteRef{g.file, g.line, g.method};
}

// The dumps of one process, in their order.
Result<LeaksAnswer> answer_process_leaks(const std::vector<std::string>& paths,
                                         const LeaksOptions& options, const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(const std::vector<LoadedDump> dumps,
                         load_process_dumps(paths, inputs, options.as_given));
  const HeapDominators dom = HeapDominators::compute(dumps.back().graph);
  return leaks_answer(dumps, find_leaks(dumps, dom, options), options);
}

}  // namespace

Result<LeaksAnswer> answer_leaks(const std::vector<std::string>& paths, const LeaksOptions& options,
                                 const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(const std::vector<ProcessDumps> processes,
                         dumps_by_process(paths, inputs, options.as_given));
  if (processes.size() > 1) {
    // Objects of different processes never match: each process on its own, one at a time.
    LeaksAnswer a;
    for (const ProcessDumps& p : processes) {
      HEAPQ_ASSIGN_OR_RETURN(LeaksAnswer one, answer_process_leaks(p.paths, options, inputs));
      one.pid = p.pid;
      one.host = p.host;
      one.started = p.started;
      a.processes.push_back(std::move(one));
    }
    return a;
  }
  return answer_process_leaks(processes.front().paths, options, inputs);
}

LeakReport find_leaks(const std::vector<LoadedDump>& dumps, const HeapDominators& dom,
                      const LeaksOptions& options) {
  LeakOptions leak_options;
  leak_options.top = options.top;
  leak_options.threshold = static_cast<double>(options.threshold_percent) / 100;
  leak_options.min_growth = options.min_growth;
  if (dumps.size() == 1) return find_accumulations(dumps.back().graph, dom, leak_options);
  std::vector<const HeapGraph*> graphs;
  std::vector<const std::vector<bool>*> reachable;
  for (const LoadedDump& d : dumps) {
    graphs.push_back(&d.graph);
    reachable.push_back(&d.reachable);
  }
  return find_growing_leaks(graphs, dom, leak_options, reachable);
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
  if (a.several)
    if (auto w = compaction_warning(dumps.front().report.origin, dumps.back().report.origin,
                                    report.by_address))
      a.warnings.push_back(std::move(*w));
  a.groups = report.groups;
  a.groups_growing = report.groups_growing;
  a.found = report.found;
  a.min_growth = options.min_growth;
  a.threshold_percent = options.threshold_percent;
  a.below_threshold = report.below_threshold;
  if (report.leaks.empty()) return a;

  const ShortestPathTree tree = ShortestPathTree::compute(last);
  for (const Leak& leak : report.leaks) {
    LeaksAnswer::Leak& out = a.leaks.emplace_back();
    out.count = leak.count;
    out.bytes = leak.bytes;
    out.retained_bytes = leak.retained_bytes;
    out.growth = leak.growth;
    out.growing = leak.growing;
    out.steady = leak.steady;
    for (const LeakGroup& g : leak.groups)
      out.holds.push_back({g.group.cls, group_site(g.group), g.count, g.bytes, g.growth, g.growing,
                           g.steady, last.address(g.example), site_ref(last, g.app_site),
                           g.app_count});
    out.holder_share = leak.holder_share;
    out.holder_root = std::string(last.string(leak.holder_root));
    out.holder_root_names = leak.holder_root_names;
    if (leak.holder.valid()) {
      out.holder = object_ref(last, leak.holder);
      out.holder_edge = std::string(last.string(tree.edge_into(last, leak.holder)));
      out.path = path_ref(last, tree.path_to(last, leak.holder, options.max_depth));
      out.own_memory = leak.count == 1 && leak.members.front() == leak.holder;
    }
  }
  return a;
}

}  // namespace heapq
