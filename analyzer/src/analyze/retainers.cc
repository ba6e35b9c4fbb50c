#include "heapq/retainers.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace heapq {

namespace {

bool retains(const HeapGraph& g, uint32_t from) {
  return from >= g.object_count() || !g.holds_weakly(ObjectId(from));
}

StringId root_category(const HeapGraph& g, ObjectId o) {
  for (const RootEdge& r : g.roots())
    if (r.target == o) return r.category;
  return StringId::none();
}

// A path from its objects in order, root-held first: adds the root and the edge names.
RetentionPath make_path(const HeapGraph& g, const std::vector<ObjectId>& chain) {
  RetentionPath p;
  p.root = root_category(g, chain.front());
  for (size_t i = 0; i < chain.size(); ++i)
    p.steps.push_back({chain[i], i == 0 ? StringId::none() : edge_name(g, chain[i - 1], chain[i])});
  return p;
}

}  // namespace

Referrers Referrers::build(const HeapGraph& g) {
  Referrers r;
  const auto begin = g.edge_begin();
  const auto target = g.edge_targets();
  const size_t nodes = begin.size() - 1;
  r.begin_.assign(nodes + 1, 0);
  for (uint32_t t : target) ++r.begin_[t + 1];
  for (size_t i = 0; i < nodes; ++i) r.begin_[i + 1] += r.begin_[i];
  r.source_.resize(target.size());
  std::vector<uint32_t> fill(r.begin_.begin(), r.begin_.end() - 1);
  for (uint32_t v = 0; v < nodes; ++v)
    for (uint32_t e = begin[v]; e < begin[v + 1]; ++e) r.source_[fill[target[e]]++] = v;
  return r;
}

std::vector<RetentionPath> shortest_paths(const HeapGraph& g, const Referrers& referrers, ObjectId target,
                                          size_t max_paths, size_t max_depth) {
  const uint32_t root = g.virtual_root().value();
  constexpr uint32_t kUnseen = UINT32_MAX;
  std::vector<uint32_t> next(g.object_count() + 1, kUnseen);  // next hop toward the target
  std::vector<uint32_t> queue{target.value()};
  next[target.value()] = target.value();
  std::vector<RetentionPath> paths;
  size_t depth_end = 1, depth = 1;
  for (size_t head = 0; head < queue.size() && paths.size() < max_paths; ++head) {
    if (head == depth_end) {
      if (++depth > max_depth) break;
      depth_end = queue.size();
    }
    const uint32_t v = queue[head];
    bool held_by_root = false;
    for (ObjectId from : referrers.of(ObjectId(v))) {
      if (from.value() == root) {
        held_by_root = true;
      } else if (next[from.value()] == kUnseen && retains(g, from.value())) {
        next[from.value()] = v;
        queue.push_back(from.value());
      }
    }
    if (!held_by_root) continue;
    // v is held by a root: the path runs v -> next[v] -> ... -> target.
    std::vector<ObjectId> chain{ObjectId(v)};
    for (uint32_t u = v; u != target.value(); u = next[u]) chain.push_back(ObjectId(next[u]));
    paths.push_back(make_path(g, chain));
  }
  return paths;
}

ShortestPathTree ShortestPathTree::compute(const HeapGraph& g) {
  ShortestPathTree t;
  const uint32_t root = g.virtual_root().value();
  t.parent_.assign(g.object_count() + 1, kNone);
  t.distance_.assign(g.object_count() + 1, kNone);
  t.parent_[root] = root;
  t.distance_[root] = 0;
  std::vector<uint32_t> queue{root};
  const auto begin = g.edge_begin();
  const auto target = g.edge_targets();
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t v = queue[head];
    if (!retains(g, v)) continue;
    for (uint32_t e = begin[v]; e < begin[v + 1]; ++e) {
      const uint32_t w = target[e];
      if (t.parent_[w] == kNone) {
        t.parent_[w] = v;
        t.distance_[w] = t.distance_[v] + 1;
        queue.push_back(w);
      }
    }
  }
  return t;
}

RetentionPath ShortestPathTree::path_to(const HeapGraph& g, ObjectId o) const {
  if (!reachable(o)) return {};
  std::vector<ObjectId> chain;
  for (uint32_t v = o.value(); v != g.virtual_root().value(); v = parent_[v]) chain.push_back(ObjectId(v));
  std::reverse(chain.begin(), chain.end());
  return make_path(g, chain);
}

std::vector<PathGroup> merge_paths(const HeapGraph& g, const ShortestPathTree& tree,
                                   const std::vector<ObjectId>& targets, uint64_t* unreachable) {
  std::unordered_map<std::string, size_t> index;
  std::vector<PathGroup> groups;
  for (ObjectId o : targets) {
    RetentionPath p = tree.path_to(g, o);
    if (p.steps.empty()) {
      if (unreachable) ++*unreachable;
      continue;
    }
    std::string shape(g.string(p.root));
    for (const PathStep& s : p.steps) {
      std::string_view edge = g.string(s.edge);
      shape += '\x1f' + describe(g, s.object) + '\x1e' + std::string(edge.starts_with("[") ? "[]" : edge);
    }
    auto [it, added] = index.try_emplace(shape, groups.size());
    if (added) groups.push_back({std::move(p), 0, 0});
    ++groups[it->second].count;
    groups[it->second].bytes += g.memsize(o);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const PathGroup& a, const PathGroup& b) { return a.count > b.count; });
  return groups;
}

StringId edge_name(const HeapGraph& g, ObjectId from, ObjectId to) {
  IdRange<ObjectId> refs = g.references(from);
  for (size_t i = 0; i < refs.size(); ++i)
    if (refs[i] == to) return g.reference_name(from, i);
  return StringId::none();
}

std::string describe(const HeapGraph& g, ObjectId o) {
  if (StringId own = g.own_name(o); own.valid())
    return (g.type(o) == ObjectType::kModule ? "module " : "class ") + std::string(g.string(own));
  return std::string(g.class_name(g.class_of(o)));
}

}  // namespace heapq
