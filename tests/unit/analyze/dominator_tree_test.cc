// DominatorTree: hand-built graphs with known dominators, and random graphs checked exactly
// against a brute-force definition (remove v, what becomes unreachable is what v dominates).
#include "dominator_tree.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#if __has_include(<boost/graph/dominator_tree.hpp>)
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dominator_tree.hpp>
#define HEAPQ_HAVE_BOOST_GRAPH 1
#endif

namespace heapq {
namespace {

using Edges = std::vector<std::pair<uint32_t, uint32_t>>;

struct Csr {
  uint32_t n = 0;
  std::vector<uint32_t> begin, target;
};

Csr to_csr(uint32_t n, const Edges& edges) {
  Csr g{n, std::vector<uint32_t>(n + 1, 0), std::vector<uint32_t>(edges.size())};
  for (auto [from, to] : edges) ++g.begin[from + 1];
  for (uint32_t v = 0; v < n; ++v) g.begin[v + 1] += g.begin[v];
  std::vector<uint32_t> fill(g.begin.begin(), g.begin.end() - 1);
  for (auto [from, to] : edges) g.target[fill[from]++] = to;
  return g;
}

DominatorTree dominators(const Csr& g, uint32_t root) {
  return DominatorTree::compute(g.n, g.begin, g.target, root);
}

// Expected idom per node; kNoDominator for unreachable ones, the root maps to itself.
void expect_idoms(const DominatorTree& tree, const std::vector<uint32_t>& expected) {
  ASSERT_EQ(tree.node_count(), expected.size());
  for (uint32_t v = 0; v < expected.size(); ++v) {
    EXPECT_EQ(tree.idom(v), expected[v]) << "node " << v;
  }
}

// preorder(): exactly the reachable nodes, root first, each after its immediate dominator.
void expect_valid_preorder(const DominatorTree& tree) {
  const auto order = tree.preorder();
  ASSERT_FALSE(order.empty());
  EXPECT_EQ(order[0], tree.root());
  std::vector<uint32_t> position(tree.node_count(), kNoDominator);
  for (uint32_t i = 0; i < order.size(); ++i) {
    ASSERT_EQ(position[order[i]], kNoDominator) << "node listed twice: " << order[i];
    position[order[i]] = i;
  }
  for (uint32_t v = 0; v < tree.node_count(); ++v) {
    ASSERT_EQ(tree.reachable(v), position[v] != kNoDominator) << "node " << v;
    if (tree.reachable(v) && v != tree.root()) {
      EXPECT_LT(position[tree.idom(v)], position[v]);
    }
  }
}

// Marks with `stamp` every node reachable from root when `removed` is deleted. Stamps instead
// of a fresh bool vector per call keep the O(N * (N + E)) checker fast even at -O0.
class ReachabilityProbe {
 public:
  explicit ReachabilityProbe(const Csr& g) : g_(g), mark_(g.n, 0) { queue_.reserve(g.n); }

  // Returns the marks: mark[w] == stamp iff w is reachable without `removed`.
  const std::vector<uint32_t>& run(uint32_t root, uint32_t removed, uint32_t stamp) {
    queue_.clear();
    if (root != removed) {
      queue_.push_back(root);
      mark_[root] = stamp;
    }
    for (size_t head = 0; head < queue_.size(); ++head) {
      const uint32_t v = queue_[head];
      for (uint32_t e = g_.begin[v]; e < g_.begin[v + 1]; ++e) {
        const uint32_t t = g_.target[e];
        if (t != removed && mark_[t] != stamp) {
          mark_[t] = stamp;
          queue_.push_back(t);
        }
      }
    }
    return mark_;
  }
  // The nodes reached by the last run.
  const std::vector<uint32_t>& reached() const { return queue_; }

