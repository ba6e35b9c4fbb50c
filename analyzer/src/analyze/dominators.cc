#include "heapq/dominators.h"

#include <algorithm>

#include "analyze/dominator_tree.h"
#include "heapq/saturating_add.h"

namespace heapq {

namespace {

// The graph's CSR without the references of weak holders (a copy only when there are any).
struct RetainingEdges {
  std::vector<uint32_t> begin, target;
};

RetainingEdges without_weak_edges(const HeapGraph& g) {
  RetainingEdges e;
  const auto begin = g.edge_begin();
  const auto target = g.edge_targets();
  e.begin.reserve(begin.size());
  e.target.reserve(target.size());
  e.begin.push_back(0);
  for (uint32_t v = 0; v + 1 < begin.size(); ++v) {
    if (v >= g.object_count() || !g.holds_weakly(ObjectId(v)))
      e.target.insert(e.target.end(), target.begin() + begin[v], target.begin() + begin[v + 1]);
    e.begin.push_back(static_cast<uint32_t>(e.target.size()));
  }
  return e;
}

}  // namespace

HeapDominators HeapDominators::compute(const HeapGraph& g) {
  static_assert(kUnreachable == kNoDominator, "idoms are kept as the tree gives them");
  const uint32_t n = static_cast<uint32_t>(g.object_count());
  const uint32_t root = g.virtual_root().value();
  DominatorTree tree = [&] {
    if (!g.has_weak_holders())
      return DominatorTree::compute(n + 1, g.edge_begin(), g.edge_targets(), root);
    RetainingEdges e = without_weak_edges(g);
    return DominatorTree::compute(n + 1, e.begin, e.target, root);
  }();

  std::vector<uint64_t> sizes(n + 1, 0);  // the virtual root weighs nothing
  for (uint32_t i = 0; i < n; ++i) sizes[i] = g.memsize(ObjectId(i));
  RetainedSizes retained = compute_retained(tree, sizes);

  HeapDominators d;
  d.root_ = root;
  d.idom_.assign(tree.idoms().begin(), tree.idoms().end());
  d.preorder_.assign(tree.preorder().begin(), tree.preorder().end());
  d.retained_bytes_ = std::move(retained.bytes);
  d.retained_count_ = std::move(retained.count);
  for (uint32_t i = 0; i < n; ++i) {
    if (d.idom_[i] != kNoDominator) continue;
    ++d.unreachable_count_;
    add_saturating(d.unreachable_bytes_, sizes[i]);
  }
  return d;
}

ObjectId HeapDominators::idom(ObjectId o) const {
  uint32_t d = idom_[o.value()];
  return d == kUnreachable ? ObjectId::none() : ObjectId(d);
}

// Dominator-tree children as CSR, by counting sort on idom; built the first time it is asked.
void HeapDominators::build_children() const {
  if (!child_begin_.empty()) return;
  const size_t nodes = idom_.size();
  child_begin_.assign(nodes + 1, 0);
  for (uint32_t v : preorder_)
    if (v != root_) ++child_begin_[idom_[v] + 1];
  for (size_t i = 0; i < nodes; ++i) child_begin_[i + 1] += child_begin_[i];
  child_.assign(child_begin_[nodes], 0);
  std::vector<uint32_t> fill(child_begin_.begin(), child_begin_.end() - 1);
  for (uint32_t v : preorder_)
    if (v != root_) child_[fill[idom_[v]]++] = v;
}

std::vector<ObjectId> HeapDominators::children(ObjectId o) const {
  IdRange<ObjectId> kids = unordered_children(o);
  std::vector<ObjectId> out(kids.begin(), kids.end());
  std::sort(out.begin(), out.end(), [&](ObjectId a, ObjectId b) {
    if (retained_bytes(a) != retained_bytes(b)) return retained_bytes(a) > retained_bytes(b);
    return a < b;
  });
  return out;
}

std::vector<uint64_t> HeapDominators::subtree_sums(std::vector<uint64_t> weight) const {
  for (size_t i = preorder_.size(); i-- > 0;)
    if (preorder_[i] != root_) weight[idom_[preorder_[i]]] += weight[preorder_[i]];
  return weight;
}

// Walks the dominator tree depth first with an explicit stack, keeping for each key how many
// objects of that key are open on the current path: an object adds its retained size only
// when none of its dominators has its key. O(nodes), no recursion.
std::vector<uint64_t> HeapDominators::dominated_by_keys(const HeapGraph& g,
                                                        const std::vector<uint32_t>& keys,
                                                        size_t key_count) const {
  build_children();
  std::vector<uint64_t> total(key_count, 0);
  std::vector<uint32_t> open(key_count, 0);
  const uint32_t n = static_cast<uint32_t>(g.object_count());
  struct Frame {
    uint32_t node, next_child;
  };
  std::vector<Frame> stack{{root_, child_begin_[root_]}};
  auto key_of = [&](uint32_t v) { return v < n ? keys[v] : UINT32_MAX; };
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next_child == child_begin_[f.node + 1]) {
      if (uint32_t k = key_of(f.node); k != UINT32_MAX) --open[k];
      stack.pop_back();
      continue;
    }
    uint32_t child = child_[f.next_child++];
    if (uint32_t k = key_of(child); k != UINT32_MAX) {
      if (open[k]++ == 0) total[k] += retained_bytes_[child];
    }
    stack.push_back({child, child_begin_[child]});
  }
  return total;
}

