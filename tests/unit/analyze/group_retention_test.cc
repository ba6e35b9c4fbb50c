// Retained bytes of groups (a class, a site): what freeing the whole group at once frees,
// checked against a brute force (two reachability walks) on random graphs.
#include <gtest/gtest.h>

#include <random>

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/stats.h"
#include "test_dumps.h"

namespace heapq {
namespace {

using testing::load_graph;
using testing::record;
using testing::root;

// Bytes that become unreachable when every object of class c is removed.
uint64_t brute_force(const HeapGraph& g, ClassId c) {
  auto reach = [&](bool without) {
    std::vector<bool> seen(g.object_count() + 1, false);
    std::vector<ObjectId> stack{g.virtual_root()};
    seen[g.virtual_root().value()] = true;
    while (!stack.empty()) {
      ObjectId v = stack.back();
      stack.pop_back();
      if (v != g.virtual_root() && g.holds_weakly(v)) continue;
      for (ObjectId t : g.references(v)) {
        if (seen[t.value()] || (without && g.class_of(t) == c)) continue;
        seen[t.value()] = true;
        stack.push_back(t);
      }
    }
    return seen;
  };
  std::vector<bool> before = reach(false), after = reach(true);
  uint64_t freed = 0;
  for (uint32_t i = 0; i < g.object_count(); ++i)
    if (before[i] && !after[i]) freed += g.memsize(ObjectId(i));
  return freed;
}

TEST(GroupRetention, TwoInstancesSharingAStringRetainItTogether) {
  std::string dump =
      root("vm", {0x100, 0x200}) + record(0x10, "CLASS", 0x10, {}, 0, R"("name":"Session", )") +
      record(0x20, "CLASS", 0x10, {}, 0, R"("name":"String", )") +
      record(0x100, "OBJECT", 0x10, {0x300}, 40) + record(0x200, "OBJECT", 0x10, {0x300}, 40) +
      record(0x300, "STRING", 0x20, {}, 4'800'000);
  HeapGraph g = load_graph(dump);
  HeapDominators d = HeapDominators::compute(g);
  HeapStats s = compute_stats(g, SortKey::kBytes, &d, SIZE_MAX);
  bool seen = false;
  for (const ClassTotals& c : s.by_class) {
    if (g.class_name(c.cls) != "Session") continue;
    EXPECT_EQ(c.retained_bytes, 4'800'080u);
    seen = true;
  }
  EXPECT_TRUE(seen);
}

// A random heap: up to max_objects objects of up to max_classes classes, each referencing up to
// max_fanout others, one in ten a weak map.
std::string random_dump(std::mt19937& rng, int max_objects, int max_classes, int max_fanout) {
  const int objects = 2 + static_cast<int>(rng() % max_objects);
  const int classes = 1 + static_cast<int>(rng() % max_classes);
  const int fanout = static_cast<int>(rng() % max_fanout);
  auto address = [](int i) { return uint64_t(0x1000 + 0x10 * i); };
  std::vector<uint64_t> roots(1 + rng() % 3);
  for (uint64_t& r : roots) r = address(rng() % objects);
  std::string dump = root("vm", roots);
  for (int c = 0; c < classes; ++c)
    dump += record(0x100 + 0x10 * c, "CLASS", 0x100, {}, 0,
                   ("\"name\":\"C" + std::to_string(c) + "\", ").c_str());
  for (int i = 0; i < objects; ++i) {
    std::vector<uint64_t> refs;
    for (int e = 0, k = static_cast<int>(rng() % (fanout + 1)); e < k; ++e)
      refs.push_back(address(rng() % objects));
    const bool weak = rng() % 10 == 0;
    dump += record(address(i), weak ? "DATA" : "OBJECT", 0x100 + 0x10 * (rng() % classes), refs,
                   1 + rng() % 100, weak ? R"("struct":"weakmap", )" : "");
  }
  return dump;
}

// Random heaps: few classes over few objects (most groups settled by their own walk), or up to
// 200 classes over 500 objects (more than the 64 groups one shared walk settles at once).
void match_brute_force_on_random_graphs(int rounds, int max_objects, int max_classes,
                                        int max_fanout) {
  std::mt19937 rng(20261123);
  for (int round = 0; round < rounds; ++round) {
    const std::string dump = random_dump(rng, max_objects, max_classes, max_fanout);
    HeapGraph g = load_graph(dump);
    HeapDominators d = HeapDominators::compute(g);
    auto by_class =
        d.retained_by(g, g.class_count(), [&](ObjectId o) { return g.class_of(o).value(); });
    for (uint32_t c = 0; c < g.class_count(); ++c)
      ASSERT_EQ(by_class[c], brute_force(g, ClassId(c)))
          << "round " << round << ", class " << g.class_name(ClassId(c)) << "\n"
          << dump;
  }
}

TEST(GroupRetention, MatchesBruteForceOnRandomGraphs) {
  match_brute_force_on_random_graphs(300, 40, 5, 4);
}

TEST(GroupRetention, MatchesBruteForceWithManyGroups) {
  match_brute_force_on_random_graphs(20, 500, 200, 5);
}

// The walks of the dominator tree (its children, what a group dominates, a group's majority
// dominator) against the tree's definition by idom, node by node, on random heaps.
TEST(DominatorTreeWalks, MatchTheIdomsOnRandomGraphs) {
  std::mt19937 rng(20261127);
  for (int round = 0; round < 200; ++round) {
    const std::string dump = random_dump(rng, 60, 6, 4);
    HeapGraph g = load_graph(dump);
    HeapDominators d = HeapDominators::compute(g);
    const uint32_t nodes = static_cast<uint32_t>(g.object_count() + 1);
    auto reachable = [&](uint32_t v) {
      return v == g.virtual_root().value() || d.reachable(ObjectId(v));
    };
    auto above = [&](uint32_t x, uint32_t v) {  // x dominates v, v included
      for (ObjectId o(v);; o = d.idom(o)) {
        if (o.value() == x) return true;
        if (o == g.virtual_root()) return false;
      }
    };
    for (uint32_t v = 0; v < nodes; ++v) {
      std::vector<uint32_t> kids, expected;
      for (ObjectId c : d.unordered_children(ObjectId(v))) kids.push_back(c.value());
      if (reachable(v))
        for (uint32_t w = 0; w + 1 < nodes; ++w)
          if (d.reachable(ObjectId(w)) && d.idom(ObjectId(w)) == ObjectId(v)) expected.push_back(w);
      std::sort(kids.begin(), kids.end());
      ASSERT_EQ(kids, expected) << "round " << round << ", node " << v << "\n" << dump;
    }
    const uint32_t classes = static_cast<uint32_t>(g.class_count());
    auto key = [&](ObjectId o) { return g.class_of(o).value(); };
    const std::vector<uint64_t> dominated = d.dominated_by(g, classes, key);
    const std::vector<HeapDominators::Majority> majority = d.majority_dominators(g, classes, key);
    for (uint32_t c = 0; c < classes; ++c) {
      std::vector<uint32_t> members;
      for (uint32_t o = 0; o + 1 < nodes; ++o)
        if (d.reachable(ObjectId(o)) && key(ObjectId(o)) == c) members.push_back(o);
      auto member = [&](uint32_t v) {
        return std::find(members.begin(), members.end(), v) != members.end();
      };
      uint64_t bytes = 0;  // the members no other member dominates
      for (uint32_t m : members) {
        bool inside_another = false;
        for (uint32_t x : members) inside_another = inside_another || (x != m && above(x, m));
        if (!inside_another) bytes += d.retained_bytes(ObjectId(m));
      }
      EXPECT_EQ(dominated[c], bytes) << "round " << round << ", class " << c;
      auto under = [&](uint32_t x) {
        return uint64_t(
            std::count_if(members.begin(), members.end(), [&](uint32_t m) { return above(x, m); }));
      };
      // Down from the root while one child holds more than half the members and is not one.
      uint32_t at = g.virtual_root().value();
      for (bool down = true; down;) {
        down = false;
        for (ObjectId ch : d.unordered_children(ObjectId(at)))
          if (under(ch.value()) * 2 > members.size() && !member(ch.value())) {
            at = ch.value();
            down = true;
            break;
          }
      }
      EXPECT_EQ(majority[c].node, ObjectId(at)) << "round " << round << ", class " << c;
      EXPECT_EQ(majority[c].members, under(at)) << "round " << round << ", class " << c;
    }
  }
}

}  // namespace
}  // namespace heapq
