#include "heapq/answer/ask/viz.h"

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/leaks.h"
#include "heapq/analyze/retainers.h"
#include "heapq/answer/ask/leaks.h"
#include "heapq/answer/targets.h"
#include "heapq/answer/wording.h"
#include "pictures.h"

namespace heapq {

Result<VizAnswer> answer_viz(const std::string& input, const std::string& target,
                             const VizOptions& options, const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(const LoadedDump dump, load_input(input, inputs));
  return viz_answer(dump, target, options);
}

Result<VizAnswer> answer_viz_leak(const std::vector<std::string>& paths, const VizOptions& options,
                                  const InputOptions& inputs) {
  LeaksOptions leaks;
  leaks.top = options.leak;
  leaks.as_given = options.as_given;
  HEAPQ_ASSIGN_OR_RETURN(const std::vector<LoadedDump> dumps,
                         load_dumps_over_time(paths, inputs, leaks.as_given));
  const HeapGraph& g = dumps.back().graph;
  const HeapDominators dom = HeapDominators::compute(g);
  const LeakReport report = find_leaks(dumps, dom, leaks);
  if (report.leaks.size() < options.leak)
    return usage_error("there is no leak " + std::to_string(options.leak) + ": heapq leaks finds " +
                       counted(report.found, "leak", "leaks") + " in " + dumps.back().name);
  const ShortestPathTree tree = ShortestPathTree::compute(g);
  VizAnswer a;
  a.picture = leak_picture(g, tree, dom, report.leaks[options.leak - 1], "",
                           PictureLimits{options.max_boxes, options.depth});
  return a;
}

Result<VizAnswer> viz_answer(const LoadedDump& dump, const std::string& target,
                             const VizOptions& options) {
  const HeapGraph& g = dump.graph;
  std::optional<Target> found;
  if (!options.dominators) {
    HEAPQ_ASSIGN_OR_RETURN(found, find_target(g, target, dump.path, options.site));
  }
  const HeapDominators dom = HeapDominators::compute(g);
  const PictureLimits limits{options.max_boxes, options.depth};
  VizAnswer a;
  if (options.dominators) {
    a.picture = dominators_picture(g, dom, options.top, limits);
  } else if (found->object) {
    a.picture = object_picture(g, dom, *found->object, limits);
  } else {
    const ShortestPathTree tree = ShortestPathTree::compute(g);
    // The holder as heapq leaks names it, so that both draw the same object in red.
    std::vector<bool> in_set(g.object_count(), false);
    for (ObjectId o : found->instances)
      if (dom.reachable(o)) in_set[o.value()] = true;
    const ObjectId holder = find_holder(g, dom, in_set).first;
    a.picture = shapes_picture(g, tree, dom, found->instances, found->label, holder, limits);
  }
  return a;
}

}  // namespace heapq
