// Dominators, retained sizes and retention paths on hand-built dumps.
#include <gtest/gtest.h>

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/retainers.h"
#include "test_dumps.h"

namespace heapq {
namespace {

using testing::load_graph;
using testing::record;
using testing::root;

// Classes: 0x10 Holder, 0x20 Hash, 0x30 Item, 0x40 WeakMap.
const std::string kClasses =
    R"({"address":"0x10", "type":"CLASS", "name":"Holder", "references":[], "memsize":0})"
    "\n"
    R"({"address":"0x20", "type":"CLASS", "name":"Hash", "references":[], "memsize":0})"
    "\n"
    R"({"address":"0x30", "type":"CLASS", "name":"Item", "references":[], "memsize":0})"
    "\n"
    R"({"address":"0x40", "type":"CLASS", "name":"ObjectSpace::WeakMap", "references":[], "memsize":0})"
    "\n";

ObjectId id(const HeapGraph& g, uint64_t address) {
  return g.find(address).value();
}

// root -> holder(0x100) -> hash(0x200) -> items 0x300, 0x310; 0x310 also held by a second
// root-held hash 0x400 (so neither hash dominates it); 0x500 only in a weak map; 0x600 garbage.
std::string diamond_dump() {
  return kClasses + root("vm", {0x100, 0x400, 0x700}) + record(0x100, "OBJECT", 0x10, {0x200}, 40) +
         record(0x200, "HASH", 0x20, {0x300, 0x310}, 200) +
         record(0x300, "OBJECT", 0x30, {}, 1000) + record(0x310, "OBJECT", 0x30, {}, 500) +
         record(0x400, "HASH", 0x20, {0x310, 0x410}, 100) + record(0x410, "HASH", 0x20, {}, 60) +
         record(0x700, "DATA", 0x40, {0x500}, 80, R"("struct":"weakmap", )") +
         record(0x500, "OBJECT", 0x30, {}, 7000) + record(0x600, "STRING", 0x30, {}, 9000);
}

TEST(Dominators, RetainedSizesIdomsAndGarbage) {
  HeapGraph g = load_graph(diamond_dump());
  HeapDominators d = HeapDominators::compute(g);
  EXPECT_EQ(d.idom(id(g, 0x200)), id(g, 0x100));
  EXPECT_EQ(d.idom(id(g, 0x300)), id(g, 0x200));
  EXPECT_EQ(d.idom(id(g, 0x310)), g.virtual_root());  // two ways in
  EXPECT_EQ(d.retained_bytes(id(g, 0x100)), 40u + 200 + 1000);
  EXPECT_EQ(d.retained_count(id(g, 0x100)), 4u);  // its class Holder too: no one else holds it
  EXPECT_EQ(d.retained_bytes(id(g, 0x400)), 100u + 60);
  // Only a weak map holds 0x500, nothing holds 0x600: both are garbage, apart from all sizes.
  EXPECT_FALSE(d.reachable(id(g, 0x500)));
  EXPECT_FALSE(d.reachable(id(g, 0x600)));
  // ... and the WeakMap class, whose only referrer is the weak map (all of whose references,
  // its class edge included, are left out).
  EXPECT_EQ(d.unreachable_count(), 3u);
  EXPECT_EQ(d.unreachable_bytes(), 7000u + 9000);
  EXPECT_EQ(d.retained_bytes(g.virtual_root()), 40u + 200 + 1000 + 500 + 100 + 60 + 80);
  // Root-held 0x100, 0x400, 0x700; 0x310 and classes Hash and Item, each reached two ways.
  std::vector<ObjectId> top = d.children(g.virtual_root());
  ASSERT_EQ(top.size(), 6u);
  EXPECT_EQ(top[0], id(g, 0x100));  // largest retained first
}

TEST(Dominators, RetainedByClassCountsNestedInstancesOnce) {
  HeapGraph g = load_graph(diamond_dump());
  HeapDominators d = HeapDominators::compute(g);
  auto by_class =
      d.retained_by(g, g.class_count(), [&](ObjectId o) { return g.class_of(o).value(); });
  auto of = [&](std::string_view name) {
    for (uint32_t c = 0; c < g.class_count(); ++c)
      if (g.class_name(ClassId(c)) == name) return by_class[c];
    return uint64_t(-1);
  };
  // Hash 0x410 is dominated by Hash 0x400: counted inside it, not again; Item 0x310, which the
  // two root-held Hashes hold together, is freed with them.
  EXPECT_EQ(of("Hash"), (200u + 1000) + (100u + 60) + 500);
  EXPECT_EQ(of("Item"), 1000u + 500);
  EXPECT_EQ(of("Holder"), 40u + 200 + 1000);
}

TEST(Retainers, HolderPathsShortestFirstEachThroughAnotherHolder) {
  HeapGraph g = load_graph(diamond_dump());
  Referrers r = Referrers::build(g);
  std::vector<RetentionPath> paths = holder_paths(g, r, id(g, 0x310), 5, 64);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0].steps.size(), 2u);  // root -> 0x400 -> 0x310
  EXPECT_EQ(paths[0].steps[0].object, id(g, 0x400));
  EXPECT_EQ(g.string(paths[0].root), "vm");
  EXPECT_EQ(paths[1].steps.size(), 3u);  // root -> 0x100 -> 0x200 -> 0x310
  EXPECT_EQ(paths[1].steps.back().object, id(g, 0x310));
  EXPECT_TRUE(holder_paths(g, r, id(g, 0x500), 5, 64).empty()) << "weak references never retain";
  // A path longer than max_steps keeps its ends and says how much it left out.
  std::vector<RetentionPath> cut = holder_paths(g, r, id(g, 0x310), 5, 2);
  ASSERT_EQ(cut.size(), 2u);
  EXPECT_EQ(cut[1].steps.size(), 2u);
  EXPECT_EQ(cut[1].elided, 1u);
  EXPECT_EQ(cut[1].length(), 3u);
  EXPECT_EQ(cut[1].steps.front().object, id(g, 0x100));
  EXPECT_EQ(cut[1].steps.back().object, id(g, 0x310));
}

