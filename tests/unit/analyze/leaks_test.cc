// Leaks across dumps and in one dump: object matching, growth ranking, holders, set sizes.
#include "heapq/leaks.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "analyze/process_dumps.h"
#include "heapq/diff.h"
#include "heapq/dominators.h"
#include "heapq/dump_match.h"
#include "test_dumps.h"

namespace heapq {
namespace {

using testing::id;
using testing::kClasses;
using testing::load;
using testing::process_dump;
using testing::record;
using testing::root;
using testing::traced;

TEST(DumpMatch, MemprofSeqIsReadAndMatchesExactly) {
  const std::string meta = R"({"type":"META", "format":"memprof", "version":1})"
                           "\n";
  HeapGraph before = load(meta + kClasses + root("vm", {0x100, 0x200}) +
                          record(0x100, "OBJECT", 0x30, {}, 40, R"("seq":5, )") +
                          record(0x200, "OBJECT", 0x30, {}, 40, R"("seq":6, )") +
                          record(0x300, "OBJECT", 0x30, {}, 40));
  ASSERT_TRUE(before.has_seq());
  EXPECT_EQ(before.seq(id(before, 0x100)), 5u);
  EXPECT_EQ(before.seq(id(before, 0x300)), 0u) << "allocated before tracking started";
  // 0x100 is a new object at a reused address; 0x6 moved (GC.compact) to 0x400; 0x300 kept.
  HeapGraph after = load(meta + kClasses + root("vm", {0x100, 0x400}) +
                         record(0x100, "OBJECT", 0x30, {}, 40, R"("seq":9, )") +
                         record(0x400, "OBJECT", 0x30, {}, 40, R"("seq":6, )") +
                         record(0x300, "OBJECT", 0x30, {}, 40));
  ObjectMatcher m(before, after);
  EXPECT_EQ(m.method(), MatchMethod::kSeq);
  EXPECT_FALSE(m.existed_before(id(after, 0x100)));
  EXPECT_TRUE(m.existed_before(id(after, 0x400)));
  EXPECT_TRUE(m.existed_before(id(after, 0x300)));
}

TEST(DumpMatch, ReusedAddressesAreNewObjectsWhenTheGenerationTellsThemApart) {
  HeapGraph before = load(kClasses + root("vm", {0x100, 0x200, 0x300}) +
                          record(0x100, "OBJECT", 0x30, {}, 40, traced("a.rb", 1, 3).c_str()) +
                          record(0x200, "OBJECT", 0x30, {}, 40, traced("a.rb", 1, 3).c_str()) +
                          record(0x300, "OBJECT", 0x30, {}, 40, traced("a.rb", 1, 3).c_str()));
  HeapGraph after =
      load(kClasses + root("vm", {0x100, 0x200, 0x300}) +
           record(0x100, "OBJECT", 0x30, {}, 40, traced("a.rb", 1, 3).c_str()) +  // the same
           record(0x200, "OBJECT", 0x30, {}, 40, traced("a.rb", 1, 9).c_str()) +  // reused
           record(0x300, "STRING", 0x60, {}, 40, traced("a.rb", 1, 3).c_str()));  // another kind
  ObjectMatcher m(before, after);
  EXPECT_EQ(m.method(), MatchMethod::kGeneration);
  EXPECT_TRUE(m.existed_before(id(after, 0x100)));
  EXPECT_FALSE(m.existed_before(id(after, 0x200)));
  EXPECT_FALSE(m.existed_before(id(after, 0x300)));
}

TEST(DumpMatch, WithoutTracingByAddressAndClass) {
  HeapGraph before =
      load(kClasses + root("vm", {0x100, 0x200}) + record(0x100, "OBJECT", 0x30, {}, 40) +
           record(0x200, "OBJECT", 0x30, {}, 40));
  HeapGraph after =
      load(kClasses + root("vm", {0x100, 0x200}) + record(0x100, "OBJECT", 0x30, {}, 40) +
           record(0x200, "OBJECT", 0x50, {}, 40));
  ObjectMatcher m(before, after);
  EXPECT_EQ(m.method(), MatchMethod::kAddress);
  EXPECT_TRUE(m.existed_before(id(after, 0x100)));
  EXPECT_FALSE(m.existed_before(id(after, 0x200)));
}

// Memprof.stop; Memprof.start between two dumps: the objects of the first lose their seq in the
// second, and are still the same objects (matched by address, type and class).
TEST(DumpMatch, TrackingRestartedBetweenDumpsKeepsTheFirstDumpsObjects) {
  const std::string meta = R"({"type":"META", "format":"memprof", "version":1})"
                           "\n";
  std::string before = meta + kClasses, after = meta + kClasses;
  std::vector<uint64_t> first, second;
  for (int i = 0; i < 100; ++i) {
    first.push_back(0x10000 + 0x28 * i);
    const std::string seq = R"("seq":)" + std::to_string(1 + i) + ", ";
    before += record(first.back(), "OBJECT", 0x30, {}, 40, (traced("a.rb", 1, 3) + seq).c_str());
    after += record(first.back(), "OBJECT", 0x30, {}, 40);  // no seq since the restart
  }
  for (int i = 0; i < 200; ++i) {
    second.push_back(0x20000 + 0x28 * i);
    const std::string seq = R"("seq":)" + std::to_string(201 + i) + ", ";
    after += record(second.back(), "OBJECT", 0x30, {}, 40, (traced("a.rb", 1, 9) + seq).c_str());
  }
  // An object of another class at the address of one of the first dump is a new one.
  before += record(0x30000, "OBJECT", 0x30, {}, 40, R"("seq":150, )");
  after += record(0x30000, "OBJECT", 0x50, {}, 40);
  std::vector<uint64_t> held = first;
  held.insert(held.end(), second.begin(), second.end());
  held.push_back(0x30000);
  HeapGraph b = load(before + root("vm", first) + root("vm", {0x30000}));
  HeapGraph a = load(after + root("vm", held));
  ObjectMatcher m(b, a);
  EXPECT_EQ(m.method(), MatchMethod::kSeq);
  EXPECT_TRUE(m.existed_before(id(a, first[0])));
  EXPECT_FALSE(m.existed_before(id(a, 0x30000)));
  DumpDiff diff(b, a);
  EXPECT_EQ(diff.born(), 201u);
  EXPECT_EQ(diff.freed(), 1u);

  HeapDominators dom = HeapDominators::compute(a);
  LeakReport r = find_growing_leaks({&b, &a}, dom, LeakOptions());
  ASSERT_FALSE(r.suspects.empty());
  EXPECT_EQ(r.suspects[0].group.cls, "Item");
  EXPECT_EQ(r.suspects[0].count, 200u) << "the first dump's Items were there before";
}

TEST(Leaks, SteadyGrowthFirstThenWarmUpAndNoChurn) {
  HeapGraph d1 = load(process_dump(1)), d2 = load(process_dump(2)), d3 = load(process_dump(3));
  HeapDominators dom = HeapDominators::compute(d3);
  LeakReport r = find_growing_leaks({&d1, &d2, &d3}, dom, LeakOptions());
  EXPECT_EQ(r.match, MatchMethod::kGeneration);
  ASSERT_EQ(r.suspects.size(), 2u) << "the churning Sessions never grow";
  const LeakSuspect& leak = r.suspects[0];
  EXPECT_EQ(leak.group.cls, "Item");
  EXPECT_EQ(leak.group.file, "a.rb");
  EXPECT_EQ(leak.group.line, 1u);
  EXPECT_EQ(leak.growth, (std::vector<uint64_t>{20, 40, 60}));
  EXPECT_TRUE(leak.steady);
  EXPECT_TRUE(leak.growing);
  EXPECT_EQ(leak.count, 40u) << "born after the first dump";
  EXPECT_EQ(leak.bytes, 40u * 40);
  EXPECT_EQ(leak.holder, id(d3, 0x200));
  EXPECT_EQ(leak.holder_share, 40u);
  // The warm-up holds more memory but grew once: below the steady leak, and not growing now.
  const LeakSuspect& warm = r.suspects[1];
  EXPECT_EQ(warm.group.cls, "String");
  EXPECT_EQ(warm.growth, (std::vector<uint64_t>{0, 30, 30}));
  EXPECT_FALSE(warm.growing);
  EXPECT_GT(warm.bytes, leak.bytes);
  EXPECT_EQ(warm.holder, id(d3, 0x500));
  EXPECT_EQ(r.groups_growing, 1u);

  LeakOptions strict;
  strict.min_growth = 41;
  EXPECT_TRUE(find_growing_leaks({&d1, &d2, &d3}, dom, strict).suspects.empty());
}

// Without allocation tracing: no sites and no generations, objects matched by address and
// class; the growth by class and its holder are found all the same.
TEST(Leaks, WithoutTracingGrowthByClassAndHolder) {
  auto untraced = [](int d) {
    std::string out = kClasses + root("vm", {0x100});
    std::vector<uint64_t> items;
    for (int i = 0; i < 20 * d; ++i) items.push_back(0x10000 + 0x28 * i);
    out += record(0x100, "OBJECT", 0x10, {0x200}, 40) + record(0x200, "HASH", 0x20, items, 200);
    for (uint64_t a : items) out += record(a, "OBJECT", 0x30, {}, 40);
    return out;
  };
  HeapGraph d1 = load(untraced(1)), d2 = load(untraced(2)), d3 = load(untraced(3));
  HeapDominators dom = HeapDominators::compute(d3);
  LeakReport r = find_growing_leaks({&d1, &d2, &d3}, dom, LeakOptions());
  EXPECT_EQ(r.match, MatchMethod::kAddress);
  ASSERT_EQ(r.suspects.size(), 1u);
  EXPECT_EQ(r.suspects[0].group.cls, "Item");
  EXPECT_FALSE(r.suspects[0].group.has_site());
  EXPECT_EQ(r.suspects[0].growth, (std::vector<uint64_t>{20, 40, 60}));
  EXPECT_EQ(r.suspects[0].holder, id(d3, 0x200));
}

// memprof names where a Proc's block is written: leaks point there, not at the library line
// where the block became a Proc.
TEST(Leaks, ProcsGroupByWhereTheirBlockIsWritten) {
  auto dump = [](int d) {
    const std::string meta = R"({"type":"META", "format":"memprof", "version":1})"
                             "\n";
    std::vector<uint64_t> procs;
    for (int i = 0; i < 15 * d; ++i) procs.push_back(0x10000 + 0x28 * i);
    std::string out =
        meta + kClasses + root("vm", {0x100}) + record(0x100, "ARRAY", 0x40, procs, 40);
    for (size_t i = 0; i < procs.size(); ++i)
      out += record(procs[i], "DATA", 0x30, {}, 80,
                    (R"("file":"lib/bus.rb", "line":25, "method":"subscribe", "seq":)" +
                     std::to_string(100 + i) + R"(, "block":{"file":"app/views.rb", "line":7}, )")
                        .c_str());
    return out;
  };
  HeapGraph d1 = load(dump(1)), d2 = load(dump(2));
  const ObjectId proc = id(d2, 0x10000);
  ASSERT_TRUE(d2.block_site(proc).valid());
  EXPECT_EQ(d2.string(d2.site_info(d2.block_site(proc)).file), "app/views.rb");
  EXPECT_EQ(d2.string(d2.site_info(d2.site(proc)).file), "lib/bus.rb")
      << "the allocation site stays";
  EXPECT_EQ(d2.source_site(proc), d2.block_site(proc));
  EXPECT_FALSE(d2.block_site(id(d2, 0x100)).valid());
  HeapDominators dom = HeapDominators::compute(d2);
  LeakReport r = find_growing_leaks({&d1, &d2}, dom, LeakOptions());
  EXPECT_EQ(r.match, MatchMethod::kSeq);
  ASSERT_EQ(r.suspects.size(), 1u);
  EXPECT_EQ(r.suspects[0].group.file, "app/views.rb");
  EXPECT_EQ(r.suspects[0].group.line, 7u);
  EXPECT_EQ(r.suspects[0].group.method, "(block)");
  EXPECT_EQ(r.suspects[0].count, 15u);
  ASSERT_EQ(r.suspects[0].members.size(), 15u) << "what a picture of the suspect draws";
  for (ObjectId o : r.suspects[0].members) EXPECT_EQ(d2.source_site(o), d2.source_site(proc));
}

// A suspect's retained size is its group's (what freeing all of it frees), not the sum of what
// single members dominate: two Sessions that share a big String retain it together.
TEST(Leaks, SuspectRetainsWhatOnlyTheGroupHolds) {
  auto dump = [](int d) {
    std::string out = kClasses + root("vm", {0x100}) +
                      record(0x100, "ARRAY", 0x40, {0x200, 0x210}, 40) +
                      record(0x200, "OBJECT", 0x50, {0x300}, 40, traced("s.rb", 1, 1).c_str()) +
                      record(0x210, "OBJECT", 0x50, {0x300}, 40, traced("s.rb", 1, 1).c_str()) +
                      record(0x300, "STRING", 0x60, {}, 4'800'000);
    if (d == 1) return out;
    return kClasses + root("vm", {0x100}) + record(0x100, "ARRAY", 0x40, {0x200, 0x210}, 40) +
           record(0x200, "OBJECT", 0x50, {0x300}, 40, traced("s.rb", 1, 2).c_str()) +
           record(0x210, "OBJECT", 0x50, {0x300}, 40, traced("s.rb", 1, 2).c_str()) +
           record(0x300, "STRING", 0x60, {}, 4'800'000) +
           record(0x220, "OBJECT", 0x50, {}, 40, traced("s.rb", 1, 2).c_str());
  };
  // d1 is an empty heap but for the classes: every Session of d2 is born after it.
  HeapGraph d1 = load(kClasses + root("vm", {})), d2 = load(dump(2));
  HeapDominators dom = HeapDominators::compute(d2);
  LeakOptions options;
  options.min_growth = 1;
  LeakReport r = find_growing_leaks({&d1, &d2}, dom, options);
  const LeakSuspect* sessions = nullptr;
  for (const LeakSuspect& s : r.suspects)
    if (s.group.cls == "Session") sessions = &s;
  ASSERT_NE(sessions, nullptr);
  EXPECT_EQ(sessions->count, 2u) << "0x220 is garbage: never a suspect";
  EXPECT_EQ(sessions->retained_bytes, 40u + 40 + 4'800'000);
  EXPECT_EQ(dom.retained_bytes(id(d2, 0x200)), 40u);
}

// One dump: the allocation tracer's table is the profiler's, not the program's; a String that
// holds its memory itself is its own suspect.
TEST(Leaks, OneDumpSkipsTheProfilerAndNamesBigObjectsThemselves) {
  HeapGraph g =
      load(kClasses + root("vm", {0x100, 0x200, 0x300}) +
           record(0x100, "DATA", 0x10, {0x110}, 64'000'000,
                  R"("struct":"ObjectTracing/allocation_info_tracer", )") +
           record(0x110, "OBJECT", 0x30, {}, 40) + record(0x200, "ARRAY", 0x40, {0x210}, 80) +
           record(0x210, "STRING", 0x60, {}, 5'000'000) + record(0x300, "OBJECT", 0x10, {}, 1000));
  ASSERT_TRUE(g.class_info(g.class_of(id(g, 0x100))).profiler);
  HeapDominators dom = HeapDominators::compute(g);
  LeakReport r = find_accumulations(g, dom, LeakOptions());
  ASSERT_EQ(r.suspects.size(), 1u);
  EXPECT_EQ(r.suspects[0].holder, id(g, 0x210)) << "followed down from the Array";
  EXPECT_EQ(r.suspects[0].group.cls, "String");
  EXPECT_EQ(r.suspects[0].count, 1u);
  EXPECT_EQ(r.suspects[0].retained_bytes, 5'000'000u);
}

// A linked list: each node dominates the rest, and each one keeps most of its parent. What
// accumulates is the chain, held by the list, not its last node.
// One dump where no object retains the threshold: the three biggest accumulation points all the
// same, marked as below it; a threshold they cross finds them as usual.
TEST(Leaks, OneDumpBelowTheThresholdStillNamesTheBiggest) {
  std::string text = kClasses;
  std::vector<uint64_t> arrays;
  for (int a = 0; a < 20; ++a) {
    const uint64_t array = 0x100000 + 0x1000 * a;
    arrays.push_back(array);
    std::vector<uint64_t> items;
    for (int i = 0; i < 4 + a % 3; ++i) items.push_back(array + 0x28 * (i + 1));
    text += record(array, "ARRAY", 0x40, items, 40);
    for (uint64_t item : items) text += record(item, "OBJECT", 0x30, {}, 1000);
  }
  HeapGraph g = load(text + root("vm", arrays));
  HeapDominators dom = HeapDominators::compute(g);
  LeakReport r = find_accumulations(g, dom, LeakOptions());
  ASSERT_EQ(r.suspects.size(), 3u);
  EXPECT_TRUE(r.below_threshold);
  for (const LeakSuspect& s : r.suspects) EXPECT_EQ(s.group.cls, "Item");
  EXPECT_EQ(dom.retained_bytes(r.suspects[0].holder), 40u + 6 * 1000) << "an Array of six";
  LeakOptions low;
  low.threshold = 0.04;
  LeakReport crossing = find_accumulations(g, dom, low);
  EXPECT_FALSE(crossing.below_threshold);
  EXPECT_GT(crossing.suspects.size(), 3u);
}

TEST(Leaks, OneDumpStopsAtAChainsFirstNode) {
  std::string dump = kClasses + root("vm", {0x100});
  const int kLength = 2000;
  dump += record(0x100, "OBJECT", 0x10, {0x1000}, 40);
  for (int i = 0; i < kLength; ++i) {
    const uint64_t a = 0x1000 + 0x28 * i;
    dump += record(a, "OBJECT", 0x30,
                   i + 1 < kLength ? std::vector<uint64_t>{a + 0x28} : std::vector<uint64_t>{}, 40);
  }
  HeapGraph g = load(dump);
  HeapDominators dom = HeapDominators::compute(g);
  LeakReport r = find_accumulations(g, dom, LeakOptions());
  ASSERT_EQ(r.suspects.size(), 1u);
  EXPECT_EQ(r.suspects[0].holder, id(g, 0x100)) << "the list that holds the chain";
  EXPECT_EQ(r.suspects[0].group.cls, "Item");
  EXPECT_EQ(r.suspects[0].count, uint64_t(kLength));
  EXPECT_EQ(r.suspects[0].bytes, 40u * kLength);
}

TEST(Leaks, OneDumpFindsTheAccumulationPoint) {
  HeapGraph g = load(process_dump(3));
  HeapDominators dom = HeapDominators::compute(g);
  LeakOptions options;
  options.threshold = 0.10;
  LeakReport r = find_accumulations(g, dom, options);
  ASSERT_FALSE(r.suspects.empty());
  // The warm-up Array retains the most (30 x 400 bytes), then the Cache's Hash of Items.
  EXPECT_EQ(r.suspects[0].holder, id(g, 0x500));
  EXPECT_EQ(r.suspects[0].group.cls, "String");
  EXPECT_EQ(r.suspects[0].count, 30u);
  bool hash_found = false;
  for (const LeakSuspect& s : r.suspects)
    if (s.holder == id(g, 0x200)) {
      hash_found = true;
      EXPECT_EQ(s.group.cls, "Item");
      EXPECT_EQ(s.count, 60u);
      ASSERT_FALSE(s.sites.empty());
      EXPECT_EQ(s.sites[0].first.file, "a.rb");
    }
  EXPECT_TRUE(hash_found) << "the Cache's Hash, followed down from the Cache";
}

// One dump: a Proc grouped by where its block is written counts there even when the dump has no
// allocation site for it.
TEST(Leaks, OneDumpNamesTheBlockOfProcsWithoutAnAllocationSite) {
  std::vector<uint64_t> procs;
  for (int i = 0; i < 20; ++i) procs.push_back(0x10000 + 0x28 * i);
  std::string dump = R"({"type":"META", "format":"memprof", "version":1})"
                     "\n" +
                     kClasses + root("vm", {0x100}) + record(0x100, "ARRAY", 0x40, procs, 40);
  for (uint64_t p : procs)
    dump += record(p, "DATA", 0x30, {}, 80, R"("block":{"file":"app/views.rb", "line":7}, )");
  HeapGraph g = load(dump);
  ASSERT_FALSE(g.site(id(g, procs[0])).valid());
  ASSERT_TRUE(g.source_site(id(g, procs[0])).valid());
  HeapDominators dom = HeapDominators::compute(g);
  LeakReport r = find_accumulations(g, dom, LeakOptions());
  ASSERT_EQ(r.suspects.size(), 1u);
  EXPECT_EQ(r.suspects[0].group.file, "app/views.rb");
  EXPECT_EQ(r.suspects[0].group.line, 7u);
  ASSERT_EQ(r.suspects[0].sites.size(), 1u);
  EXPECT_EQ(r.suspects[0].sites[0].second, 20u);
}

// The accumulation point's members, not every object of their class and site: 5 more Items
// of the same line live elsewhere, and a picture of the suspect must not draw them.
std::string hash_of_items_dump() {
  std::string dump = kClasses + root("vm", {0x100, 0x300});
  std::vector<uint64_t> held, elsewhere;
  for (int i = 0; i < 60; ++i) held.push_back(0x10000 + 0x28 * i);
  for (int i = 0; i < 5; ++i) elsewhere.push_back(0x20000 + 0x28 * i);
  dump += record(0x100, "OBJECT", 0x10, {0x200}, 40) + record(0x200, "HASH", 0x20, held, 40) +
          record(0x300, "ARRAY", 0x40, elsewhere, 40);
  for (uint64_t a : held) dump += record(a, "OBJECT", 0x30, {}, 400, traced("a.rb", 1, 1).c_str());
  for (uint64_t a : elsewhere)
    dump += record(a, "OBJECT", 0x30, {}, 40, traced("a.rb", 1, 1).c_str());
  return dump;
}

TEST(Leaks, OneDumpSuspectCarriesItsMembers) {
  HeapGraph g = load(hash_of_items_dump());
  HeapDominators dom = HeapDominators::compute(g);
  LeakReport r = find_accumulations(g, dom, LeakOptions());
  ASSERT_EQ(r.suspects.size(), 1u);
  const LeakSuspect& s = r.suspects[0];
  EXPECT_EQ(s.holder, id(g, 0x200));
  EXPECT_EQ(s.count, 60u);
  ASSERT_EQ(s.members.size(), 60u);
  for (ObjectId o : s.members) EXPECT_EQ(dom.idom(o), id(g, 0x200));
}

// heapq report draws a suspect's members (60), not the 65 Items of its class and line.
TEST(Leaks, ReportPicturesTheSuspectsMembers) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("heapq-leaks-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string dump = (dir / "one.json").string(), html = (dir / "report.html").string();
  std::ofstream(dump) << hash_of_items_dump();
  testing::CliRun run = testing::run_cli({"--quiet", "report", "-o", html, dump});
  ASSERT_EQ(run.status, 0) << run.err;
  std::ifstream in(html);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove_all(dir);
  EXPECT_NE(text.find("in the last dump: 60 objects"), std::string::npos);
  EXPECT_EQ(text.find("in the last dump: 65 objects"), std::string::npos);
}

// heapq viz names the holder heapq leaks names: never one of the targets themselves. The first
// Item holds the other ten; the Cache holds them all.
// The holders of many groups at once are each group's holder as one group's walk finds it:
// from the roots down the dominator tree while a child holds more than half and is not a
// member, else the object that references the most members (the first of equals).
TEST(Leaks, HoldersOfManyGroupsAreEachGroupsOwn) {
  std::mt19937 random(7);
  int by_dominator = 0, by_references = 0;
  for (int round = 0; round < 40; ++round) {
    const int objects = 30 + static_cast<int>(random() % 300),
              groups = 1 + static_cast<int>(random() % 12);
    std::string text = kClasses;
    std::vector<uint64_t> roots;
    // Mostly a tree (each object's parent a few numbers below it), with some sharing, cycles
    // and fan-in, and a few more roots.
    std::vector<std::vector<uint64_t>> refs(objects);
    for (int i = 1; i < objects; ++i) {
      refs[i - 1 - random() % std::min(i, 8)].push_back(0x1000 + 0x28 * i);
      if (random() % 5 == 0) refs[random() % objects].push_back(0x1000 + 0x28 * i);
      if (random() % 40 == 0) roots.push_back(0x1000 + 0x28 * i);
    }
    for (int i = 0; i < objects; ++i)
      text += record(0x1000 + 0x28 * i, "OBJECT", 0x30, refs[i], 40 + random() % 100);
    roots.push_back(0x1000);
    HeapGraph g = load(text + root("vm", roots));
    const HeapDominators dom = HeapDominators::compute(g);
    std::vector<uint32_t> group_of(g.object_count(), UINT32_MAX);
    for (uint32_t i = 0; i < g.object_count(); ++i)
      if (dom.reachable(ObjectId(i)) && random() % 3 != 0)  // near objects mostly in one group
        group_of[i] =
            random() % 4 ? i * groups / g.object_count() : static_cast<uint32_t>(random() % groups);
    const auto holders = find_holders(g, dom, group_of, static_cast<size_t>(groups));
    for (uint32_t k = 0; k < static_cast<uint32_t>(groups); ++k) {
      std::vector<uint64_t> weight(g.object_count() + 1, 0);
      uint64_t members = 0;
      for (uint32_t i = 0; i < g.object_count(); ++i) members += weight[i] = group_of[i] == k;
      const std::vector<uint64_t> sums = dom.subtree_sums(weight);
      ObjectId v = g.virtual_root();
      for (;;) {
        ObjectId best;
        for (ObjectId c : dom.unordered_children(v))
          if (!best.valid() || sums[c.value()] > sums[best.value()]) best = c;
        if (!best.valid() || group_of[best.value()] == k || sums[best.value()] * 2 <= members)
          break;
        v = best;
      }
      std::pair<ObjectId, uint64_t> expected{ObjectId::none(), 0};
      if (v != g.virtual_root()) {
        expected = {v, sums[v.value()]};
        ++by_dominator;
      } else {
        ++by_references;
        for (uint32_t i = 0; i < g.object_count(); ++i) {
          if (group_of[i] == k || !g.retains_from(i) || !dom.reachable(ObjectId(i))) continue;
          uint64_t refs = 0;
          for (ObjectId t : g.references(ObjectId(i))) refs += group_of[t.value()] == k;
          if (refs > expected.second) expected = {ObjectId(i), refs};
        }
      }
      EXPECT_EQ(holders[k], expected) << "round " << round << ", group " << k << " of " << members;
    }
  }
  EXPECT_GT(by_dominator, 20);
  EXPECT_GT(by_references, 20);
}

TEST(Leaks, VizDrawsTheHolderLeaksNames) {
  std::vector<uint64_t> rest;
  for (int i = 1; i <= 10; ++i) rest.push_back(0x1000 + 0x28 * i);
  std::string text = kClasses + root("vm", {0x100}) + record(0x100, "OBJECT", 0x10, {0x1000}, 40) +
                     record(0x1000, "OBJECT", 0x30, rest, 40);
  for (uint64_t a : rest) text += record(a, "OBJECT", 0x30, {}, 40);
  HeapGraph g = load(text);
  HeapDominators dom = HeapDominators::compute(g);
  std::vector<bool> in_set(g.object_count(), false);
  for (uint32_t i = 0; i < g.object_count(); ++i)
    in_set[i] = g.class_name(g.class_of(ObjectId(i))) == "Item";
  EXPECT_EQ(find_holder(g, dom, in_set).first, id(g, 0x100));

  const auto dir =
      std::filesystem::temp_directory_path() / ("heapq-viz-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string dump = (dir / "one.json").string();
  std::ofstream(dump) << text;
  testing::CliRun run = testing::run_cli({"--quiet", "viz", dump, "Item"});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(run.status, 0) << run.err;
  const size_t holder = run.out.find("the holder");
  ASSERT_NE(holder, std::string::npos) << run.out;
  const size_t line = run.out.rfind('\n', holder) + 1;
  EXPECT_NE(run.out.substr(line, holder - line).find("Cache"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace heapq