// A node dominating more than half of a group's members has in its subtree (a range of the
// depth-first order) the group's median member in that order. So the answer lies on the median's
// path from the root, where the members below each node only decrease going down: a binary
// search of the path, open on the walk's stack when the walk reaches the median, each step
// counting the members in a subtree by two binary searches of the group's sorted positions.
std::vector<HeapDominators::Majority> HeapDominators::majority_dominators_keys(
    const HeapGraph& g, const std::vector<uint32_t>& keys, size_t key_count) const {
  build_ranges();
  const uint32_t n = static_cast<uint32_t>(g.object_count());
  auto key_of = [&](uint32_t v) { return v < n ? keys[v] : UINT32_MAX; };
  // The reachable members of each key by their depth-first positions, ascending (CSR by key).
  std::vector<uint32_t> begin(key_count + 1, 0);
  for (uint32_t v : order_)
    if (uint32_t k = key_of(v); k != UINT32_MAX) ++begin[k + 1];
  for (size_t k = 0; k < key_count; ++k) begin[k + 1] += begin[k];
  std::vector<uint32_t> positions(begin.back()), fill(begin.begin(), begin.end() - 1);
  for (uint32_t pos = 0; pos < order_.size(); ++pos)
    if (uint32_t k = key_of(order_[pos]); k != UINT32_MAX) positions[fill[k]++] = pos;
  auto members = [&](uint32_t k) { return uint64_t(begin[k + 1] - begin[k]); };
  auto members_under = [&](uint32_t k, uint32_t node) {
    const auto first = positions.begin() + begin[k], last = positions.begin() + begin[k + 1];
    return uint64_t(std::lower_bound(first, last, end_[node]) -
                    std::lower_bound(first, last, pre_[node]));
  };

  std::vector<Majority> out(key_count);
  for (uint32_t k = 0; k < key_count; ++k) out[k] = {ObjectId(root_), members(k)};
  // Depth of the shallowest member of each key on the current path (UINT32_MAX: none).
  std::vector<uint32_t> shallowest(key_count, UINT32_MAX);
  struct Frame {
    uint32_t node, next_child;
  };
  std::vector<Frame> stack{{root_, child_begin_[root_]}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next_child == child_begin_[f.node + 1]) {
      if (uint32_t k = key_of(f.node); k != UINT32_MAX && shallowest[k] == stack.size() - 1)
        shallowest[k] = UINT32_MAX;
      stack.pop_back();
      continue;
    }
    const uint32_t child = child_[f.next_child++];
    stack.push_back({child, child_begin_[child]});
    const uint32_t k = key_of(child);
    if (k == UINT32_MAX) continue;
    const uint32_t depth = static_cast<uint32_t>(stack.size() - 1);
    if (shallowest[k] == UINT32_MAX) shallowest[k] = depth;
    if (positions[begin[k] + (members(k) - 1) / 2] != pre_[child]) continue;  // not the median
    // The deepest node of the path holding a majority (the root holds every member).
    uint32_t lo = 0, hi = depth;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo + 1) / 2;
      if (members_under(k, stack[mid].node) * 2 > members(k))
        lo = mid;
      else
        hi = mid - 1;
    }
    // No deeper than above the first member on the way down.
    const uint32_t at = std::min(lo, shallowest[k] - 1);
    out[k] = {ObjectId(stack[at].node), members_under(k, stack[at].node)};
  }
  return out;
}

