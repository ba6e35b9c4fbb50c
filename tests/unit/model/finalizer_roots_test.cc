// The finalizer table holds an object's finalizers only until that object dies: memprof writes
// the object of each entry ("owners"), and an entry whose object is dead is no root.
#include <gtest/gtest.h>

#include <string>

#include "heapq/analyze/dominators.h"
#include "test_dumps.h"

namespace heapq {
namespace {

ObjectId at(const HeapGraph& g, uint64_t address) {
  auto id = g.find(address);
  EXPECT_TRUE(id.has_value()) << std::hex << address;
  return id.value_or(ObjectId::none());
}

// 0x110 is alive (held by 0x100); 0x120 is dead, not yet swept; 0x130 is not in the dump (a
// fork's dump leaves out the garbage); 0x140 is held only by its own finalizer, which keeps it
// alive in Ruby too; 0x150 is swept, its finalizer not yet run (a ZOMBIE).
constexpr const char* kRoots =
    R"({"type":"ROOT","root":"vm","references":["0x100"]})"
    "\n"
    R"({"type":"ROOT","root":"finalizers","references":["0x200","0x210","0x220","0x230","0x270"])";
constexpr const char* kObjects =
    R"({"address":"0x100","type":"ARRAY","references":["0x110"]})"
    "\n"
    R"({"address":"0x110","type":"OBJECT","references":[]})"
    "\n"
    R"({"address":"0x120","type":"OBJECT","references":[]})"
    "\n"
    R"({"address":"0x140","type":"OBJECT","references":[]})"
    "\n"
    R"({"address":"0x150","type":"ZOMBIE"})"
    "\n"
    R"({"address":"0x200","type":"ARRAY","references":["0x240"]})"
    "\n"
    R"({"address":"0x210","type":"ARRAY","references":["0x250"]})"
    "\n"
    R"({"address":"0x220","type":"ARRAY","references":["0x260"]})"
    "\n"
    R"({"address":"0x230","type":"ARRAY","references":["0x280"]})"
    "\n"
    R"({"address":"0x270","type":"ARRAY","references":[]})"
    "\n"
    R"({"address":"0x240","type":"DATA","references":[],"memsize":100})"
    "\n"
    R"({"address":"0x250","type":"DATA","references":["0x290"],"memsize":100})"
    "\n"
    R"({"address":"0x260","type":"DATA","references":[],"memsize":100})"
    "\n"
    R"({"address":"0x280","type":"DATA","references":["0x140"],"memsize":100})"
    "\n"
    R"({"address":"0x290","type":"STRING","references":[],"memsize":1000})"
    "\n";

TEST(FinalizerRoots, EntriesOfDeadObjectsAreNoRoots) {
  const std::string dump = std::string(kRoots) +
                           R"(,"owners":["0x110","0x120","0x130","0x140","0x150"]})"
                           "\n" +
                           kObjects;
  auto [graph, report] = testing::load_text(dump);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  const HeapGraph& g = graph.value();
  EXPECT_EQ(report.dead_finalizers, 3u);
  EXPECT_EQ(report.dangling_references, 0u);  // an owner left out of the dump is no dangling one
  ASSERT_EQ(g.roots().size(), 3u);
  EXPECT_EQ(g.roots()[1].target, at(g, 0x200));
  EXPECT_EQ(g.roots()[2].target, at(g, 0x230));
  const HeapDominators dom = HeapDominators::compute(g);
  for (uint64_t alive : {0x110, 0x200, 0x240, 0x230, 0x280, 0x140})
    EXPECT_TRUE(dom.reachable(at(g, alive))) << std::hex << alive;
  for (uint64_t garbage : {0x120, 0x210, 0x250, 0x290, 0x220, 0x260, 0x270})
    EXPECT_FALSE(dom.reachable(at(g, garbage))) << std::hex << garbage;
  EXPECT_EQ(dom.retained_bytes(at(g, 0x230)), 100u);
}

// An ObjectSpace dump does not say whose finalizers they are: every entry stays a root.
TEST(FinalizerRoots, WithoutOwnersEveryEntryIsARoot) {
  auto [graph, report] = testing::load_text(std::string(kRoots) + "}\n" + kObjects);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  EXPECT_EQ(report.dead_finalizers, 0u);
  EXPECT_EQ(graph.value().roots().size(), 6u);
}

TEST(FinalizerRoots, OwnersMustMatchTheReferences) {
  for (const char* owners : {R"(,"owners":["0x110"]})", R"(,"owners":[1,2,3,4,5]})",
                             R"(,"owners":"0x110"})", R"(,"owners":[{},{},{},{},{}]})"}) {
    SCOPED_TRACE(owners);
    auto [graph, report] = testing::load_text(std::string(kRoots) + owners + "\n" + kObjects);
    ASSERT_TRUE(graph.ok());
    EXPECT_EQ(report.bad_lines, 1u);
    ASSERT_FALSE(report.first_bad_lines.empty());
    EXPECT_NE(report.first_bad_lines[0].message.find("owners"), std::string::npos)
        << report.first_bad_lines[0].message;
  }
}

}  // namespace
}  // namespace heapq
