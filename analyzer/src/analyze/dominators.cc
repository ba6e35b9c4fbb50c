#include "heapq/dominators.h"

#include <algorithm>

#include "analyze/dominator_tree.h"

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
    d.unreachable_bytes_ += sizes[i];
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
std::vector<uint64_t> HeapDominators::retained_by_keys(const HeapGraph& g, std::vector<uint32_t> keys,
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

}  // namespace heapq
