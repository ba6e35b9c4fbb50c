#include "heapq/analyze/dominators.h"

#include <algorithm>
#include <bit>
#include <optional>

#include "dominator_tree.h"
#include "heapq/base/saturating_add.h"

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

  RetainedSizes retained = [&] {
    std::vector<uint64_t> sizes(n + 1, 0);  // the virtual root weighs nothing
    for (uint32_t i = 0; i < n; ++i) sizes[i] = g.memsize(ObjectId(i));
    return compute_retained(tree, sizes);
  }();  // the sizes are freed before the tree's arrays move on

  HeapDominators d;
  d.root_ = root;
  DominatorTree::Arrays arrays = std::move(tree).take_arrays();
  d.idom_ = std::move(arrays.idom);
  d.order_ = std::move(arrays.preorder);
  d.retained_bytes_ = std::move(retained.bytes);
  d.retained_count_ = std::move(retained.count);
  for (uint32_t i = 0; i < n; ++i) {
    if (d.idom_[i] != kNoDominator) continue;
    ++d.unreachable_count_;
    add_saturating(d.unreachable_bytes_, g.memsize(ObjectId(i)));
  }
  return d;
}

ObjectId HeapDominators::idom(ObjectId o) const {
  uint32_t d = idom_[o.value()];
  return d == kUnreachable ? ObjectId::none() : ObjectId(d);
}

HeapDominators::Children HeapDominators::unordered_children(ObjectId o) const {
  build_ranges();
  const uint32_t first = pre_[o.value()];
  if (first == UINT32_MAX) return {this, 0, 0};  // unreachable: no children
  return {this, first + 1, end_[o.value()]};
}

std::vector<ObjectId> HeapDominators::children(ObjectId o) const {
  std::vector<ObjectId> out;
  for (ObjectId c : unordered_children(o)) out.push_back(c);
  std::sort(out.begin(), out.end(), [&](ObjectId a, ObjectId b) {
    if (retained_bytes(a) != retained_bytes(b)) return retained_bytes(a) > retained_bytes(b);
    return a < b;
  });
  return out;
}

std::vector<uint64_t> HeapDominators::subtree_sums(std::vector<uint64_t> weight) const {
  build_ranges();
  for (size_t i = order_.size(); i-- > 0;)
    if (order_[i] != root_) weight[idom_[order_[i]]] += weight[order_[i]];
  return weight;
}

// Goes through the dominator tree's depth-first order keeping the path from the root open, and
// for each key how many objects of that key are on the path: an object adds its retained size
// only when none of its dominators has its key. O(nodes).
std::vector<uint64_t> HeapDominators::dominated_by_keys(const HeapGraph& g,
                                                        const std::vector<uint32_t>& keys,
                                                        size_t key_count) const {
  build_ranges();
  std::vector<uint64_t> total(key_count, 0);
  std::vector<uint32_t> open(key_count, 0);
  const uint32_t n = static_cast<uint32_t>(g.object_count());
  auto key_of = [&](uint32_t v) { return v < n ? keys[v] : UINT32_MAX; };
  std::vector<uint32_t> path;
  for (uint32_t pos = 0; pos < order_.size(); ++pos) {
    for (; !path.empty() && end_[path.back()] <= pos; path.pop_back())
      if (uint32_t k = key_of(path.back()); k != UINT32_MAX) --open[k];
    const uint32_t v = order_[pos];
    if (uint32_t k = key_of(v); k != UINT32_MAX && open[k]++ == 0) total[k] += retained_bytes_[v];
    path.push_back(v);
  }
  return total;
}

