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
    if (!g.has_weak_holders()) return DominatorTree::compute(n + 1, g.edge_begin(), g.edge_targets(), root);
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
std::vector<uint64_t> HeapDominators::dominated_by_keys(const HeapGraph& g, const std::vector<uint32_t>& keys,
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
uint64_t HeapDominators::retained_by_set(const HeapGraph& g, std::span<const uint32_t> members) const {
  if (members.empty()) return 0;
  epoch_ += 2;
  const uint32_t member = epoch_, visited = epoch_ + 1;
  uint32_t lca = members[0];
  auto inside = [&](uint32_t top, uint32_t v) { return pre_[top] <= pre_[v] && pre_[v] < end_[top]; };
  for (uint32_t m : members) {
    mark_[m] = member;
    while (!inside(lca, m)) lca = idom_[lca];  // climbs at most the tree's depth in all
  }
  if (mark_[lca] == member) return retained_bytes_[lca];
  const uint32_t n = static_cast<uint32_t>(g.object_count());
  std::vector<uint32_t> queue{lca};
  mark_[lca] = visited;
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t v = queue[head];
    if (v < n && g.holds_weakly(ObjectId(v))) continue;
    for (ObjectId t : g.references(ObjectId(v))) {
      const uint32_t w = t.value();
      if (mark_[w] == member || mark_[w] == visited || !inside(lca, w)) continue;
      mark_[w] = visited;
      queue.push_back(w);
    }
  }
  uint64_t freed = 0;
  for (uint32_t pos = pre_[lca]; pos < end_[lca]; ++pos) {
    const uint32_t v = order_[pos];
    if (mark_[v] != visited && v < n) add_saturating(freed, g.memsize(ObjectId(v)));
  }
  return freed;
}

std::vector<uint64_t> HeapDominators::retained_by_keys(const HeapGraph& g, const std::vector<uint32_t>& keys,
                                                       size_t key_count, std::span<const uint32_t> wanted) const {
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
  std::vector<uint64_t> total(key_count, 0);
  for (size_t i = 0; i < wanted.size(); ++i)
    total[wanted[i]] = retained_by_set(g, std::span(members).subspan(begin[i], begin[i + 1] - begin[i]));
  return total;
}

}  // namespace heapq