// A thread's stack holds the Hash a worker is using while the dump is taken; the constant that
// holds it for good is the reason it stays alive, and the path says so.
TEST(Retainers, PathsStartAtDurableRootsFirst) {
  const std::string dump =
      kClasses + root("machine_context", {0x200, 0x900}) + root("vm", {0x100}) +
      record(0x100, "OBJECT", 0x10, {0x200}, 40) + record(0x200, "HASH", 0x20, {0x300}, 200) +
      record(0x300, "OBJECT", 0x30, {}, 100) + record(0x900, "OBJECT", 0x30, {0x910}, 10) +
      record(0x910, "OBJECT", 0x30, {}, 10);
  HeapGraph g = load_graph(dump);
  ShortestPathTree tree = ShortestPathTree::compute(g);
  RetentionPath to_item = tree.path_to(g, id(g, 0x300));
  EXPECT_EQ(g.string(to_item.root), "vm");
  ASSERT_EQ(to_item.steps.size(), 3u);  // root -> 0x100 -> 0x200 -> 0x300, not the stack's shortcut
  EXPECT_EQ(to_item.steps[1].object, id(g, 0x200));
  EXPECT_FALSE(tree.from_transient_root(id(g, 0x300)));
  // What only a stack holds keeps its path from the stack.
  RetentionPath to_local = tree.path_to(g, id(g, 0x910));
  EXPECT_EQ(g.string(to_local.root), "machine_context");
  EXPECT_EQ(to_local.steps.size(), 2u);
  EXPECT_TRUE(tree.from_transient_root(id(g, 0x910)));
  // The holders' paths too: the durable one first, though it is longer.
  Referrers r = Referrers::build(g);
  std::vector<RetentionPath> paths = holder_paths(g, r, id(g, 0x200), 5, 64);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(g.string(paths[0].root), "vm");
  EXPECT_EQ(g.string(paths[1].root), "machine_context");
}