 private:
  const Csr& g_;
  std::vector<uint32_t> mark_;
  std::vector<uint32_t> queue_;
};

struct BruteForce {
  std::vector<uint32_t> idom;
  RetainedSizes retained;
};

// By definition: v dominates w iff w is reachable and removing v makes w unreachable. The idom
// of w is its strict dominator that has the most strict dominators itself (the deepest one).
BruteForce brute_force(const Csr& g, uint32_t root, const std::vector<uint64_t>& size) {
  ReachabilityProbe probe(g);
  probe.run(root, g.n, 1);  // g.n removes nothing
  const std::vector<uint32_t> live = probe.reached();
  std::vector<std::vector<uint32_t>> dominated_by(g.n);  // strict dominators of w
  BruteForce result{std::vector<uint32_t>(g.n, kNoDominator),
                    {std::vector<uint64_t>(g.n, 0), std::vector<uint32_t>(g.n, 0)}};
  for (uint32_t v : live) {
    const std::vector<uint32_t>& mark = probe.run(root, v, v + 2);
    for (uint32_t w : live) {
      if (mark[w] == v + 2) continue;
      result.retained.bytes[v] += size[w];
      result.retained.count[v] += 1;
      if (w != v) dominated_by[w].push_back(v);
    }
  }
  for (uint32_t w : live) {
    result.idom[w] = w;  // the root keeps itself
    for (uint32_t d : dominated_by[w]) {
      if (result.idom[w] == w || dominated_by[d].size() > dominated_by[result.idom[w]].size()) {
        result.idom[w] = d;
      }
    }
  }
  return result;
}

// Deterministic across standard libraries: no std::uniform_int_distribution.
struct Rng {
  std::mt19937_64 engine;
  uint32_t below(uint32_t bound) { return static_cast<uint32_t>(engine() % bound); }
};

// Mostly "each object is referenced by a recent older one", plus random cross edges (cycles,
// back edges to the root, self-loops), and a fraction of nodes nothing references.
Edges random_edges(uint32_t n, uint32_t extra_edges, uint64_t seed) {
  Rng rng{std::mt19937_64(seed)};
  Edges edges;
  for (uint32_t v = 1; v < n; ++v) {
    if (rng.below(100) < 4) continue;  // garbage, unless a cross edge reaches it
    const uint32_t window = std::min<uint32_t>(v, 1 + rng.below(64));
    edges.emplace_back(v - 1 - rng.below(window), v);
  }
  for (uint32_t i = 0; i < extra_edges; ++i) edges.emplace_back(rng.below(n), rng.below(n));
  return edges;
}

Csr random_graph(uint32_t n, uint32_t extra_edges, uint64_t seed) {
  return to_csr(n, random_edges(n, extra_edges, seed));
}

// Nodes first..first+2k+1: a list of k nodes whose tail holds k leaves that an array node also
// holds, both reached from `from`. The DFS walks the list first (its edge comes first), so each
// leaf's DFS parent is deep and its semidominator shallow: climbing the dominator tree from
// parent to semidominator costs k steps per leaf, k^2 in all.
void add_quadratic_climb_gadget(Edges& edges, uint32_t from, uint32_t first, uint32_t k) {
  const uint32_t array = first + k, leaf = first + k + 1;
  edges.emplace_back(from, first);
  for (uint32_t i = 0; i + 1 < k; ++i) edges.emplace_back(first + i, first + i + 1);
  for (uint32_t i = 0; i < k; ++i) edges.emplace_back(first + k - 1, leaf + i);
  edges.emplace_back(from, array);
  for (uint32_t i = 0; i < k; ++i) edges.emplace_back(array, leaf + i);
}

std::vector<uint64_t> random_sizes(uint32_t n, uint64_t seed) {
  Rng rng{std::mt19937_64(seed)};
  std::vector<uint64_t> size(n);
  for (auto& s : size) s = 1 + rng.below(4096);
  return size;
}

TEST(DominatorTree, Diamond) {
  const Csr g = to_csr(5, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}});
  const DominatorTree tree = dominators(g, 0);
  expect_idoms(tree, {0, 0, 0, 0, 3});
  expect_valid_preorder(tree);
  const RetainedSizes r = compute_retained(tree, std::vector<uint64_t>{1, 10, 100, 1000, 10000});
  EXPECT_EQ(r.bytes, (std::vector<uint64_t>{11111, 10, 100, 11000, 10000}));
  EXPECT_EQ(r.count, (std::vector<uint32_t>{5, 1, 1, 2, 1}));
}