// A node dominating more than half of a group's members has in its subtree (a range of the
// depth-first order) the group's median member in that order. So the answer lies on the median's
// path from the root, where the members below each node only decrease going down: a binary
// search of the path, kept open as the scan of that order reaches the median, each step
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
  // Depth of the shallowest member of each key on the path from the root (UINT32_MAX: none).
  std::vector<uint32_t> shallowest(key_count, UINT32_MAX);
  std::vector<uint32_t> path;  // open at pos: the root, ..., the node at pos
  for (uint32_t pos = 0; pos < order_.size(); ++pos) {
    for (; !path.empty() && end_[path.back()] <= pos; path.pop_back())
      if (uint32_t k = key_of(path.back()); k != UINT32_MAX && shallowest[k] == path.size() - 1)
        shallowest[k] = UINT32_MAX;
    const uint32_t v = order_[pos];
    path.push_back(v);
    const uint32_t k = key_of(v);
    if (k == UINT32_MAX) continue;
    const uint32_t depth = static_cast<uint32_t>(path.size() - 1);
    if (shallowest[k] == UINT32_MAX) shallowest[k] = depth;
    if (positions[begin[k] + (members(k) - 1) / 2] != pos) continue;  // not the median
    // The deepest node of the path holding a majority (the root holds every member).
    uint32_t lo = 0, hi = depth;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo + 1) / 2;
      if (members_under(k, path[mid]) * 2 > members(k))
        lo = mid;
      else
        hi = mid - 1;
    }
    // No deeper than above the first member on the way down.
    const uint32_t at = std::min(lo, shallowest[k] - 1);
    out[k] = {ObjectId(path[at]), members_under(k, path[at])};
  }
  return out;
}

// The dominator tree's depth-first order, made from the tree's own order of the reachable nodes
// (order_ as compute() left it: each after its dominator), in place, without a list of
// children: subtree sizes summed bottom up (that order reversed), then, top down, each node
// placed where its parent's next child goes, past the subtrees of its earlier siblings (its
// children in the order the tree listed them). Until the end of that pass, end_ of a node not yet
// placed is its subtree's size, and of one placed where its next child goes: once its last child
// is placed, the end of its subtree.
void HeapDominators::build_ranges() const {
  std::call_once(*ranges_once_, [this] {
    end_.assign(idom_.size(), 0);
    for (size_t i = order_.size(); i-- > 0;) {
      const uint32_t v = order_[i];
      ++end_[v];
      if (v != root_) end_[idom_[v]] += end_[v];
    }
    pre_.assign(idom_.size(), UINT32_MAX);
    for (uint32_t v : order_) {  // the root first
      uint32_t at = 0;
      if (v != root_) {
        at = end_[idom_[v]];
        end_[idom_[v]] += end_[v];
      }
      pre_[v] = at;
      end_[v] = at + 1;
    }
    for (uint32_t v = 0; v < pre_.size(); ++v)
      if (pre_[v] != UINT32_MAX) order_[pre_[v]] = v;
  });
}