// The dominator tree's depth-first order, with an explicit stack.
void HeapDominators::build_ranges() const {
  if (!pre_.empty()) return;
  build_children();
  const size_t nodes = idom_.size();
  pre_.assign(nodes, UINT32_MAX);
  end_.assign(nodes, 0);
  order_.clear();
  order_.reserve(preorder_.size());
  struct Frame {
    uint32_t node, next_child;
  };
  std::vector<Frame> stack{{root_, child_begin_[root_]}};
  pre_[root_] = 0;
  order_.push_back(root_);
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next_child == child_begin_[f.node + 1]) {
      end_[f.node] = static_cast<uint32_t>(order_.size());
      stack.pop_back();
      continue;
    }
    uint32_t child = child_[f.next_child++];
    pre_[child] = static_cast<uint32_t>(order_.size());
    order_.push_back(child);
    stack.push_back({child, child_begin_[child]});
  }
  mark_.assign(nodes, 0);
}

// The retained bytes of one group. Whatever the group frees lies in the dominator subtree of
// the members' lowest common dominator L (a path from the roots that avoids L avoids every
// member), and every path into that subtree enters through L and stays inside it. So: walk
// from L within its subtree without passing through a member; what the walk misses is freed.
// Two ways, the cheaper for the set. The subtree of the members' common dominator holds all they
// retain: what a walk from it that never passes a member cannot reach. Or from the members'
// side: of what the members reach within that subtree (C), a node is retained unless a path
// from the roots reaches it without passing a member, entering C through a reference from
// outside the members and C (a node's references in all, in_degree, against those from the
// members and C) and going on inside C. A leak's group reaches little beside itself and sits
// in a big container; a class reaches its class, and through it most of the heap: the walk
// from the members stops when C grows past half the subtree, and the other way is taken.
uint64_t HeapDominators::retained_by_set(const HeapGraph& g, std::span<const uint32_t> members,
                                         const std::vector<uint32_t>& in_degree,
                                         std::vector<uint32_t>& from_inside) const {
  if (members.empty()) return 0;
  epoch_ += 4;
  const uint32_t member = epoch_, closure = epoch_ + 1, entered = epoch_ + 2, visited = epoch_ + 3;
  uint32_t lca = members[0];
  auto inside = [&](uint32_t top, uint32_t v) {
    return pre_[top] <= pre_[v] && pre_[v] < end_[top];
  };
  for (uint32_t m : members) {
    mark_[m] = member;
    while (!inside(lca, m)) lca = idom_[lca];  // climbs at most the tree's depth in all
  }
  if (mark_[lca] == member) return retained_bytes_[lca];

  std::vector<uint32_t> reached;  // C
  const size_t budget = (end_[lca] - pre_[lca]) / 2;
  auto follow = [&](uint32_t v) {
    if (!g.retains_from(v)) return;
    for (ObjectId t : g.references(ObjectId(v))) {
      const uint32_t w = t.value();
      if (mark_[w] == member || !inside(lca, w)) continue;
      ++from_inside[w];
      if (mark_[w] != closure) {
        mark_[w] = closure;
        reached.push_back(w);
      }
    }
  };
  for (size_t i = 0; i < members.size() && reached.size() <= budget; ++i) follow(members[i]);
  for (size_t i = 0; i < reached.size() && reached.size() <= budget; ++i) follow(reached[i]);
  uint64_t freed = 0;
  if (reached.size() <= budget) {
    std::vector<uint32_t> queue;
    for (uint32_t v : reached)
      if (in_degree[v] > from_inside[v]) {
        mark_[v] = entered;
        queue.push_back(v);
      }
    for (size_t head = 0; head < queue.size(); ++head) {
      const uint32_t v = queue[head];
      if (!g.retains_from(v)) continue;
      for (ObjectId t : g.references(ObjectId(v)))
        if (mark_[t.value()] == closure) {
          mark_[t.value()] = entered;
          queue.push_back(t.value());
        }
    }
    for (uint32_t m : members) add_saturating(freed, g.memsize(ObjectId(m)));
    for (uint32_t v : reached)
      if (mark_[v] == closure) add_saturating(freed, g.memsize(ObjectId(v)));
  } else {
    const uint32_t n = static_cast<uint32_t>(g.object_count());
    std::vector<uint32_t> queue{lca};
    mark_[lca] = visited;
    for (size_t head = 0; head < queue.size(); ++head) {
      const uint32_t v = queue[head];
      if (!g.retains_from(v)) continue;
      for (ObjectId t : g.references(ObjectId(v))) {
        const uint32_t w = t.value();
        if (mark_[w] == member || mark_[w] == visited || !inside(lca, w)) continue;
        mark_[w] = visited;
        queue.push_back(w);
      }
    }
    for (uint32_t pos = pre_[lca]; pos < end_[lca]; ++pos) {
      const uint32_t v = order_[pos];
      if (mark_[v] != visited && v < n) add_saturating(freed, g.memsize(ObjectId(v)));
    }
  }
  for (uint32_t v : reached) from_inside[v] = 0;
  return freed;
}