TEST(DominatorTree, CyclesIncludingBackToRoot) {
  // 1 -> 2 -> 3 -> 1 is a cycle entered at 1 only; 2 -> 0 returns to the root.
  const Csr g = to_csr(5, {{0, 1}, {1, 2}, {2, 3}, {3, 1}, {3, 4}, {2, 0}});
  const DominatorTree tree = dominators(g, 0);
  expect_idoms(tree, {0, 0, 1, 2, 3});
  const RetainedSizes r = compute_retained(tree, std::vector<uint64_t>(5, 1));
  EXPECT_EQ(r.count, (std::vector<uint32_t>{5, 4, 3, 2, 1}));
}

TEST(DominatorTree, CycleWithTwoEntries) {
  // 1 <-> 2 entered from both 0 -> 1 and 0 -> 3 -> 2: neither dominates the other.
  const Csr g = to_csr(4, {{0, 1}, {1, 2}, {2, 1}, {0, 3}, {3, 2}});
  expect_idoms(dominators(g, 0), {0, 0, 0, 0});
}

TEST(DominatorTree, SelfLoops) {
  const Csr g = to_csr(3, {{0, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 2}});
  const DominatorTree tree = dominators(g, 0);
  expect_idoms(tree, {0, 0, 1});
  EXPECT_EQ(compute_retained(tree, std::vector<uint64_t>{4, 2, 1}).bytes,
            (std::vector<uint64_t>{7, 3, 1}));
}

TEST(DominatorTree, SeveralRootsUnderVirtualRoot) {
  // Node 5 is the virtual root over GC roots 0 and 1; 2 is held by both.
  const Csr g = to_csr(6, {{5, 0}, {5, 1}, {0, 2}, {1, 2}, {2, 3}, {0, 4}});
  const DominatorTree tree = dominators(g, 5);
  expect_idoms(tree, {5, 5, 5, 2, 0, 5});
  const RetainedSizes r = compute_retained(tree, std::vector<uint64_t>{1, 2, 4, 8, 16, 0});
  EXPECT_EQ(r.bytes, (std::vector<uint64_t>{17, 2, 12, 8, 16, 31}));
  EXPECT_EQ(r.count, (std::vector<uint32_t>{2, 1, 2, 1, 1, 6}));
}

TEST(DominatorTree, UnreachableIslandsRetainNothing) {
  // 2 <-> 3 is an island that points into the live graph; 4 is alone.
  const Csr g = to_csr(5, {{0, 1}, {2, 3}, {3, 2}, {3, 1}, {2, 0}});
  const DominatorTree tree = dominators(g, 0);
  expect_idoms(tree, {0, 0, kNoDominator, kNoDominator, kNoDominator});
  EXPECT_EQ(tree.reachable_count(), 2u);
  expect_valid_preorder(tree);
  const RetainedSizes r = compute_retained(tree, std::vector<uint64_t>{1, 2, 100, 100, 100});
  EXPECT_EQ(r.bytes, (std::vector<uint64_t>{3, 2, 0, 0, 0}));
  EXPECT_EQ(r.count, (std::vector<uint32_t>{2, 1, 0, 0, 0}));
}

TEST(DominatorTree, RootWithoutEdges) {
  const Csr g = to_csr(3, {{1, 2}, {2, 0}});
  const DominatorTree tree = dominators(g, 0);
  expect_idoms(tree, {0, kNoDominator, kNoDominator});
  EXPECT_EQ(tree.preorder().size(), 1u);
  const RetainedSizes r = compute_retained(tree, std::vector<uint32_t>{7, 8, 9});
  EXPECT_EQ(r.bytes, (std::vector<uint64_t>{7, 0, 0}));
  EXPECT_EQ(r.count, (std::vector<uint32_t>{1, 0, 0}));
}

