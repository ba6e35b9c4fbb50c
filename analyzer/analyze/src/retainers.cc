#include "heapq/analyze/retainers.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "heapq/analyze/dominators.h"
#include "heapq/base/saturating_add.h"

namespace heapq {

namespace {

// A path from its objects in order, root-held first (by root_edge), keeping at most max_steps
// of them.
template <typename EdgeInto>
RetentionPath make_path(const HeapGraph& g, uint32_t root_edge, const std::vector<uint32_t>& chain,
                        size_t max_steps, EdgeInto edge_into) {
  RetentionPath p;
  p.root = reference_label(g, root_edge);
  p.root_name = root_reference_name(g, root_edge);
  max_steps = std::max<size_t>(max_steps, 2);
  const size_t head = chain.size() <= max_steps ? chain.size() : max_steps / 2;
  const size_t tail_from =
      chain.size() <= max_steps ? chain.size() : chain.size() - (max_steps - head);
  auto add = [&](size_t i) {
    p.steps.push_back({ObjectId(chain[i]), i == 0 ? StringId::none() : edge_into(i)});
  };
  for (size_t i = 0; i < head; ++i) add(i);
  if (tail_from < chain.size()) {
    p.elided_after = head;
    p.elided = tail_from - head;
    for (size_t i = tail_from; i < chain.size(); ++i) add(i);
  }
  return p;
}

// The root reference an edge is, or null for an object's reference.
const RootEdge* root_of_edge(const HeapGraph& g, uint32_t edge) {
  const uint32_t roots_begin = g.edge_begin()[g.virtual_root().value()];
  return edge >= roots_begin && edge - roots_begin < g.roots().size()
             ? &g.roots()[edge - roots_begin]
             : nullptr;
}

}  // namespace

StringId reference_label(const HeapGraph& g, uint32_t edge) {
  const RootEdge* root = root_of_edge(g, edge);
  return root ? root->category : g.edge_name(edge);
}

StringId root_reference_name(const HeapGraph& g, uint32_t edge) {
  const RootEdge* root = root_of_edge(g, edge);
  return root ? root->name : StringId::none();
}

Referrers Referrers::build(const HeapGraph& g) {
  Referrers r;
  const auto begin = g.edge_begin();
  const auto target = g.edge_targets();
  const size_t nodes = begin.size() - 1;
  r.begin_.assign(nodes + 1, 0);
  for (uint32_t t : target) ++r.begin_[t + 1];
  for (size_t i = 0; i < nodes; ++i) r.begin_[i + 1] += r.begin_[i];
  r.source_.resize(target.size());
  r.edge_.resize(target.size());
  std::vector<uint32_t> fill(r.begin_.begin(), r.begin_.end() - 1);
  for (uint32_t v = 0; v < nodes; ++v)
    for (uint32_t e = begin[v]; e < begin[v + 1]; ++e) {
      const uint32_t slot = fill[target[e]]++;
      r.source_[slot] = v;
      r.edge_[slot] = e;
    }
  return r;
}

bool is_transient_root(std::string_view category) {
  return category == "machine_context" || category.starts_with("fork_parent:");
}

bool is_vm_cache_class(std::string_view name) {
  return name == "IMEMO:callcache" || name == "IMEMO:constcache" || name == "IMEMO:cref";
}

ShortestPathTree ShortestPathTree::compute(const HeapGraph& g, ObjectId through_not) {
  ShortestPathTree t;
  const uint32_t root = g.virtual_root().value();
  t.parent_.assign(g.object_count() + 1, kNone);
  t.via_.assign(g.object_count() + 1, kNone);
  t.distance_.resize(g.object_count() + 1, 0);
  t.parent_[root] = root;
  t.distance_.set(root, 1);
  const auto begin = g.edge_begin();
  const auto target = g.edge_targets();
  t.transient_.assign(g.object_count() + 1, false);
  // The nodes reached and not yet gone through, freed as they are: the frontier is in memory,
  // not every node reached (4 bytes an object at the search's end).
  std::deque<uint32_t> queue;
  bool transient = false;
  auto reach = [&](uint32_t v, uint32_t e) {
    const uint32_t w = target[e];
    if (t.parent_[w] != kNone) return;
    t.parent_[w] = v;
    t.via_[w] = e;
    t.distance_.set(w, t.distance_[v] + 1);
    t.transient_[w] = transient;
    queue.push_back(w);
  };
  // A thread's stack and locals hold what it is working on now: in the durable phase a Thread
  // is reached but not gone through, so that a constant holding the same objects starts their
  // path; what only threads hold is reached through them afterwards.
  std::vector<bool> thread_class(g.class_count(), false);
  for (uint32_t c = 0; c < g.class_count(); ++c)
    thread_class[c] = g.class_name(ClassId(c)) == "Thread";
  auto is_thread = [&](uint32_t v) {
    return v < g.object_count() && g.class_of(ObjectId(v)).valid() &&
           thread_class[g.class_of(ObjectId(v)).value()];
  };
  std::vector<uint32_t> threads;
  auto search = [&] {
    for (; !queue.empty(); queue.pop_front()) {
      const uint32_t v = queue.front();
      if (!g.retains_from(v) || v == through_not.value()) continue;
      if (!transient && is_thread(v)) {
        threads.push_back(v);
        continue;
      }
      for (uint32_t e = begin[v]; e < begin[v + 1]; ++e) reach(v, e);
    }
  };
  // Durable roots first, then what only threads and the transient roots reach (see the header).
  const uint32_t roots_begin = begin[root];
  const std::span<const RootEdge> roots = g.roots();
  for (bool phase : {false, true}) {
    transient = phase;
    if (phase)
      for (uint32_t v : threads)
        for (uint32_t e = begin[v]; e < begin[v + 1]; ++e) reach(v, e);
    for (size_t i = 0; i < roots.size(); ++i)
      if (is_transient_root(g.string(roots[i].category)) == phase)
        reach(root, roots_begin + static_cast<uint32_t>(i));
    search();
  }
  return t;
}

RetentionPath ShortestPathTree::path_to(const HeapGraph& g, ObjectId o, size_t max_steps,
                                        ObjectId from) const {
  if (!reachable(o) || o == g.virtual_root()) return {};
  std::vector<uint32_t> chain;
  for (uint32_t v = o.value(); v != g.virtual_root().value(); v = parent_[v]) {
    chain.push_back(v);
    if (v == from.value()) break;
  }
  std::reverse(chain.begin(), chain.end());
  RetentionPath p = make_path(g, via_[chain.front()], chain, max_steps,
                              [&](size_t i) { return reference_label(g, via_[chain[i]]); });
  if (chain.front() == from.value()) p.root = p.root_name = StringId::none();
  return p;
}

std::vector<RetentionPath> holder_paths(const HeapGraph& g, const Referrers& referrers,
                                        ObjectId target, size_t max_paths, size_t max_steps) {
  const ShortestPathTree tree = ShortestPathTree::compute(g, target);
  if (!tree.reachable(target)) return {};
  struct Holder {
    bool transient;
    uint32_t distance, source, edge;
  };
  std::vector<Holder> holders;
  IdRange<ObjectId> sources = referrers.of(target);
  std::span<const uint32_t> edges = referrers.edges_of(target);
  for (size_t i = 0; i < sources.size(); ++i) {
    const uint32_t s = sources[i].value();
    if (s == target.value() || !g.retains_from(s) || !tree.reachable(ObjectId(s))) continue;
    const bool transient = s == g.virtual_root().value()
                               ? is_transient_root(g.string(reference_label(g, edges[i])))
                               : tree.from_transient_root(ObjectId(s));
    holders.push_back({transient, tree.distance(ObjectId(s)), s, edges[i]});
  }
  std::sort(holders.begin(), holders.end(), [](const Holder& a, const Holder& b) {
    if (a.transient != b.transient) return b.transient;
    return a.distance != b.distance ? a.distance < b.distance
           : a.source != b.source   ? a.source < b.source
                                    : a.edge < b.edge;
  });
  holders.erase(std::unique(holders.begin(), holders.end(),
                            [](const Holder& a, const Holder& b) { return a.source == b.source; }),
                holders.end());
  std::vector<RetentionPath> paths;
  for (size_t i = 0; i < holders.size() && paths.size() < max_paths; ++i) {
    const Holder& h = holders[i];
    std::vector<uint32_t> chain;
    for (uint32_t v = h.source; v != g.virtual_root().value(); v = tree.parent(ObjectId(v)).value())
      chain.push_back(v);
    std::reverse(chain.begin(), chain.end());
    chain.push_back(target.value());
    const uint32_t root_edge = chain.size() == 1 ? h.edge : tree.via(ObjectId(chain.front()));
    paths.push_back(make_path(g, root_edge, chain, max_steps, [&](size_t k) {
      return k + 1 == chain.size() ? reference_label(g, h.edge)
                                   : tree.edge_into(g, ObjectId(chain[k]));
    }));
  }
  return paths;
}

std::string_view generalized_edge(std::string_view edge) {
  return edge.starts_with("[") ? "[]" : edge;
}

namespace {

// What makes two steps of a path the same shape: the class (or the class or module itself, for
// a class object) and the generalized reference name.
struct StepShape {
  uint64_t label = 0;
  uint64_t edge = 0;
  bool operator==(const StepShape&) const = default;
};

template <typename Tree>
StepShape step_shape(const HeapGraph& g, const Tree& tree, ObjectId o) {
  StepShape s;
  if (StringId own = g.own_name(o); own.valid())
    s.label = (uint64_t(g.type(o) == ObjectType::kModule ? 2 : 1) << 32) | own.value();
  else
    s.label = g.class_of(o).value();
  const StringId edge = tree.edge_into(g, o);
  s.edge = generalized_edge(g.string(edge)) == "[]" ? UINT64_MAX : edge.value();
  return s;
}

struct ShapeKey {
  uint32_t parent;
  StepShape step;
  bool operator==(const ShapeKey&) const = default;
};

struct ShapeKeyHash {
  size_t operator()(const ShapeKey& k) const noexcept {
    uint64_t h = k.parent * 0x9e3779b97f4a7c15ull;
    h ^= k.step.label + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h ^= k.step.edge + 0x85ebca77c2b2ae63ull + (h << 6) + (h >> 2);
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

// The paths of a tree of objects (parent(o), edge_into(g, o), reachable(o), distance(o), as
// ShortestPathTree has them) merged by shape.
template <typename Tree>
MergedPaths merge_tree(const HeapGraph& g, const Tree& tree, const std::vector<ObjectId>& targets,
                       size_t max_depth) {
  constexpr uint32_t kUnknown = UINT32_MAX;
  MergedPaths out;
  std::vector<uint32_t> shape_of(g.object_count(), kUnknown);
  std::vector<StepShape> node_step;
  std::vector<uint32_t> depth;  // by node: 1 for a root-held shape
  std::unordered_map<ShapeKey, uint32_t, ShapeKeyHash> index;
  std::vector<uint32_t> pending;
  max_depth = std::max<size_t>(max_depth, 1);

  // Each object on a path gets its shape once, top down from the first one already known.
  auto shape = [&](ObjectId target) {
    pending.clear();
    for (ObjectId v = target; v != g.virtual_root() && shape_of[v.value()] == kUnknown;
         v = tree.parent(v))
      pending.push_back(v.value());
    for (size_t i = pending.size(); i-- > 0;) {
      const ObjectId v(pending[i]);
      const ObjectId up = tree.parent(v);
      const uint32_t parent = up == g.virtual_root() ? ShapeNode::kNoParent : shape_of[up.value()];
      const StepShape step = step_shape(g, tree, v);
      if (parent != ShapeNode::kNoParent &&
          (node_step[parent] == step || depth[parent] >= max_depth)) {
        (node_step[parent] == step ? out.nodes[parent].repeats : out.nodes[parent].deeper) = true;
        shape_of[v.value()] = parent;
        continue;
      }
      auto [it, added] =
          index.try_emplace(ShapeKey{parent, step}, static_cast<uint32_t>(out.nodes.size()));
      if (added) {
        ShapeNode node;
        node.parent = parent;
        node.example = v;
        node.edge = tree.edge_into(g, v);
        out.nodes.push_back(node);
        node_step.push_back(step);
        depth.push_back(parent == ShapeNode::kNoParent ? 1 : depth[parent] + 1);
      } else if (ShapeNode& node = out.nodes[it->second];
                 node.one_edge && tree.edge_into(g, v) != tree.edge_into(g, node.example)) {
        node.one_edge = false;
      }
      shape_of[v.value()] = it->second;
    }
    return shape_of[target.value()];
  };

  out.target_node.reserve(targets.size());
  for (ObjectId t : targets) {
    if (!tree.reachable(t)) {
      ++out.unreachable;
      out.target_node.push_back(ShapeNode::kNoParent);
      continue;
    }
    out.target_node.push_back(shape(t));
    ShapeNode& node = out.nodes[out.target_node.back()];
    if (!node.nearest_target.valid() || tree.distance(t) < tree.distance(node.nearest_target))
      node.nearest_target = t;
    ++node.count;
    add_saturating(node.bytes, g.memsize(t));
  }
  // Children come after their parents: one backward pass sums the subtrees.
  for (size_t i = out.nodes.size(); i-- > 0;) {
    ShapeNode& n = out.nodes[i];
    n.total_count += n.count;
    add_saturating(n.total_bytes, n.bytes);
    if (n.parent != ShapeNode::kNoParent) {
      out.nodes[n.parent].total_count += n.total_count;
      add_saturating(out.nodes[n.parent].total_bytes, n.total_bytes);
    }
  }
  for (uint32_t i = 0; i < out.nodes.size(); ++i)
    if (out.nodes[i].count) out.groups.push_back(i);
  std::stable_sort(out.groups.begin(), out.groups.end(),
                   [&](uint32_t a, uint32_t b) { return out.nodes[a].count > out.nodes[b].count; });
  return out;
}

// The dominator tree as a tree of paths: an object's parent is its immediate dominator, and the
// reference into it the dominator's own reference to it, when it has one (a GC root's category
// for an object only the roots hold).
class DominatorPaths {
 public:
  DominatorPaths(const HeapGraph& g, const HeapDominators& dom) : dom_(dom) {
    via_.assign(g.object_count(), kNone);
    const auto begin = g.edge_begin();
    const auto target = g.edge_targets();
    for (uint32_t p = 0; p <= g.object_count(); ++p)
      for (uint32_t e = begin[p]; e < begin[p + 1]; ++e) {
        const ObjectId t(target[e]);
        if (via_[t.value()] == kNone && dom.idom(t).value() == p) via_[t.value()] = e;
      }
  }
  ObjectId parent(ObjectId o) const { return dom_.idom(o); }
  bool reachable(ObjectId o) const { return dom_.reachable(o); }
  uint32_t distance(ObjectId) const { return 0; }
  StringId edge_into(const HeapGraph& g, ObjectId o) const {
    const uint32_t e = via_[o.value()];
    return e == kNone ? StringId::none() : reference_label(g, e);
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  const HeapDominators& dom_;
  std::vector<uint32_t> via_;  // by object: its dominator's reference to it
};

}  // namespace

MergedPaths merge_paths(const HeapGraph& g, const ShortestPathTree& tree,
                        const std::vector<ObjectId>& targets, size_t max_depth) {
  return merge_tree(g, tree, targets, max_depth);
}

MergedPaths merge_dominator_paths(const HeapGraph& g, const HeapDominators& dominators,
                                  size_t max_depth) {
  std::vector<ObjectId> reachable;
  for (uint32_t o = 0; o < g.object_count(); ++o)
    if (dominators.reachable(ObjectId(o))) reachable.push_back(ObjectId(o));
  return merge_tree(g, DominatorPaths(g, dominators), reachable, max_depth);
}

bool is_symbol_table(const HeapGraph& g, ObjectId o) {
  auto hidden_array = [&](ObjectId x) {
    return g.type(x) == ObjectType::kArray && g.class_of(x).valid() &&
           g.class_info(g.class_of(x)).address == 0;
  };
  if (!hidden_array(o)) return false;
  const IdRange<ObjectId> chunks = g.references(o);
  size_t names = 0;
  for (size_t i = 0; i < chunks.size() && i < 2; ++i) {
    if (!hidden_array(chunks[i])) return false;
    const IdRange<ObjectId> members = g.references(chunks[i]);
    for (size_t j = 0; j < members.size() && j < 32; ++j, ++names)
      if (g.type(members[j]) != ObjectType::kString && g.type(members[j]) != ObjectType::kSymbol)
        return false;
  }
  return names >= 8;
}

std::string describe(const HeapGraph& g, ObjectId o) {
  if (StringId own = g.own_name(o); own.valid())
    return (g.type(o) == ObjectType::kModule ? "module " : "class ") + std::string(g.string(own));
  if (is_symbol_table(g, o)) return "symbol table (hidden Array)";
  return std::string(g.class_name(g.class_of(o)));
}

}  // namespace heapq
