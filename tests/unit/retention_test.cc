// Dominators, retained sizes and retention paths on hand-built dumps.
#include <gtest/gtest.h>

#include <cstdio>

#include "heapq/dominators.h"
#include "heapq/retainers.h"
#include "test_dumps.h"

namespace heapq {
namespace {

std::string record(uint64_t address, const char* type, uint64_t klass, std::vector<uint64_t> refs,
                   uint64_t memsize, const char* extra = "") {
  char head[160];
  std::snprintf(head, sizeof head, R"({"address":"0x%llx", "type":"%s", "class":"0x%llx", %s"references":[)",
                (unsigned long long)address, type, (unsigned long long)klass, extra);
  std::string out = head;
  for (size_t i = 0; i < refs.size(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s\"0x%llx\"", i ? ", " : "", (unsigned long long)refs[i]);
    out += buf;
  }
  return out + "], \"memsize\":" + std::to_string(memsize) + "}\n";
}

std::string root(const char* category, std::vector<uint64_t> refs) {
  std::string out = std::string(R"({"type":"ROOT", "root":")") + category + R"(", "references":[)";
  for (size_t i = 0; i < refs.size(); ++i) out += (i ? ", \"0x" : "\"0x") + [&] {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%llx", (unsigned long long)refs[i]);
    return std::string(buf);
  }() + "\"";
  return out + "]}\n";
}

// Classes: 0x10 Holder, 0x20 Hash, 0x30 Item, 0x40 WeakMap.
const std::string kClasses =
    R"({"address":"0x10", "type":"CLASS", "name":"Holder", "references":[], "memsize":0})" "\n"
    R"({"address":"0x20", "type":"CLASS", "name":"Hash", "references":[], "memsize":0})" "\n"
    R"({"address":"0x30", "type":"CLASS", "name":"Item", "references":[], "memsize":0})" "\n"
    R"({"address":"0x40", "type":"CLASS", "name":"ObjectSpace::WeakMap", "references":[], "memsize":0})" "\n";

HeapGraph load(const std::string& text) {
  auto loaded = testing::load_text(text);
  EXPECT_TRUE(loaded.graph.ok()) << (loaded.graph.ok() ? "" : loaded.graph.error().message);
  return std::move(loaded.graph.value());
}

ObjectId id(const HeapGraph& g, uint64_t address) { return g.find(address).value(); }

// root -> holder(0x100) -> hash(0x200) -> items 0x300, 0x310; 0x310 also held by a second
// root-held hash 0x400 (so neither hash dominates it); 0x500 only in a weak map; 0x600 garbage.
std::string diamond_dump() {
  return kClasses + root("vm", {0x100, 0x400, 0x700}) +
         record(0x100, "OBJECT", 0x10, {0x200}, 40) + record(0x200, "HASH", 0x20, {0x300, 0x310}, 200) +
         record(0x300, "OBJECT", 0x30, {}, 1000) + record(0x310, "OBJECT", 0x30, {}, 500) +
         record(0x400, "HASH", 0x20, {0x310, 0x410}, 100) + record(0x410, "HASH", 0x20, {}, 60) +
         record(0x700, "DATA", 0x40, {0x500}, 80, R"("struct":"weakmap", )") +
         record(0x500, "OBJECT", 0x30, {}, 7000) + record(0x600, "STRING", 0x30, {}, 9000);
}

TEST(Dominators, RetainedSizesIdomsAndGarbage) {
  HeapGraph g = load(diamond_dump());
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
  HeapGraph g = load(diamond_dump());
  HeapDominators d = HeapDominators::compute(g);
  auto by_class = d.retained_by(g, g.class_count(), [&](ObjectId o) { return g.class_of(o).value(); });
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

TEST(Retainers, ShortestPathsThroughDifferentRootHeldObjects) {
  HeapGraph g = load(diamond_dump());
  Referrers r = Referrers::build(g);
  std::vector<RetentionPath> paths = shortest_paths(g, r, id(g, 0x310), 5, 64);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0].steps.size(), 2u);  // root -> 0x400 -> 0x310
  EXPECT_EQ(paths[0].steps[0].object, id(g, 0x400));
  EXPECT_EQ(g.string(paths[0].root), "vm");
  EXPECT_EQ(paths[1].steps.size(), 3u);  // root -> 0x100 -> 0x200 -> 0x310
  EXPECT_EQ(paths[1].steps.back().object, id(g, 0x310));
  EXPECT_EQ(shortest_paths(g, r, id(g, 0x310), 5, 2).size(), 1u) << "max_depth bounds the search";
  EXPECT_TRUE(shortest_paths(g, r, id(g, 0x500), 5, 64).empty()) << "weak references never retain";
}

TEST(Retainers, NamedPathsFromMemprofDumps) {
  std::string dump =
      R"J({"type":"META", "format":"memprof", "version":1})J" "\n"
      R"J({"type":"ROOT", "root":"global_tbl", "references":["0x100"]})J" "\n" + kClasses +
      R"J({"address":"0x100", "type":"OBJECT", "class":"0x10", "references":["0x10", "0x200"], "reference_names":["(class)", "@store"], "memsize":40})J" "\n"
      R"J({"address":"0x200", "type":"HASH", "class":"0x20", "references":["0x300"], "reference_names":["[\"sku-42\"]"], "memsize":200})J" "\n"
      R"J({"address":"0x300", "type":"OBJECT", "class":"0x30", "references":[], "memsize":40})J" "\n"
      R"J({"type":"END", "records":8})J" "\n";
  HeapGraph g = load(dump);
  Referrers r = Referrers::build(g);
  auto paths = shortest_paths(g, r, id(g, 0x300), 1, 64);
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
  HeapGraph g = load(diamond_dump());
  IdRange<ObjectId> refs = g.references(id(g, 0x100));
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[1], id(g, 0x10));
  EXPECT_EQ(g.references(id(g, 0x410)).size(), 1u) << "an object without references still has its class";
  HeapDominators d = HeapDominators::compute(g);
  EXPECT_EQ(d.idom(id(g, 0x10)), id(g, 0x100));
  EXPECT_TRUE(d.reachable(id(g, 0x20)));
}