TEST(DominatorTree, SingleNode) {
  const Csr g = to_csr(1, {});
  expect_idoms(dominators(g, 0), {0});
}

TEST(DominatorTree, LengauerTarjanPaperFigure) {
  // Figure 1 of the 1979 paper; R=0, A..L = 1..12.
  enum : uint32_t { R, A, B, C, D, E, F, G, H, I, J, K, L, N };
  const Csr g = to_csr(
      N, {{R, A}, {R, B}, {R, C}, {A, D}, {B, A}, {B, D}, {B, E}, {C, F}, {C, G}, {D, L}, {E, H},
          {F, I}, {G, I}, {G, J}, {H, E}, {H, K}, {I, K}, {J, I}, {K, I}, {K, R}, {L, H}});
  expect_idoms(dominators(g, R), {R, R, R, R, R, R, C, C, R, R, G, R, D});
}

TEST(DominatorTree, MillionNodeChainUsesNoCallStack) {
  constexpr uint32_t n = 1'000'000;
  Edges edges;
  for (uint32_t v = 0; v + 1 < n; ++v) edges.emplace_back(v, v + 1);
  edges.emplace_back(n - 1, 1);  // a back edge: EVAL then compresses a path of n-2 nodes
  const Csr g = to_csr(n, edges);
  const DominatorTree tree = dominators(g, 0);
  const RetainedSizes r = compute_retained(tree, std::vector<uint64_t>(n, 3));
  EXPECT_EQ(tree.idom(0), 0u);
  for (uint32_t v = 1; v < n; ++v) {
    ASSERT_EQ(tree.idom(v), v - 1) << "node " << v;
    ASSERT_EQ(r.count[v], n - v) << "node " << v;
  }
  EXPECT_EQ(r.bytes[0], uint64_t{3} * n);
}

TEST(DominatorTree, DeepDominatorChainWithSharedLeaves) {
  // Leaves are dominated by the root only, the list nodes by their predecessor. Semi-NCA's
  // climbs would take 4M steps here: this runs the bucket fallback.
  constexpr uint32_t k = 2000;
  Edges edges;
  add_quadratic_climb_gadget(edges, 0, 1, k);
  const DominatorTree tree = dominators(to_csr(2 * k + 2, edges), 0);
  for (uint32_t v = 2; v <= k; ++v) ASSERT_EQ(tree.idom(v), v - 1);
  EXPECT_EQ(tree.idom(k + 1), 0u);
  for (uint32_t i = 0; i < k; ++i) ASSERT_EQ(tree.idom(k + 2 + i), 0u);
}

TEST(DominatorTree, BucketFallbackMatchesBruteForce) {
  // A random graph plus the gadget under its root: the whole graph takes the bucket path.
  constexpr uint32_t n = 1000, k = 300;
  Edges edges = random_edges(n, 1000, 21);
  add_quadratic_climb_gadget(edges, 0, n, k);
  edges.emplace_back(n + 5, 7);  // and a few edges between the two parts
  edges.emplace_back(40, n + k + 3);
  const Csr g = to_csr(n + 2 * k + 1, edges);
  const std::vector<uint64_t> size = random_sizes(g.n, 22);
  const DominatorTree tree = dominators(g, 0);
  const BruteForce expected = brute_force(g, 0, size);
  EXPECT_EQ(std::vector<uint32_t>(tree.idoms().begin(), tree.idoms().end()), expected.idom);
  const RetainedSizes r = compute_retained(tree, size);
  EXPECT_EQ(r.bytes, expected.retained.bytes);
  EXPECT_EQ(r.count, expected.retained.count);
}

