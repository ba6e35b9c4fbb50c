#include "heapq/answer/ask/dominators.h"

#include <algorithm>

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/retainers.h"
#include "refs.h"

namespace heapq {

namespace {

// Steps shown of a long path: its first and last ones, the middle elided.
constexpr size_t kPathSteps = 64;

// The objects with the most retained bytes, the virtual root left out.
std::vector<ObjectId> top_objects(const HeapGraph& g, const HeapDominators& dom, size_t top) {
  std::vector<ObjectId> all;
  all.reserve(g.object_count());
  for (uint32_t i = 0; i < g.object_count(); ++i)
    if (dom.reachable(ObjectId(i))) all.push_back(ObjectId(i));
  auto larger = [&](ObjectId a, ObjectId b) {
    if (dom.retained_bytes(a) != dom.retained_bytes(b))
      return dom.retained_bytes(a) > dom.retained_bytes(b);
    return a < b;
  };
  top = std::min(top, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<ptrdiff_t>(top), all.end(), larger);
  return {all.begin(), all.begin() + static_cast<ptrdiff_t>(top)};  // not all's capacity
}

DominatorsAnswer::Node node(const HeapGraph& g, const HeapDominators& dom, ObjectId o) {
  return {object_ref(g, o), g.memsize(o), dom.retained_bytes(o), dom.retained_count(o)};
}

// Iterative: an explicit stack of (node, depth), children pushed largest last.
std::vector<DominatorsAnswer::TreeEntry> tree(const HeapGraph& g, const HeapDominators& dom,
                                              size_t max_depth, size_t top) {
  struct Item {
    ObjectId node;
    size_t depth;
    size_t hidden;
  };
  std::vector<DominatorsAnswer::TreeEntry> out;
  std::vector<Item> stack{{g.virtual_root(), 0, 0}};
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    DominatorsAnswer::TreeEntry entry;
    entry.depth = it.depth;
    entry.hidden = it.hidden;
    if (it.node == g.virtual_root()) {
      entry.roots = true;
      entry.node.retained_bytes = dom.retained_bytes(it.node);
    } else if (!it.hidden) {
      entry.node = node(g, dom, it.node);
    }
    out.push_back(std::move(entry));
    if (it.hidden || it.depth >= max_depth) continue;
    std::vector<ObjectId> kids = dom.children(it.node);
    if (kids.size() > top) stack.push_back({ObjectId::none(), it.depth + 1, kids.size() - top});
    for (size_t i = std::min(top, kids.size()); i-- > 0;)
      stack.push_back({kids[i], it.depth + 1, 0});
  }
  return out;
}

}  // namespace

Result<DominatorsAnswer> answer_dominators(const std::string& input,
                                           const DominatorsOptions& options,
                                           const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(const LoadedDump dump, load_input(input, inputs));
  return dominators_answer(dump, options);
}

DominatorsAnswer dominators_answer(const LoadedDump& dump, const DominatorsOptions& options) {
  const HeapGraph& g = dump.graph;
  DominatorsAnswer a;
  a.input = summarize(dump);
  a.tree = options.tree;
  a.tree_depth = options.depth;
  std::vector<ObjectId> top;
  {
    const HeapDominators dom = HeapDominators::compute(g);
    a.reachable_count = dom.retained_count(g.virtual_root()) - 1;
    a.reachable_bytes = dom.retained_bytes(g.virtual_root());
    a.unreachable_count = dom.unreachable_count();
    a.unreachable_bytes = dom.unreachable_bytes();
    if (options.tree) {
      a.entries = tree(g, dom, options.depth, options.top);
      return a;
    }
    top = top_objects(g, dom, options.top);
    for (ObjectId o : top) a.dominators.push_back({node(g, dom, o), {}});
  }  // the dominators' arrays are freed before the paths' tree is made
  const ShortestPathTree paths = ShortestPathTree::compute(g);
  for (size_t i = 0; i < top.size(); ++i)
    a.dominators[i].path = path_ref(g, paths.path_to(g, top[i], kPathSteps));
  return a;
}

}  // namespace heapq