// ObjectSpace dumps reach a thread through the VM root (ROOT(vm) -> Ractor -> Thread): the
// Hash a worker thread holds in a local is held for good by a constant, and its path says so,
// though the thread's is shorter. What only the thread holds keeps its path through it.
TEST(Retainers, PathsGoThroughAThreadOnlyWhereNothingElseHoldsTheObject) {
  const std::string thread_class =
      R"({"address":"0x70", "type":"CLASS", "name":"Thread", "references":[], "memsize":0})"
      "\n";
  const std::string dump =
      kClasses + thread_class + root("vm", {0x800, 0x100}) +
      record(0x800, "DATA", 0x70, {0x200, 0x910}, 40) +  // the Thread: its locals
      record(0x100, "OBJECT", 0x10, {0x110}, 40) + record(0x110, "OBJECT", 0x10, {0x200}, 40) +
      record(0x200, "HASH", 0x20, {0x300}, 200) + record(0x300, "OBJECT", 0x30, {}, 100) +
      record(0x910, "OBJECT", 0x30, {}, 10);
  HeapGraph g = load_graph(dump);
  ShortestPathTree tree = ShortestPathTree::compute(g);
  RetentionPath to_item = tree.path_to(g, id(g, 0x300));
  ASSERT_EQ(to_item.steps.size(), 4u) << "vm -> 0x100 -> 0x110 -> Hash -> Item";
  EXPECT_EQ(to_item.steps[0].object, id(g, 0x100));
  EXPECT_FALSE(tree.from_transient_root(id(g, 0x300)));
  RetentionPath to_local = tree.path_to(g, id(g, 0x910));
  ASSERT_EQ(to_local.steps.size(), 2u);
  EXPECT_EQ(to_local.steps[0].object, id(g, 0x800)) << "only the thread holds it";
}

// Two root-held objects reach one Hash that holds the target: that is one reason it is alive,
// not two. A second path needs a second holder.
TEST(Retainers, AlternativePathsDifferAtTheHolder) {
  std::string dump =
      kClasses + root("vm", {0x100, 0x110, 0x120}) + record(0x100, "OBJECT", 0x10, {0x200}, 40) +
      record(0x110, "OBJECT", 0x10, {0x100}, 40) + record(0x120, "OBJECT", 0x10, {0x210}, 40) +
      record(0x200, "HASH", 0x20, {0x300}, 200) + record(0x210, "HASH", 0x20, {0x220}, 200) +
      record(0x220, "HASH", 0x20, {0x300}, 200) + record(0x300, "OBJECT", 0x30, {}, 40);
  HeapGraph g = load_graph(dump);
  Referrers r = Referrers::build(g);
  std::vector<RetentionPath> paths = holder_paths(g, r, id(g, 0x300), 5, 64);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0].steps[paths[0].steps.size() - 2].object, id(g, 0x200));
  EXPECT_EQ(paths[1].steps[paths[1].steps.size() - 2].object, id(g, 0x220));
  EXPECT_EQ(paths[1].length(), 4u);  // root -> 0x120 -> 0x210 -> 0x220 -> 0x300
}

// The paths to a target's holders never run through the target itself.
TEST(Retainers, HolderPathsAvoidTheTarget) {
  // root -> 0x100 -> 0x300 (target) -> 0x200 -> 0x300: 0x200 is a referrer reached only
  // through the target: not a reason for it to be alive.
  std::string dump = kClasses + root("vm", {0x100}) + record(0x100, "OBJECT", 0x10, {0x300}, 40) +
                     record(0x300, "OBJECT", 0x30, {0x200}, 40) +
                     record(0x200, "HASH", 0x20, {0x300}, 40);
  HeapGraph g = load_graph(dump);
  Referrers r = Referrers::build(g);
  std::vector<RetentionPath> paths = holder_paths(g, r, id(g, 0x300), 5, 64);
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(paths[0].steps.front().object, id(g, 0x100));
}

