// A Proc's site reads alike in memprof's and ObjectSpace's dumps where both know it, and as
// Ruby's backtraces name a block where only memprof's block line tells more.
#include <gtest/gtest.h>

#include <string>

#include "test_dumps.h"

namespace heapq {
namespace {

// A Proc record at 0x1000, with fields after its type.
std::string proc_dump(const std::string& fields) {
  return R"({"address":"0x1000", "type":"DATA", "memsize":80, )" + fields + "}\n";
}

std::string source_of(const HeapGraph& g) {
  const SiteId s = g.source_site(ObjectId(0));
  if (!s.valid()) return "(none)";
  const Site& site = g.site_info(s);
  return std::string(g.string(site.file)) + ":" + std::to_string(site.line) + " in " +
         std::string(g.string(site.method));
}

// `at_exit { close }`: the C method at_exit made the Proc on the line its block is written.
TEST(BlockSites, AProcMadeWhereItsBlockIsWrittenIsNamedByWhatMadeIt) {
  const std::string site = R"("file":"client.rb", "line":58, "method":"at_exit")";
  const HeapGraph objectspace = testing::load_graph(proc_dump(site));
  const HeapGraph memprof = testing::load_graph(proc_dump(
      site + R"(, "block":{"file":"client.rb", "line":58, "method":"block in initialize"})"));
  EXPECT_EQ(source_of(objectspace), "client.rb:58 in at_exit");
  EXPECT_EQ(source_of(memprof), source_of(objectspace));
  EXPECT_TRUE(memprof.block_site(ObjectId(0)).valid()) << "the block's line stays known";
}

// A block handed to a library's subscribe(&block): its line is the app's, labelled as Ruby's
// backtraces label it.
TEST(BlockSites, AProcMadeElsewhereIsNamedByItsBlockAsRubyLabelsIt) {
  const HeapGraph memprof = testing::load_graph(
      proc_dump(R"("file":"lib/bus.rb", "line":25, "method":"subscribe", )"
                R"("block":{"file":"app/views.rb", "line":7, "method":"block in render"})"));
  EXPECT_EQ(source_of(memprof), "app/views.rb:7 in block in render");
  // A dump that does not name the block (memprof before it did) still gives its line.
  const HeapGraph unnamed =
      testing::load_graph(proc_dump(R"("file":"lib/bus.rb", "line":25, "method":"subscribe", )"
                                    R"("block":{"file":"app/views.rb", "line":7})"));
  EXPECT_EQ(source_of(unnamed), "app/views.rb:7 in (block)");
}

}  // namespace
}  // namespace heapq