// The retained bytes of one group, when the group reaches little. Whatever the group frees lies
// in the dominator subtree of the members' lowest common dominator L (a path from the roots that
// avoids L avoids every member), and every path into that subtree enters through L and stays
// inside it. Of what the members reach within that subtree (C), a node is retained unless a
// path from the roots reaches it without passing a member, entering C through a reference from
// outside the members and C (a node's references in all, in_degree, against those from the
// members and C) and going on inside C. A leak's group reaches little beside itself and sits in
// a big container: this is the way for it. A class reaches its class, and through it most of
// the heap: the walk stops when C grows past half the subtree (or past a 64th of the heap, about
// a group's share of a shared walk) and returns nothing, and retained_by_walk settles the group
// with others.
std::optional<uint64_t> HeapDominators::retained_by_set(const HeapGraph& g,
                                                        std::span<const uint32_t> members,
                                                        const std::vector<uint32_t>& in_degree,
                                                        std::vector<uint32_t>& mark) const {
  if (members.empty()) return 0;
  // mark[v]: 0, kMember, or kReached + v's index in reached (C); all 0 again on return.
  constexpr uint32_t kMember = 1, kReached = 2;
  uint32_t lca = members[0];
  auto inside = [&](uint32_t top, uint32_t v) {
    return pre_[top] <= pre_[v] && pre_[v] < end_[top];
  };
  for (uint32_t m : members) {
    mark[m] = kMember;
    while (!inside(lca, m)) lca = idom_[lca];  // climbs at most the tree's depth in all
  }
  std::vector<uint32_t> reached;      // C
  std::vector<uint32_t> from_inside;  // per node of C: its references from the members and C
  auto unmark = [&] {
    for (uint32_t m : members) mark[m] = 0;
    for (uint32_t v : reached) mark[v] = 0;
  };
  if (mark[lca] == kMember) {
    unmark();
    return retained_bytes_[lca];
  }
  // Past half the subtree, or past what a share of the walk of 64 groups costs, give up.
  const size_t budget =
      std::min<size_t>((end_[lca] - pre_[lca]) / 2, members.size() + idom_.size() / 64);
  auto follow = [&](uint32_t v) {
    if (!g.retains_from(v)) return;
    for (ObjectId t : g.references(ObjectId(v))) {
      const uint32_t w = t.value();
      if (mark[w] == kMember || !inside(lca, w)) continue;
      if (mark[w] == 0) {
        mark[w] = kReached + static_cast<uint32_t>(reached.size());
        reached.push_back(w);
        from_inside.push_back(0);
      }
      ++from_inside[mark[w] - kReached];
    }
  };
  for (size_t i = 0; i < members.size() && reached.size() <= budget; ++i) follow(members[i]);
  for (size_t i = 0; i < reached.size() && reached.size() <= budget; ++i) follow(reached[i]);
  std::optional<uint64_t> freed;
  if (reached.size() <= budget) {
    // What a path from outside enters (by index in C), and all it reaches in C from there.
    std::vector<bool> entered(reached.size(), false);
    std::vector<uint32_t> queue;
    for (uint32_t i = 0; i < reached.size(); ++i)
      if (in_degree[reached[i]] > from_inside[i]) {
        entered[i] = true;
        queue.push_back(i);
      }
    for (size_t head = 0; head < queue.size(); ++head) {
      const uint32_t v = reached[queue[head]];
      if (!g.retains_from(v)) continue;
      for (ObjectId t : g.references(ObjectId(v)))
        if (const uint32_t m = mark[t.value()]; m >= kReached && !entered[m - kReached]) {
          entered[m - kReached] = true;
          queue.push_back(m - kReached);
        }
    }
    uint64_t bytes = 0;
    for (uint32_t m : members) add_saturating(bytes, g.memsize(ObjectId(m)));
    for (uint32_t i = 0; i < reached.size(); ++i)
      if (!entered[i]) add_saturating(bytes, g.memsize(ObjectId(reached[i])));
    freed = bytes;
  }
  unmark();
  return freed;
}

