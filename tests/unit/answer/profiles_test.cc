// The profiles of sites, retainers and dominators on hand-built dumps, read as folded stacks.
#include <gtest/gtest.h>

#include <algorithm>

#include "heapq/analyze/dominators.h"
#include "heapq/answer/ask/profile.h"
#include "heapq/render/render.h"
#include "test_dumps.h"

namespace heapq {
namespace {

using testing::record;
using testing::root;

LoadedDump loaded(const std::string& text) {
  LoadedDump d;
  d.path = "dump.json";
  d.graph = testing::load_graph(text);
  return d;
}

// The sum of each type's values over the samples.
std::vector<int64_t> totals(const ProfileAnswer& a) {
  std::vector<int64_t> out(a.types.size(), 0);
  for (size_t i = 0; i < a.values.size(); ++i) out[i % a.types.size()] += a.values[i];
  return out;
}

// Classes: 0x10 Holder, 0x20 Hash, 0x30 Item, 0x40 Node.
const std::string kClasses =
    testing::class_records({{0x10, "Holder"}, {0x20, "Hash"}, {0x30, "Item"}, {0x40, "Node"}});

// root -> holder 0x100 -> hash 0x200 -> items 0x300, 0x310; 0x310 also held by a second
// root-held hash 0x400, so that only the roots dominate it; 0x600 garbage.
std::string diamond() {
  return kClasses + root("vm", {0x100, 0x400}) + record(0x100, "OBJECT", 0x10, {0x200}, 40) +
         record(0x200, "HASH", 0x20, {0x300, 0x310}, 200) +
         record(0x300, "OBJECT", 0x30, {}, 1000) + record(0x310, "OBJECT", 0x30, {}, 500) +
         record(0x400, "HASH", 0x20, {0x310}, 100) + record(0x600, "STRING", 0x30, {}, 9000);
}

TEST(DominatorsProfile, EachObjectUnderWhatKeepsItAliveWithItsOwnBytes) {
  const LoadedDump d = loaded(diamond());
  const HeapDominators dom = HeapDominators::compute(d.graph);
  const ProfileAnswer a = dominators_profile(d, dom, 64);
  EXPECT_EQ(render::folded(a),
            "ROOT(vm);Holder 40\n"
            "ROOT(vm);Holder;Hash 200\n"
            "ROOT(vm);Holder;Hash;Item 1000\n"
            "ROOT(several);Item 500\n"
            "ROOT(vm);Hash 100\n"
            "(unreachable: garbage not yet swept) 9000\n");
  // Every object once: the heap's count and bytes (the four classes weigh nothing).
  EXPECT_EQ(totals(a), (std::vector<int64_t>{10, 40 + 200 + 1000 + 500 + 100 + 9000}));
}

// A linked list of n Nodes under one root: as deep as n in the dominator tree.
std::string chain(size_t n) {
  std::string out = kClasses + root("vm", {0x1000});
  for (size_t i = 0; i < n; ++i)
    out += record(
        0x1000 + 16 * i, "OBJECT", 0x40,
        i + 1 < n ? std::vector<uint64_t>{0x1000 + 16 * (i + 1)} : std::vector<uint64_t>{}, 40);
  return out;
}

TEST(DominatorsProfile, ALongChainFoldsIntoOneFrame) {
  const LoadedDump d = loaded(chain(20000));
  const HeapDominators dom = HeapDominators::compute(d.graph);
  const ProfileAnswer a = dominators_profile(d, dom, 64);
  EXPECT_EQ(render::folded(a),
            "ROOT(vm);Node 40\n"
            "ROOT(vm);Node;Node (repeated) 799960\n");
  EXPECT_LE(a.node_frame.size(), 6u);  // and the class Node, which the first Node holds
}

TEST(DominatorsProfile, PathsDeeperThanTheDepthEndInTheirFrameAtIt) {
  // (Past the depth, a step like the last one shown reads as a repeat of it, as in retainers.)
  // Alternating classes do not fold: Holder -> Item -> Holder -> ...
  std::string dump = kClasses + root("vm", {0x1000});
  for (uint64_t i = 0; i < 10; ++i)
    dump += record(
        0x1000 + 16 * i, "OBJECT", i % 2 ? 0x30 : 0x10,
        i + 1 < 10 ? std::vector<uint64_t>{0x1000 + 16 * (i + 1)} : std::vector<uint64_t>{}, 8);
  const LoadedDump d = loaded(dump);
  const HeapDominators dom = HeapDominators::compute(d.graph);
  const ProfileAnswer a = dominators_profile(d, dom, 3);
  EXPECT_EQ(render::folded(a),
            "ROOT(vm);Holder 8\n"
            "ROOT(vm);Holder;Item 8\n"
            "ROOT(vm);Holder;Item;Holder (repeated) (and deeper) 64\n");
}

TEST(RetainersProfile, AnInstanceInsideAnotherAddsNoRetainedBytes) {
  // Item 0x300 holds Item 0x310 which holds a String 0x320: the String's bytes count once.
  const std::string dump =
      kClasses + root("vm", {0x100}) + record(0x100, "OBJECT", 0x10, {0x300}, 40) +
      record(0x300, "OBJECT", 0x30, {0x310}, 100) + record(0x310, "OBJECT", 0x30, {0x320}, 200) +
      record(0x320, "STRING", 0x20, {}, 4000) + record(0x900, "OBJECT", 0x30, {}, 7);  // garbage
  const std::string path = ::testing::TempDir() + "/retainers_profile.json";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(dump.c_str(), f);
  std::fclose(f);
  Result<ProfileAnswer> a = answer_retainers_profile(path, "Item", {}, {});
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->types.back().type, "retained");
  // 0x300's retained bytes; 0x310 is inside it (and on the same path: a repeated step).
  EXPECT_EQ(render::folded(*a), "ROOT(vm);Holder;Item (repeated) 4300\n");
  EXPECT_EQ(totals(*a), (std::vector<int64_t>{3, 100 + 200 + 7, 4300}));
  std::remove(path.c_str());
}

TEST(SitesProfile, MemprofStacksOutermostFirstTheSiteInnermost) {
  const std::string dump =
      R"J({"type":"META", "format":"memprof", "version":1})J"
      "\n"
      R"J({"address":"0x10", "type":"CLASS", "name":"Order", "references":[], "memsize":0})J"
      "\n"
      R"J({"address":"0x500", "type":"OBJECT", "class":"0x10", "file":"/app/shop.rb", "line":3, "method":"buy", "stack":1, "memsize":40})J"
      "\n"
      R"J({"address":"0x510", "type":"OBJECT", "class":"0x10", "file":"/app/shop.rb", "line":3, "method":"buy", "stack":1, "memsize":40})J"
      "\n"
      R"J({"address":"0x520", "type":"OBJECT", "class":"0x10", "file":"/app/shop.rb", "line":3, "method":"buy", "memsize":24})J"
      "\n"
      R"J({"address":"0x530", "type":"STRING", "memsize":9})J"
      "\n"
      R"J({"type":"FRAME", "id":1, "file":"/app/shop.rb", "line":3, "method":"buy"})J"
      "\n"
      R"J({"type":"FRAME", "id":3, "file":"/app/app.rb", "line":12, "method":"serve"})J"
      "\n"
      R"J({"type":"STACK", "id":1, "frames":[1, 3]})J"
      "\n"
      R"J({"type":"END", "records":9})J"
      "\n";
  const LoadedDump d = loaded(dump);
  const ProfileAnswer a = sites_profile(d, nullptr);
  EXPECT_EQ(render::folded(a),
            "serve (/app/app.rb:12);buy (/app/shop.rb:3);Order 80\n"
            "buy (/app/shop.rb:3);Order 24\n"
            "(no allocation site);(hidden String) 9\n");
  // The class Order is an object too: without a site, of no bytes here.
  EXPECT_EQ(totals(a), (std::vector<int64_t>{5, 40 + 40 + 24 + 9}));
  using Labels = std::vector<std::pair<std::string, std::string>>;
  EXPECT_NE(std::find(a.label_sets.begin(), a.label_sets.end(),
                      Labels{{"class", "Order"}, {"type", "OBJECT"}}),
            a.label_sets.end());
}

TEST(SitesProfile, RetainedBytesAreAValueBeforeTheDefault) {
  const LoadedDump d = loaded(diamond());
  const HeapDominators dom = HeapDominators::compute(d.graph);
  const ProfileAnswer a = sites_profile(d, &dom);
  ASSERT_EQ(a.types.size(), 3u);
  EXPECT_EQ(a.types[1].type, "retained");
  EXPECT_EQ(a.types[2].type, "space");
}

}  // namespace
}  // namespace heapq
