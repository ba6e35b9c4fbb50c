#include "heapq/answer/ask/report.h"

#include <algorithm>
#include <future>

#include "heapq/analyze/retainers.h"
#include "heapq/answer/ask/fleet.h"
#include "heapq/answer/ask/leaks.h"
#include "heapq/answer/ask/sites.h"
#include "heapq/answer/ask/stats.h"
#include "heapq/answer/wording.h"
#include "heapq/store/store.h"
#include "pictures.h"

namespace heapq {

namespace {

// The dumps, and for dumps from a server what grows across the processes of its store too
// (those of the dump's app where load --app named one), read on one connection per store that
// is closed before the analyses: a server's read transaction is not held while they run.
Result<std::vector<LoadedDump>> read_inputs(const std::vector<std::string>& paths,
                                            const ReportOptions& options,
                                            const InputOptions& inputs,
                                            std::optional<FleetAnswer>& fleet) {
  HEAPQ_ASSIGN_OR_RETURN(Inputs opened, Inputs::open_over_time(paths));
  HEAPQ_ASSIGN_OR_RETURN(std::vector<LoadedDump> dumps,
                         load_dumps_over_time(opened, inputs, options.as_given));
  for (const Input* in : opened.all())
    if (in->kind == InputKind::kStore && is_server_url(in->path)) {
      FleetOptions fleet_options;
      for (const LoadedDump& d : dumps)  // named as its input is
        if (d.path == in->path) fleet_options.app = d.app;
      HEAPQ_ASSIGN_OR_RETURN(fleet, fleet_answer(*in->store, fleet_options));
      break;
    }
  return dumps;
}

}  // namespace

Result<ReportAnswer> answer_report(const std::vector<std::string>& paths,
                                   const ReportOptions& options, const InputOptions& inputs) {
  ReportAnswer a;
  HEAPQ_ASSIGN_OR_RETURN(const std::vector<LoadedDump> dumps,
                         read_inputs(paths, options, inputs, a.fleet));
  const HeapGraph& g = dumps.back().graph;
  const HeapDominators dom = HeapDominators::compute(g);
  // The parts are independent answers over one graph and its dominator tree: the sites and the
  // leaks with their pictures on a second core while the class table and the icicle are made
  // (each about half of the work at 16M objects); one after the other with --threads 1.
  auto sites_and_leaks =
      std::async(inputs.threads == 1 ? std::launch::deferred : std::launch::async, [&] {
        // Retained sizes only for the rows the tables show: each costs a walk of part of the
        // graph.
        SitesOptions sites;
        sites.top = options.top;
        a.sites = sites_answer(dumps.back(), &dom, sites);
        LeaksOptions leaks;
        leaks.top = options.leaks;
        leaks.max_depth = 24;
        const bool several = dumps.size() > 1;
        const LeakReport report =
            several || options.leaks ? find_leaks(dumps, dom, leaks) : LeakReport();
        a.leaks = leaks_answer(dumps, dom, report, leaks);
        if (report.leaks.empty()) return;
        const ShortestPathTree tree = ShortestPathTree::compute(g);
        for (size_t i = 0; i < report.leaks.size(); ++i) {
          ReportAnswer::LeakPicture p;
          p.picture = leak_picture(g, tree, dom, report.leaks[i], "leak" + std::to_string(i + 1),
                                   PictureLimits{24, 12});
          p.holder_drawn =
              std::any_of(p.picture.boxes.begin(), p.picture.boxes.end(),
                          [](const viz::Box& b) { return b.kind == viz::BoxKind::kHolder; });
          a.pictures.push_back(std::move(p));
        }
      });
  StatsOptions stats;
  stats.top = options.top;
  a.stats = stats_answer(dumps.back(), &dom, stats);
  a.reachable_objects = dom.retained_count(g.virtual_root()) - 1;
  a.reachable_bytes = dom.retained_bytes(g.virtual_root());
  a.unreachable_objects = dom.unreachable_count();
  a.unreachable_bytes = dom.unreachable_bytes();
  a.icicle = icicle_nodes(g, dom, std::max<size_t>(options.nodes, 1));
  sites_and_leaks.get();
  return a;
}

}  // namespace heapq