TEST(Retainers, NamedPathsFromMemprofDumps) {
  std::string dump =
      R"J({"type":"META", "format":"memprof", "version":1})J"
      "\n"
      R"J({"type":"ROOT", "root":"global_tbl", "references":["0x100"]})J"
      "\n" +
      kClasses +
      R"J({"address":"0x100", "type":"OBJECT", "class":"0x10", "references":["0x10", "0x200"], "reference_names":["(class)", "@store"], "memsize":40})J"
      "\n"
      R"J({"address":"0x200", "type":"HASH", "class":"0x20", "references":["0x300"], "reference_names":["[\"sku-42\"]"], "memsize":200})J"
      "\n"
      R"J({"address":"0x300", "type":"OBJECT", "class":"0x30", "references":[], "memsize":40})J"
      "\n"
      R"J({"type":"END", "records":8})J"
      "\n";
  HeapGraph g = load_graph(dump);
  Referrers r = Referrers::build(g);
  auto paths = holder_paths(g, r, id(g, 0x300), 1, 64);
  ASSERT_EQ(paths.size(), 1u);
  ASSERT_EQ(paths[0].steps.size(), 3u);
  EXPECT_EQ(g.string(paths[0].root), "global_tbl");
  EXPECT_EQ(g.string(paths[0].steps[1].edge), "@store");
  EXPECT_EQ(g.string(paths[0].steps[2].edge), "[\"sku-42\"]");
  EXPECT_EQ(describe(g, paths[0].steps[0].object), "Holder");
  EXPECT_EQ(describe(g, id(g, 0x10)), "class Holder");
}

// ObjectSpace dumps leave out the reference from an object to its class; heapq adds it (memprof
// dumps have it already, named "(class)").
TEST(Dominators, ObjectsKeepTheirClassesAlive) {
  HeapGraph g = load_graph(diamond_dump());
  IdRange<ObjectId> refs = g.references(id(g, 0x100));
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[1], id(g, 0x10));
  EXPECT_EQ(g.references(id(g, 0x410)).size(), 1u)
      << "an object without references still has its class";
  HeapDominators d = HeapDominators::compute(g);
  EXPECT_EQ(d.idom(id(g, 0x10)), id(g, 0x100));
  EXPECT_TRUE(d.reachable(id(g, 0x20)));
}

TEST(Retainers, MergedPathsGroupInstancesByShape) {
  HeapGraph g = load_graph(diamond_dump());
  ShortestPathTree tree = ShortestPathTree::compute(g);
  std::vector<ObjectId> items = {id(g, 0x300), id(g, 0x310), id(g, 0x500)};
  MergedPaths merged = merge_paths(g, tree, items, 64);
  EXPECT_EQ(merged.unreachable, 1u);
  ASSERT_EQ(merged.groups.size(), 2u);  // Holder -> Hash -> Item, and Hash -> Item
  const ShapeNode& a = merged.nodes[merged.groups[0]];
  const ShapeNode& b = merged.nodes[merged.groups[1]];
  EXPECT_EQ(a.count + b.count, 2u);
  EXPECT_EQ(a.bytes + b.bytes, 1500u);
  // Counts add up from the targets to the roots.
  uint32_t top = merged.groups[0];
  while (merged.nodes[top].parent != ShapeNode::kNoParent) top = merged.nodes[top].parent;
  EXPECT_EQ(merged.nodes[top].total_count, merged.nodes[merged.groups[0]].count);
}

