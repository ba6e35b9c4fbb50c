#include "heapq/answer/viz.h"

#include "heapq/answer/pictures.h"
#include "heapq/dominators.h"
#include "heapq/leaks.h"
#include "heapq/retainers.h"
#include "heapq/targets.h"

namespace heapq {

Result<VizAnswer> answer_viz(const std::string& input, const std::string& target,
                             const VizOptions& options, const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(const LoadedDump dump, load_input(input, inputs));
  return viz_answer(dump, target, options);
}

Result<VizAnswer> viz_answer(const LoadedDump& dump, const std::string& target,
                             const VizOptions& options) {
  const HeapGraph& g = dump.graph;
  std::optional<Target> found;
  if (!options.dominators) {
    HEAPQ_ASSIGN_OR_RETURN(found, find_target(g, target, dump.path));
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