TEST(Retainers, MergedPathsGroupInstancesByShape) {
  HeapGraph g = load(diamond_dump());
  ShortestPathTree tree = ShortestPathTree::compute(g);
  uint64_t unreachable = 0;
  std::vector<ObjectId> items = {id(g, 0x300), id(g, 0x310), id(g, 0x500)};
  std::vector<PathGroup> groups = merge_paths(g, tree, items, &unreachable);
  EXPECT_EQ(unreachable, 1u);
  ASSERT_EQ(groups.size(), 2u);  // Holder -> Hash -> Item, and Hash -> Item
  EXPECT_EQ(groups[0].count + groups[1].count, 2u);
}

// A chain as deep as the heap is long: nothing may recurse over the graph.
TEST(Retention, MillionObjectChainNeedsNoStack) {
  const int kDepth = 300'000;
  std::string dump = kClasses + root("vm", {0x1000});
  dump.reserve(kDepth * 110);
  for (int i = 0; i < kDepth; ++i)
    dump += record(0x1000 + 0x28 * i, "OBJECT", 0x30, i + 1 < kDepth ? std::vector<uint64_t>{uint64_t(0x1000 + 0x28 * (i + 1))} : std::vector<uint64_t>{}, 40);
  HeapGraph g = load(dump);
  HeapDominators d = HeapDominators::compute(g);
  EXPECT_EQ(d.retained_count(id(g, 0x1000)), uint32_t(kDepth) + 1);  // and their class
  auto by_class = d.retained_by(g, g.class_count(), [&](ObjectId o) { return g.class_of(o).value(); });
  EXPECT_EQ(by_class[g.class_of(id(g, 0x1000)).value()], 40u * kDepth);
  ShortestPathTree tree = ShortestPathTree::compute(g);
  const uint64_t last = 0x1000 + 0x28 * (kDepth - 1);
  EXPECT_EQ(tree.path_to(g, id(g, last)).steps.size(), size_t(kDepth));
  Referrers r = Referrers::build(g);
  EXPECT_EQ(shortest_paths(g, r, id(g, last), 1, kDepth).at(0).steps.size(), size_t(kDepth));
}

}  // namespace
}  // namespace heapq