// A shape's objects that all came in by one reference name keep it for pictures (a Hash's
// ["sql.active_record"]); those reached by several ([0], [1]) do not.
TEST(Retainers, MergedShapesKnowWhetherTheirReferenceNameIsOne) {
  std::string dump =
      R"J({"type":"META", "format":"memprof", "version":1})J"
      "\n" +
      root("vm", {0x200}) + kClasses +
      record(0x200, "HASH", 0x20, {0x250}, 40,
             R"("reference_names":["[\"sql.active_record\"]"], )") +
      record(0x250, "ARRAY", 0x20, {0x300, 0x310}, 40, R"("reference_names":["[0]", "[1]"], )") +
      record(0x300, "OBJECT", 0x30, {}, 40) + record(0x310, "OBJECT", 0x30, {}, 40) +
      R"J({"type":"END", "records":0})J"
      "\n";
  HeapGraph g = load_graph(dump);
  ShortestPathTree tree = ShortestPathTree::compute(g);
  MergedPaths merged = merge_paths(g, tree, {id(g, 0x300), id(g, 0x310)}, 64);
  ASSERT_EQ(merged.groups.size(), 1u);
  const ShapeNode& items = merged.nodes[merged.groups[0]];
  EXPECT_EQ(items.count, 2u);
  EXPECT_FALSE(items.one_edge) << "[0] and [1]";
  ASSERT_NE(items.parent, ShapeNode::kNoParent);
  EXPECT_TRUE(merged.nodes[items.parent].one_edge);
  EXPECT_EQ(g.string(tree.edge_into(g, merged.nodes[items.parent].example)),
            "[\"sql.active_record\"]");
}

// A linked list: every node's path is the one before it plus "@next". The repeated step folds,
// so 30,000 nodes make two shapes, not 30,000 paths of up to 30,000 steps each.
std::string linked_list(int length, uint64_t base) {
  std::string dump = R"J({"type":"META", "format":"memprof", "version":1})J"
                     "\n" +
                     root("vm", {0x100}) + kClasses;
  dump += record(0x100, "OBJECT", 0x10, {base}, 40, R"("reference_names":["@head"], )");
  for (int i = 0; i < length; ++i) {
    const uint64_t a = base + 0x28ull * i;
    if (i + 1 < length)
      dump += record(a, "OBJECT", 0x30, {a + 0x28}, 40, R"("reference_names":["@next"], )");
    else
      dump += record(a, "OBJECT", 0x30, {}, 40);
  }
  return dump + R"J({"type":"END", "records":0})J"
                "\n";
}

TEST(Retainers, MergedPathsFoldALinkedList) {
  const int kLength = 30'000;
  HeapGraph g = load_graph(linked_list(kLength, 0x10000));
  ShortestPathTree tree = ShortestPathTree::compute(g);
  std::vector<ObjectId> nodes;
  for (uint32_t i = 0; i < g.object_count(); ++i)
    if (g.class_name(g.class_of(ObjectId(i))) == "Item") nodes.push_back(ObjectId(i));
  ASSERT_EQ(nodes.size(), size_t(kLength));
  MergedPaths merged = merge_paths(g, tree, nodes, 64);
  EXPECT_EQ(merged.unreachable, 0u);
  ASSERT_EQ(merged.groups.size(), 2u);
  const ShapeNode& chain = merged.nodes[merged.groups[0]];
  EXPECT_EQ(chain.count, uint64_t(kLength - 1));
  EXPECT_TRUE(chain.repeats);
  EXPECT_EQ(g.string(tree.edge_into(g, chain.example)), "@next");
  EXPECT_EQ(merged.nodes[merged.groups[1]].count, 1u);  // the head, reached by @head
  EXPECT_LE(merged.nodes.size(), 4u);
  // Its example is the first node to repeat @next: holder, head, second node.
  EXPECT_EQ(tree.path_to(g, chain.nearest_target).length(), 3u);
  // The deepest node's path is shown by its ends.
  RetentionPath p = tree.path_to(g, nodes.back(), 8);
  EXPECT_EQ(p.steps.size(), 8u);
  EXPECT_EQ(p.length(), size_t(kLength) + 1);
}