TEST(DominatorTree, MatchesBruteForceOnRandomGraphs) {
  struct Case {
    uint32_t n, extra_edges;
    uint64_t seed;
    uint32_t root;
  };
  // From deep dominator trees (few cross edges: depth 72, a third unreachable) to tangles where
  // the root dominates nearly everything; one run starts in the middle of the graph.
  for (const Case c : {Case{2000, 300, 1, 0}, Case{2000, 1000, 2, 0}, Case{1500, 4500, 4, 0},
                       Case{2000, 600, 6, 1000}}) {
    SCOPED_TRACE(testing::Message() << "seed " << c.seed);
    const Csr g = random_graph(c.n, c.extra_edges, c.seed);
    const std::vector<uint64_t> size = random_sizes(c.n, c.seed + 100);
    const uint32_t root = c.root;
    const DominatorTree tree = dominators(g, root);
    const BruteForce expected = brute_force(g, root, size);
    EXPECT_EQ(std::vector<uint32_t>(tree.idoms().begin(), tree.idoms().end()), expected.idom);
    const RetainedSizes r = compute_retained(tree, size);
    EXPECT_EQ(r.bytes, expected.retained.bytes);
    EXPECT_EQ(r.count, expected.retained.count);
    expect_valid_preorder(tree);
  }
}

#ifdef HEAPQ_HAVE_BOOST_GRAPH
std::vector<uint32_t> boost_idoms(const Csr& g, uint32_t root) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
  using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
  Graph bg(g.n);
  for (uint32_t v = 0; v < g.n; ++v) {
    for (uint32_t e = g.begin[v]; e < g.begin[v + 1]; ++e) boost::add_edge(v, g.target[e], bg);
  }
  const Vertex null = boost::graph_traits<Graph>::null_vertex();
  const auto index = boost::get(boost::vertex_index, bg);
  // Unreachable vertices must start at the maximum dfnum, as boost's documentation asks.
  std::vector<size_t> dfnum(g.n, SIZE_MAX);
  std::vector<Vertex> parent(g.n, null), by_dfnum(g.n, null), idom(g.n, null);
  boost::lengauer_tarjan_dominator_tree(
      bg, root, index, boost::make_iterator_property_map(dfnum.begin(), index),
      boost::make_iterator_property_map(parent.begin(), index), by_dfnum,
      boost::make_iterator_property_map(idom.begin(), index));
  std::vector<uint32_t> result(g.n, kNoDominator);
  for (uint32_t v = 0; v < g.n; ++v) {
    if (v == root) {
      result[v] = root;
    } else if (idom[v] != null) {
      result[v] = static_cast<uint32_t>(idom[v]);
    }
  }
  return result;
}

TEST(DominatorTree, MatchesBoostOnLargerRandomGraphs) {
  for (uint64_t seed : {11, 13}) {
    const Csr g = random_graph(20'000, 10'000 * static_cast<uint32_t>(seed - 10), seed);
    const DominatorTree tree = dominators(g, 0);
    EXPECT_EQ(std::vector<uint32_t>(tree.idoms().begin(), tree.idoms().end()), boost_idoms(g, 0))
        << "seed " << seed;
  }
}
#endif

TEST(DominatorTree, RejectsInconsistentInput) {
  const Csr g = to_csr(3, {{0, 1}, {1, 2}});
  EXPECT_THROW(DominatorTree::compute(3, g.begin, g.target, 3), std::invalid_argument);
  EXPECT_THROW(DominatorTree::compute(4, g.begin, g.target, 0), std::invalid_argument);
  const std::vector<uint32_t> bad_target{5, 1};
  EXPECT_THROW(DominatorTree::compute(3, g.begin, bad_target, 0), std::invalid_argument);
  const std::vector<uint32_t> bad_begin{0, 2, 1, 2};
  EXPECT_THROW(DominatorTree::compute(3, bad_begin, g.target, 0), std::invalid_argument);
  const DominatorTree tree = dominators(g, 0);
  EXPECT_THROW(compute_retained(tree, std::vector<uint64_t>(2, 0)), std::invalid_argument);
}

}  // namespace
}  // namespace heapq