std::vector<uint64_t> HeapDominators::retained_by_keys(const HeapGraph& g,
                                                       const std::vector<uint32_t>& keys,
                                                       size_t key_count,
                                                       std::span<const uint32_t> wanted) const {
  build_ranges();
  std::vector<uint32_t> all;
  if (wanted.empty()) {
    for (uint32_t k = 0; k < key_count; ++k) all.push_back(k);
    wanted = all;
  }
  // Members of each wanted group that the roots reach, bucketed in one pass (CSR by slot).
  std::vector<uint32_t> slot(key_count, UINT32_MAX);
  for (size_t i = 0; i < wanted.size(); ++i) slot[wanted[i]] = static_cast<uint32_t>(i);
  std::vector<uint32_t> begin(wanted.size() + 1, 0);
  auto slot_of = [&](uint32_t o) {
    const uint32_t k = keys[o];
    return k == UINT32_MAX || pre_[o] == UINT32_MAX ? UINT32_MAX : slot[k];
  };
  for (uint32_t o = 0; o < keys.size(); ++o)
    if (uint32_t s = slot_of(o); s != UINT32_MAX) ++begin[s + 1];
  for (size_t i = 0; i < wanted.size(); ++i) begin[i + 1] += begin[i];
  std::vector<uint32_t> members(begin.back()), fill(begin.begin(), begin.end() - 1);
  for (uint32_t o = 0; o < keys.size(); ++o)
    if (uint32_t s = slot_of(o); s != UINT32_MAX) members[fill[s]++] = o;
  // References into each node from the nodes the roots reach, the roots' own included.
  std::vector<uint32_t> in_degree(idom_.size(), 0), from_inside(idom_.size(), 0);
  for (uint32_t v : order_)
    if (g.retains_from(v))
      for (ObjectId t : g.references(ObjectId(v)))
        if (pre_[t.value()] != UINT32_MAX) ++in_degree[t.value()];
  std::vector<uint64_t> total(key_count, 0);
  for (size_t i = 0; i < wanted.size(); ++i)
    total[wanted[i]] = retained_by_set(
        g, std::span(members).subspan(begin[i], begin[i + 1] - begin[i]), in_degree, from_inside);
  return total;
}

}  // namespace heapq