// Distances in references from the roots, along a list long enough that the tree keeps them
// in one, two and then four bytes each; what nothing reaches has none.
TEST(Retainers, DistancesAlongAListOfSeventyThousand) {
  constexpr uint64_t kLength = 70'000;
  HeapGraph g = load_graph(linked_list(kLength, 0x10000));
  ShortestPathTree tree = ShortestPathTree::compute(g);
  // root -> the holder -> node 0 -> node 1 ...
  for (uint64_t i : {uint64_t{0}, uint64_t{252}, uint64_t{253}, uint64_t{254}, uint64_t{65'533},
                     uint64_t{65'534}, kLength - 1})
    EXPECT_EQ(tree.distance(id(g, 0x10000 + 0x28 * i)), i + 2) << i;
  HeapGraph diamond = load_graph(diamond_dump());
  ShortestPathTree garbage = ShortestPathTree::compute(diamond);
  EXPECT_EQ(garbage.distance(id(diamond, 0x600)), UINT32_MAX);
  EXPECT_FALSE(garbage.reachable(id(diamond, 0x600)));
}

// Alternating steps do not fold; max_depth bounds the shapes all the same.
TEST(Retainers, MergedPathsStopAtMaxDepth) {
  std::string dump = kClasses + root("vm", {0x1000});
  const int kLength = 1000;
  for (int i = 0; i < kLength; ++i) {
    const uint64_t a = 0x1000 + 0x28 * i;
    dump += record(a, i % 2 ? "HASH" : "OBJECT", i % 2 ? 0x20 : 0x30,
                   i + 1 < kLength ? std::vector<uint64_t>{a + 0x28} : std::vector<uint64_t>{}, 40);
  }
  HeapGraph g = load_graph(dump);
  ShortestPathTree tree = ShortestPathTree::compute(g);
  std::vector<ObjectId> items;
  for (uint32_t i = 0; i < g.object_count(); ++i)
    if (g.class_name(g.class_of(ObjectId(i))) == "Item") items.push_back(ObjectId(i));
  MergedPaths merged = merge_paths(g, tree, items, 10);
  EXPECT_LE(merged.nodes.size(), 10u);
  const ShapeNode& last = merged.nodes[merged.groups[0]];
  EXPECT_TRUE(last.deeper);
  EXPECT_EQ(last.count, uint64_t(kLength / 2 - 5));  // items at depths 11, 13, ... 999
}

// A live object deeper than the steps shown is still alive: its path is elided, never missing.
TEST(Retainers, DeepLiveObjectIsNotGarbage) {
  HeapGraph g = load_graph(linked_list(300, 0x10000));
  Referrers r = Referrers::build(g);
  const ObjectId last = id(g, 0x10000 + 0x28 * 299);
  std::vector<RetentionPath> paths = holder_paths(g, r, last, 3, 64);
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(paths[0].length(), 301u);
  EXPECT_EQ(paths[0].steps.size(), 64u);
  EXPECT_EQ(g.string(paths[0].steps.back().edge), "@next");
}

// A chain as deep as the heap is long: nothing may recurse over the graph.
TEST(Retention, MillionObjectChainNeedsNoStack) {
  const int kDepth = 300'000;
  std::string dump = kClasses + root("vm", {0x1000});
  dump.reserve(kDepth * 110);
  for (int i = 0; i < kDepth; ++i)
    dump += record(0x1000 + 0x28 * i, "OBJECT", 0x30,
                   i + 1 < kDepth ? std::vector<uint64_t>{uint64_t(0x1000 + 0x28 * (i + 1))}
                                  : std::vector<uint64_t>{},
                   40);
  HeapGraph g = load_graph(dump);
  HeapDominators d = HeapDominators::compute(g);
  EXPECT_EQ(d.retained_count(id(g, 0x1000)), uint32_t(kDepth) + 1);  // and their class
  auto by_class =
      d.retained_by(g, g.class_count(), [&](ObjectId o) { return g.class_of(o).value(); });
  EXPECT_EQ(by_class[g.class_of(id(g, 0x1000)).value()], 40u * kDepth);
  ShortestPathTree tree = ShortestPathTree::compute(g);
  const uint64_t last = 0x1000 + 0x28 * (kDepth - 1);
  EXPECT_EQ(tree.path_to(g, id(g, last)).steps.size(), size_t(kDepth));
  Referrers r = Referrers::build(g);
  EXPECT_EQ(holder_paths(g, r, id(g, last), 1, kDepth).at(0).steps.size(), size_t(kDepth));
}

}  // namespace
}  // namespace heapq