// The retained bytes of up to 64 groups at once, each a bit: one walk from the roots carries,
// per node, the groups it is reachable without passing through (a node never passes on its own
// group's bit), re-visiting a node whenever it gains a bit. What a group's bit never reaches, of
// what the roots reach, the group retains. A node gains each bit once: O(64 (V + E)) at worst,
// about one walk of the heap in practice, where each group alone walked its subtree.
// groups are slots; an object's slot is slot[keys[o]]; freed is by slot.
void HeapDominators::retained_by_walk(const HeapGraph& g, std::span<const uint32_t> groups,
                                      const std::vector<uint32_t>& keys,
                                      const std::vector<uint32_t>& slot,
                                      std::vector<uint64_t>& freed) const {
  const size_t nodes = idom_.size();
  const uint64_t all = groups.size() >= 64 ? ~uint64_t{0} : (uint64_t{1} << groups.size()) - 1;
  std::vector<uint8_t> lane_of(freed.size(), UINT8_MAX);  // by slot
  for (size_t l = 0; l < groups.size(); ++l) lane_of[groups[l]] = static_cast<uint8_t>(l);
  auto own_bit = [&](uint32_t v) -> uint64_t {
    const uint32_t k = v < keys.size() ? keys[v] : UINT32_MAX;
    const uint32_t s = k == UINT32_MAX ? UINT32_MAX : slot[k];
    return s == UINT32_MAX || lane_of[s] == UINT8_MAX ? 0 : uint64_t{1} << lane_of[s];
  };
  std::vector<uint64_t> bits(nodes, 0);
  std::vector<uint8_t> queued(nodes, 0);
  std::vector<uint32_t> ring(nodes);  // FIFO, a node in it at most once
  size_t head = 0, count = 0;
  bits[root_] = all;
  ring[0] = root_;
  queued[root_] = 1;
  count = 1;
  while (count > 0) {
    const uint32_t v = ring[head];
    head = head + 1 == nodes ? 0 : head + 1;
    --count;
    queued[v] = 0;
    if (!g.retains_from(v)) continue;
    const uint64_t carried = bits[v];
    for (ObjectId t : g.references(ObjectId(v))) {
      const uint32_t w = t.value();
      const uint64_t gained = carried & ~own_bit(w) & ~bits[w];
      if (gained == 0) continue;
      bits[w] |= gained;
      if (!queued[w]) {
        queued[w] = 1;
        size_t tail = head + count;
        ring[tail >= nodes ? tail - nodes : tail] = w;
        ++count;
      }
    }
  }
  const uint32_t n = static_cast<uint32_t>(g.object_count());
  for (uint32_t v : order_) {
    if (v >= n) continue;
    for (uint64_t missing = all & ~bits[v]; missing != 0; missing &= missing - 1)
      add_saturating(freed[groups[std::countr_zero(missing)]], g.memsize(ObjectId(v)));
  }
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
    const uint32_t k = o < keys.size() ? keys[o] : UINT32_MAX;
    return k == UINT32_MAX || pre_[o] == UINT32_MAX ? UINT32_MAX : slot[k];
  };
  for (uint32_t o = 0; o < keys.size(); ++o)
    if (uint32_t s = slot_of(o); s != UINT32_MAX) ++begin[s + 1];
  for (size_t i = 0; i < wanted.size(); ++i) begin[i + 1] += begin[i];
  std::vector<uint32_t> members(begin.back()), fill(begin.begin(), begin.end() - 1);
  for (uint32_t o = 0; o < keys.size(); ++o)
    if (uint32_t s = slot_of(o); s != UINT32_MAX) members[fill[s]++] = o;
  // References into each node from the nodes the roots reach, the roots' own included.
  std::vector<uint32_t> in_degree(idom_.size(), 0);
  for (uint32_t v : order_)
    if (g.retains_from(v))
      for (ObjectId t : g.references(ObjectId(v)))
        if (pre_[t.value()] != UINT32_MAX) ++in_degree[t.value()];
  std::vector<uint64_t> by_slot(wanted.size(), 0);
  std::vector<uint32_t> walked;  // slots the local walk could not settle
  std::vector<uint32_t> mark(idom_.size(), 0);
  for (uint32_t i = 0; i < wanted.size(); ++i) {
    std::optional<uint64_t> freed = retained_by_set(
        g, std::span(members).subspan(begin[i], begin[i + 1] - begin[i]), in_degree, mark);
    if (freed) {
      by_slot[i] = *freed;
    } else {
      walked.push_back(i);
    }
  }
  std::vector<uint32_t>().swap(in_degree);
  std::vector<uint32_t>().swap(mark);
  for (size_t first = 0; first < walked.size(); first += 64)
    retained_by_walk(g,
                     std::span(walked).subspan(first, std::min<size_t>(64, walked.size() - first)),
                     keys, slot, by_slot);
  std::vector<uint64_t> total(key_count, 0);
  for (size_t i = 0; i < wanted.size(); ++i) total[wanted[i]] = by_slot[i];
  return total;
}

}  // namespace heapq
