// Leaks across dumps and in one dump: object matching, growth ranking, holders, set sizes.
#include "heapq/analyze/leaks.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "analyze/process_dumps.h"
#include "cli_run.h"
#include "heapq/analyze/diff.h"
#include "heapq/analyze/dominators.h"
#include "heapq/analyze/dump_match.h"
#include "heapq/analyze/retainers.h"
#include "test_dumps.h"

namespace heapq {
namespace {

using testing::id;
using testing::kClasses;
using testing::kClassRoots;
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
  ASSERT_FALSE(r.leaks.empty());
  EXPECT_EQ(r.leaks[0].groups[0].group.cls, "Item");
  EXPECT_EQ(r.leaks[0].count, 200u) << "the first dump's Items were there before";
}

TEST(Leaks, SteadyGrowthFirstThenWarmUpAndNoChurn) {
  HeapGraph d1 = load(process_dump(1)), d2 = load(process_dump(2)), d3 = load(process_dump(3));
  HeapDominators dom = HeapDominators::compute(d3);
  LeakReport r = find_growing_leaks({&d1, &d2, &d3}, dom, LeakOptions());
  EXPECT_EQ(r.match, MatchMethod::kGeneration);
  ASSERT_EQ(r.leaks.size(), 2u) << "the churning Sessions never grow";
  const Leak& leak = r.leaks[0];
  ASSERT_EQ(leak.groups.size(), 1u);
  EXPECT_EQ(leak.groups[0].group.cls, "Item");
  EXPECT_EQ(leak.groups[0].group.file, "a.rb");
  EXPECT_EQ(leak.groups[0].group.line, 1u);
  EXPECT_EQ(leak.groups[0].growth, (std::vector<uint64_t>{20, 40, 60}));
  EXPECT_EQ(leak.growth, leak.groups[0].growth);
  EXPECT_TRUE(leak.steady);
  EXPECT_TRUE(leak.growing);
  EXPECT_EQ(leak.count, 40u) << "born after the first dump";
  EXPECT_EQ(leak.bytes, 40u * 40);
  EXPECT_EQ(leak.holder, id(d3, 0x200));
  EXPECT_EQ(leak.holder_share, 40u);
  // The warm-up holds more memory but grew once: below the steady leak, and not growing now.
  const Leak& warm = r.leaks[1];
  EXPECT_EQ(warm.groups[0].group.cls, "String");
  EXPECT_EQ(warm.growth, (std::vector<uint64_t>{0, 30, 30}));
  EXPECT_FALSE(warm.growing);
  EXPECT_GT(warm.bytes, leak.bytes);
  EXPECT_EQ(warm.holder, id(d3, 0x500));
  EXPECT_EQ(r.groups_growing, 1u);
  EXPECT_EQ(r.groups, 2u);
  EXPECT_EQ(r.found, 2u);

  LeakOptions strict;
  strict.min_growth = 41;
  EXPECT_TRUE(find_growing_leaks({&d1, &d2, &d3}, dom, strict).leaks.empty());
}

// Finalizers registered per request: the finalizer table (a GC root, no object) holds each
// Session, which holds one Item. No object holds the Items; the Sessions do, one each (an Array
// made before the first dump keeps the first Item of each round as well): one leak, held by the
// root.
TEST(Leaks, GroupsHeldOneByOneByAnothersObjectsJoinItAndARootHoldsThem) {
  auto dump = [](int d) {
    std::string out = kClasses + kClassRoots;
    std::vector<uint64_t> sessions, kept;
    for (int i = 0; i < 20 * d; ++i) sessions.push_back(0x10000 + 0x28 * i);
    for (int i = 0; i < d; ++i) kept.push_back(0x80000 + 0x28 * 20 * i);
    out += root("finalizers", sessions) + root("global_tbl", {0x900});
    out += record(0x900, "ARRAY", 0x40, kept, 80);
    for (size_t i = 0; i < sessions.size(); ++i) {
      const uint64_t item = 0x80000 + 0x28 * i;
      out += record(sessions[i], "OBJECT", 0x50, {item}, 40,
                    traced("f.rb", 1, int(i / 20) + 1).c_str());
      out += record(item, "OBJECT", 0x30, {}, 40, traced("f.rb", 2, int(i / 20) + 1).c_str());
    }
    return out;
  };
  HeapGraph d1 = load(dump(1)), d2 = load(dump(2)), d3 = load(dump(3));
  HeapDominators dom = HeapDominators::compute(d3);
  LeakReport r = find_growing_leaks({&d1, &d2, &d3}, dom, LeakOptions());
  ASSERT_EQ(r.leaks.size(), 1u);
  const Leak& leak = r.leaks[0];
  EXPECT_EQ(leak.groups.size(), 2u);
  EXPECT_EQ(leak.count, 80u);
  EXPECT_FALSE(leak.holder.valid());
  EXPECT_EQ(d3.string(leak.holder_root), "finalizers");
  EXPECT_EQ(leak.holder_share, 40u) << "the Sessions born after the first dump";
}

// VM caches that warm up as code runs (IMEMO:callcache) and what memprof's own module holds grow
// too, steadily even: the program's leaks rank above them, the warm-up included.
// memprof's own objects (its modules' state, its tracker) are never the program's leak: left
// out, counted as the profiler's overhead. VM caches alone rank after the program's leaks.
TEST(Leaks, VmCachesRankLastAndMemprofsOwnObjectsAreLeftOut) {
  auto dump = [](int d) {
    std::string out = process_dump(d);
    out += root("vm", {0x900, 0x70});
    std::vector<uint64_t> caches, own;
    for (int i = 0; i < 50 * d; ++i) caches.push_back(0x40000 + 0x28 * i);
    for (int i = 0; i < 60 * d; ++i) own.push_back(0x50000 + 0x28 * i);
    out += record(0x900, "ARRAY", 0x40, caches, 80);
    for (size_t i = 0; i < caches.size(); ++i) {
      const std::string extra =
          R"("imemo_type":"callcache", )" + traced("a.rb", 9, int(i / 50) + 1);
      out += record(caches[i], "IMEMO", 0, {}, 40, extra.c_str());
    }
    out += record(0x70, "MODULE", 0x40, {0x910}, 0, R"("name":"Memprof::Signal", )") +
           record(0x910, "ARRAY", 0x40, own, 80);
    for (size_t i = 0; i < own.size(); ++i)
      out +=
          record(own[i], "STRING", 0x60, {}, 40, traced("signal.rb", 5, int(i / 60) + 1).c_str());
    return out;
  };
  HeapGraph d1 = load(dump(1)), d2 = load(dump(2)), d3 = load(dump(3));
  HeapDominators dom = HeapDominators::compute(d3);
  LeakReport r = find_growing_leaks({&d1, &d2, &d3}, dom, LeakOptions());
  ASSERT_EQ(r.leaks.size(), 3u);
  EXPECT_EQ(r.found, 3u);
  EXPECT_EQ(r.leaks[0].groups[0].group.cls, "Item");
  EXPECT_EQ(r.leaks[1].groups[0].group.cls, "String") << "the warm-up: grew once";
  EXPECT_EQ(r.leaks[1].groups[0].group.file, "b.rb");
  EXPECT_EQ(r.leaks[2].groups[0].group.file, "a.rb");
  EXPECT_TRUE(r.leaks[2].steady);
  EXPECT_EQ(r.profiler_bytes, 80u + 180 * 40) << "Memprof::Signal's Array and its Strings";
  EXPECT_EQ(r.heap_bytes + r.profiler_bytes, dom.retained_bytes(d3.virtual_root()));
  for (const Leak& leak : r.leaks)
    for (ObjectId o : leak.members) EXPECT_LT(d3.address(o), 0x50000u) << "memprof's String";
}

// A tracker that held the program's code (memprof before it stopped marking) and what only it
// holds are memprof's, on old dumps too: not the program's leak, its bytes the profiler's.
TEST(Leaks, WhatMemprofsTrackerHoldsIsTheProfilers) {
  auto dump = [](int d) {
    std::string out = process_dump(d);
    out += root("vm", {0x70});
    std::vector<uint64_t> iseqs;
    for (int i = 0; i < 40 * d; ++i) iseqs.push_back(0x50000 + 0x28 * i);
    out += record(0x70, "DATA", 0, iseqs, 100, R"("struct":"memprof/tracker", )");
    for (size_t i = 0; i < iseqs.size(); ++i)
      out += record(iseqs[i], "IMEMO", 0, {}, 1000,
                    (R"("imemo_type":"iseq", )" + traced("job.rb", 5, int(i / 40) + 1)).c_str());
    return out;
  };
  HeapGraph d1 = load(dump(1)), d2 = load(dump(2)), d3 = load(dump(3));
  HeapDominators dom = HeapDominators::compute(d3);
  LeakReport r = find_growing_leaks({&d1, &d2, &d3}, dom, LeakOptions());
  ASSERT_FALSE(r.leaks.empty());
  for (const Leak& leak : r.leaks)
    for (const LeakGroup& g : leak.groups) EXPECT_NE(g.group.cls, "IMEMO:iseq");
  EXPECT_EQ(r.profiler_bytes, 100u + 120 * 1000);
}

// Growing groups with one holder are one leak, and so are those held by an object of another
// growing group: the Items of a cache and their Strings; the Sessions of an Array and the Tasks
// one of those Sessions keeps. A growing Array of Strings elsewhere is a leak of its own.
TEST(Leaks, GroupsOneObjectHoldsAreOneLeak) {
  auto dump = [](int d) {
    std::string out = kClasses + root("vm", {0x100, 0x500, 0x800});
    std::vector<uint64_t> items, sessions, logs, tasks;
    for (int i = 0; i < 20 * d; ++i) items.push_back(0x10000 + 0x28 * i);
    for (int i = 0; i < 20 * d; ++i) sessions.push_back(0x60000 + 0x28 * i);
    for (int i = 0; i < 15 * d; ++i) logs.push_back(0x80000 + 0x28 * i);
    for (int i = 0; i < 30 * (d - 1); ++i) tasks.push_back(0x70000 + 0x28 * i);
    out += record(0x100, "OBJECT", 0x10, {0x200}, 40) + record(0x200, "HASH", 0x20, items, 200) +
           record(0x500, "ARRAY", 0x40, sessions, 80) + record(0x800, "ARRAY", 0x40, logs, 80);
    for (size_t i = 0; i < items.size(); ++i) {
      const int gen = static_cast<int>(i / 20) + 1;
      out += record(items[i], "OBJECT", 0x30, {0x40000 + 0x28 * i}, 40,
                    traced("a.rb", 1, gen).c_str()) +
             record(0x40000 + 0x28 * i, "STRING", 0x60, {}, 40, traced("a.rb", 2, gen).c_str());
    }
    for (size_t i = 0; i < sessions.size(); ++i)
      out += record(sessions[i], "OBJECT", 0x50, i == 20 ? tasks : std::vector<uint64_t>{}, 40,
                    traced("c.rb", 3, static_cast<int>(i / 20) + 1).c_str());
    for (size_t i = 0; i < tasks.size(); ++i)
      out += record(tasks[i], "OBJECT", 0x30, {}, 40,
                    traced("d.rb", 4, static_cast<int>(i / 30) + 2).c_str());
    for (size_t i = 0; i < logs.size(); ++i)
      out += record(logs[i], "STRING", 0x60, {}, 40,
                    traced("e.rb", 5, static_cast<int>(i / 15) + 1).c_str());
    return out;
  };
  HeapGraph d1 = load(dump(1)), d2 = load(dump(2)), d3 = load(dump(3));
  HeapDominators dom = HeapDominators::compute(d3);
  LeakReport r = find_growing_leaks({&d1, &d2, &d3}, dom, LeakOptions());
  EXPECT_EQ(r.groups, 5u);
  EXPECT_EQ(r.found, 3u);
  ASSERT_EQ(r.leaks.size(), 3u);
  auto sites = [](const Leak& leak) {
    std::vector<std::string> out;
    for (const LeakGroup& g : leak.groups)
      out.push_back(g.group.cls + " " + g.group.file + ":" + std::to_string(g.group.line));
    std::sort(out.begin(), out.end());
    return out;
  };
  std::map<uint64_t, const Leak*> by_holder;
  for (const Leak& leak : r.leaks) by_holder[d3.address(leak.holder)] = &leak;
  ASSERT_EQ(by_holder.size(), 3u) << "three holders";
  ASSERT_TRUE(by_holder.count(0x200) && by_holder.count(0x500) && by_holder.count(0x800));
  EXPECT_EQ(sites(*by_holder[0x200]), (std::vector<std::string>{"Item a.rb:1", "String a.rb:2"}));
  EXPECT_EQ(sites(*by_holder[0x500]), (std::vector<std::string>{"Item d.rb:4", "Session c.rb:3"}))
      << "the Tasks are held by a Session, itself growing";
  EXPECT_EQ(sites(*by_holder[0x800]), (std::vector<std::string>{"String e.rb:5"}));
  const Leak& cache = *by_holder[0x200];
  EXPECT_EQ(cache.count, 80u) << "40 Items and their 40 Strings born after the first dump";
  EXPECT_EQ(cache.holder_share, 80u);
  EXPECT_EQ(cache.growth, (std::vector<uint64_t>{40, 80, 120}));
  EXPECT_EQ(cache.members.size(), 80u);
  EXPECT_EQ(cache.retained_bytes, 80u * 40);
  const Leak& sessions = *by_holder[0x500];
  EXPECT_EQ(sessions.count, 40u + 60) << "40 Sessions, 60 Tasks";
  EXPECT_EQ(sessions.growth, (std::vector<uint64_t>{20, 70, 120}));

  LeakOptions one;
  one.top = 1;
  LeakReport top = find_growing_leaks({&d1, &d2, &d3}, dom, one);
  ASSERT_EQ(top.leaks.size(), 1u);
  EXPECT_EQ(top.found, 3u);
  EXPECT_EQ(top.leaks[0].holder, r.leaks[0].holder) << "--top keeps the first";
  EXPECT_EQ(top.leaks[0].retained_bytes, r.leaks[0].retained_bytes);
}

// The query cache: its Hash keys each query's String and holds, under the one Hash of a query
// seen before the first dump, that query's results. The results' holder lies inside the keys'
// holder: one leak held by the outer Hash, its bytes counted once.
TEST(Leaks, AHolderInsideAnothersIsTheSameLeak) {
  auto dump = [](int d) {
    std::string out = kClasses + kClassRoots + root("vm", {0x100});
    std::vector<uint64_t> keys, results;
    for (int i = 0; i < 20 * d; ++i) keys.push_back(0x10000 + 0x28 * i);
    for (int i = 0; i < 30 * d; ++i) results.push_back(0x40000 + 0x28 * i);
    std::vector<uint64_t> outer = keys;
    outer.push_back(0x300);
    out += record(0x100, "OBJECT", 0x10, {0x200}, 40) + record(0x200, "HASH", 0x20, outer, 200) +
           record(0x300, "HASH", 0x20, results, 200);
    for (size_t i = 0; i < keys.size(); ++i)
      out += record(keys[i], "STRING", 0x60, {}, 40, traced("k.rb", 1, int(i / 20) + 1).c_str());
    for (size_t i = 0; i < results.size(); ++i)
      out += record(results[i], "OBJECT", 0x30, {}, 40, traced("r.rb", 2, int(i / 30) + 1).c_str());
    return out;
  };
  HeapGraph d1 = load(dump(1)), d2 = load(dump(2)), d3 = load(dump(3));
  HeapDominators dom = HeapDominators::compute(d3);
  LeakReport r = find_growing_leaks({&d1, &d2, &d3}, dom, LeakOptions());
  EXPECT_EQ(r.groups, 2u);
  EXPECT_EQ(r.found, 1u);
  ASSERT_EQ(r.leaks.size(), 1u);
  EXPECT_EQ(d3.address(r.leaks[0].holder), 0x200u) << "the outer Hash";
  EXPECT_EQ(r.leaks[0].count, 40u + 60);
  EXPECT_EQ(r.leaks[0].retained_bytes, 100u * 40);
}

// Ruby's symbol table (ObjectSpace's dumps do not name it): Symbols made per request leave
// their names in its chunks; the table holds the leak, not the chunk holding most of it.
TEST(Leaks, TheSymbolTableHoldsItsChunksNames) {
  auto dump = [](int d) {
    std::string out = kClasses + kClassRoots + root("vm", {0x100});
    std::vector<uint64_t> chunk1, chunk2;
    for (int i = 0; i < 40; ++i) chunk1.push_back(0x10000 + 0x28 * i);  // old names
    for (int i = 0; i < 30 * d; ++i) (i < 40 ? chunk1 : chunk2).push_back(0x20000 + 0x28 * i);
    out += record(0x100, "ARRAY", 0, {0x110, 0x120}, 80) + record(0x110, "ARRAY", 0, chunk1, 8000) +
           record(0x120, "ARRAY", 0, chunk2, 8000);
    for (int i = 0; i < 40; ++i)
      out += record(0x10000 + 0x28 * i, "STRING", 0x60, {}, 40, traced("a.rb", 1, 1).c_str());
    for (int i = 0; i < 30 * d; ++i)
      out += record(0x20000 + 0x28 * i, "STRING", 0x60, {}, 40,
                    traced("template.rb", 300, i / 30 + 1).c_str());
    return out;
  };
  HeapGraph d1 = load(dump(1)), d2 = load(dump(2)), d3 = load(dump(3));
  HeapDominators dom = HeapDominators::compute(d3);
  EXPECT_TRUE(is_symbol_table(d3, id(d3, 0x100)));
  EXPECT_FALSE(is_symbol_table(d3, id(d3, 0x110))) << "a chunk holds Strings, not Arrays";
  EXPECT_EQ(describe(d3, id(d3, 0x100)), "symbol table (hidden Array)");
  LeakReport r = find_growing_leaks({&d1, &d2, &d3}, dom, LeakOptions());
  ASSERT_EQ(r.leaks.size(), 1u);
  EXPECT_EQ(d3.address(r.leaks[0].holder), 0x100u);
  EXPECT_EQ(r.leaks[0].holder_share, 60u) << "every name made since the first dump";
}

// ActionView's templates each compile a method onto a class and take it off again in their
// finalizer. A signal dump runs no GC: the methods of templates dead since the last GC are
// still on the class, their finalizers not yet run. They grow like a leak, yet the next GC
// undoes them: they rank after the program's leak, with the finalizers that may undo them.
// Fewer finalizers than half the methods would undo only a part: a leak all the same.
TEST(Leaks, WhatDeadObjectsFinalizersMayUndoRanksAfterTheProgramsLeaks) {
  auto hex = [](const std::vector<uint64_t>& addresses) {
    std::string out;
    for (uint64_t a : addresses) {
      char buf[24];
      std::snprintf(buf, sizeof buf, "%s\"0x%llx\"", out.empty() ? "" : ",", (unsigned long long)a);
      out += buf;
    }
    return "[" + out + "]";
  };
  auto dump = [&](int d, int dead) {
    std::string out = kClasses + kClassRoots + root("vm", {0x100, 0x300});
    std::vector<uint64_t> items, methods, finalizers, owners;
    for (int i = 0; i < 20 * d; ++i) items.push_back(0x10000 + 0x28 * i);
    for (int i = 0; i < 30 * d; ++i) methods.push_back(0x40000 + 0x28 * i);
    for (int i = 0; i < dead; ++i) {
      finalizers.push_back(0x80000 + 0x100 * i);
      owners.push_back(0x90000 + 0x28 * i);  // dead: not in the dump
    }
    out += R"({"type":"ROOT", "root":"finalizers", "references":)" + hex(finalizers) +
           R"(, "owners":)" + hex(owners) + "}\n";
    out += record(0x100, "OBJECT", 0x10, {0x200}, 40) + record(0x200, "HASH", 0x20, items, 200) +
           record(0x300, "OBJECT", 0x10, methods, 40);
    for (size_t i = 0; i < items.size(); ++i)
      out += record(items[i], "OBJECT", 0x30, {}, 40, traced("a.rb", 1, int(i / 20) + 1).c_str());
    for (size_t i = 0; i < methods.size(); ++i)
      out +=
          record(methods[i], "OBJECT", 0x50, {}, 400, traced("t.rb", 2, int(i / 30) + 1).c_str());
    for (uint64_t f : finalizers)  // the finalizer's Array, its Proc, the Proc's environment
      out += record(f, "ARRAY", 0x40, {f + 0x28}, 40) +
             record(f + 0x28, "DATA", 0x40, {f + 0x50}, 40) +
             record(f + 0x50, "IMEMO", 0, {0x300}, 40);
    return out;
  };
  for (int dead : {60, 10}) {
    SCOPED_TRACE(dead);
    HeapGraph d1 = load(dump(1, dead)), d2 = load(dump(2, dead)), d3 = load(dump(3, dead));
    ASSERT_EQ(d3.dead_finalizers().size(), size_t(dead));
    HeapDominators dom = HeapDominators::compute(d3);
    LeakReport r = find_growing_leaks({&d1, &d2, &d3}, dom, LeakOptions());
    ASSERT_EQ(r.leaks.size(), 2u);
    const Leak& methods = r.leaks[dead == 60 ? 1 : 0];
    const Leak& items = r.leaks[dead == 60 ? 0 : 1];
    EXPECT_EQ(methods.groups[0].group.cls, "Session");
    EXPECT_EQ(items.groups[0].group.cls, "Item");
    EXPECT_GT(methods.bytes, items.bytes);
    EXPECT_EQ(methods.pending_finalizers, dead == 60 ? 60u : 0u);
    EXPECT_EQ(items.pending_finalizers, 0u);
  }
}

// A row's example is one its holder holds itself, not a stray member of the group made on the
// same line and held elsewhere (a template's source beside the names of its methods).
TEST(Leaks, TheExampleIsOneTheHolderHolds) {
  auto dump = [](int d) {
    std::string out = kClasses + kClassRoots + root("vm", {0x100, 0x900});
    std::vector<uint64_t> names;
    for (int i = 0; i < 30 * d; ++i) names.push_back(0x20000 + 0x28 * i);
    out += record(0x100, "ARRAY", 0x40, names, 80) + record(0x900, "ARRAY", 0x40, {0x10000}, 80);
    // The stray String comes first in the dump, born with the others.
    if (d > 1) out += record(0x10000, "STRING", 0x60, {}, 40, traced("t.rb", 3, 2).c_str());
    for (int i = 0; i < 30 * d; ++i)
      out += record(names[i], "STRING", 0x60, {}, 40, traced("t.rb", 3, i / 30 + 1).c_str());
    return out;
  };
  HeapGraph d1 = load(dump(1)), d2 = load(dump(2)), d3 = load(dump(3));
  HeapDominators dom = HeapDominators::compute(d3);
  LeakReport r = find_growing_leaks({&d1, &d2, &d3}, dom, LeakOptions());
  ASSERT_FALSE(r.leaks.empty());
  EXPECT_EQ(d3.address(r.leaks[0].holder), 0x100u);
  EXPECT_NE(d3.address(r.leaks[0].groups[0].example), 0x10000u);
}

// Garbage not yet swept is not growth: requests leave 20, then 40 dead Items behind, while the
// Items the roots reach stay at 5, then 6. Counted all, they would gain 41 and make a leak.
TEST(Leaks, GrowthCountsOnlyWhatTheRootsReach) {
  auto dump = [](int d, int live, int dead) {
    std::string out = kClasses + root("vm", {0x100});
    std::vector<uint64_t> held;
    for (int i = 0; i < live; ++i) held.push_back(0x10000 + 0x28 * i);
    out += record(0x100, "ARRAY", 0x40, held, 40);
    for (int i = 0; i < live; ++i)
      out += record(held[i], "OBJECT", 0x30, {}, 40, traced("a.rb", 1, i < 5 ? 1 : d).c_str());
    for (int i = 0; i < dead; ++i)
      out += record(0x40000 + 0x1000 * d + 0x28 * i, "OBJECT", 0x30, {}, 40,
                    traced("a.rb", 1, d).c_str());
    return out;
  };
  HeapGraph d1 = load(dump(1, 5, 0)), d2 = load(dump(2, 5, 20)), d3 = load(dump(3, 6, 40));
  HeapDominators dom = HeapDominators::compute(d3);
  const std::vector<bool> r1 = reachable_from_roots(d1), r2 = reachable_from_roots(d2);
  EXPECT_EQ(std::count(r2.begin(), r2.end(), true), 8) << "the Array, its 5 Items, their classes";
  LeakOptions options;
  options.min_growth = 1;
  LeakReport r = find_growing_leaks({&d1, &d2, &d3}, dom, options, {&r1, &r2});
  ASSERT_EQ(r.leaks.size(), 1u);
  EXPECT_EQ(r.leaks[0].groups[0].growth, (std::vector<uint64_t>{5, 5, 6}));
  EXPECT_EQ(r.leaks[0].count, 1u);
  options.min_growth = 10;
  EXPECT_TRUE(find_growing_leaks({&d1, &d2, &d3}, dom, options, {&r1, &r2}).leaks.empty());
  options.min_growth = 1;
  EXPECT_EQ(find_growing_leaks({&d1, &d2, &d3}, dom, options).leaks[0].groups[0].growth,
            (std::vector<uint64_t>{5, 25, 6}))
      << "counted whole, the garbage would look like growth";
  options.min_growth = 10;
  // Dropping the references keeps the objects, and what was reachable stays known.
  d2.drop_references();
  EXPECT_EQ(d2.object_count(), d1.object_count() + 20);
  EXPECT_TRUE(d2.references(id(d2, 0x100)).empty());
  EXPECT_TRUE(find_growing_leaks({&d1, &d2, &d3}, dom, options, {&r1, &r2}).leaks.empty());
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
  ASSERT_EQ(r.leaks.size(), 1u);
  EXPECT_EQ(r.leaks[0].groups[0].group.cls, "Item");
  EXPECT_FALSE(r.leaks[0].groups[0].group.has_site());
  EXPECT_EQ(r.leaks[0].growth, (std::vector<uint64_t>{20, 40, 60}));
  EXPECT_EQ(r.leaks[0].holder, id(d3, 0x200));
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
  ASSERT_EQ(r.leaks.size(), 1u);
  ASSERT_EQ(r.leaks[0].groups.size(), 1u);
  EXPECT_EQ(r.leaks[0].groups[0].group.file, "app/views.rb");
  EXPECT_EQ(r.leaks[0].groups[0].group.line, 7u);
  EXPECT_EQ(r.leaks[0].groups[0].group.method, "(block)");
  EXPECT_EQ(r.leaks[0].count, 15u);
  ASSERT_EQ(r.leaks[0].members.size(), 15u) << "what a picture of the leak draws";
  for (ObjectId o : r.leaks[0].members) EXPECT_EQ(d2.source_site(o), d2.source_site(proc));
}

// A leak's retained size is its objects' together (what freeing all of it frees), not the sum of
// what single members dominate: two Sessions that share a big String retain it together.
TEST(Leaks, ALeakRetainsWhatOnlyItsObjectsHold) {
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
  // d1 holds the classes and an empty Array: every Session of d2 is born after it.
  HeapGraph d1 = load(kClasses + root("vm", {0x100}) + record(0x100, "ARRAY", 0x40, {}, 40)),
            d2 = load(dump(2));
  HeapDominators dom = HeapDominators::compute(d2);
  LeakOptions options;
  options.min_growth = 1;
  LeakReport r = find_growing_leaks({&d1, &d2}, dom, options);
  // The Sessions and the String they share, held by one Array: one leak.
  ASSERT_EQ(r.leaks.size(), 1u);
  const Leak& leak = r.leaks[0];
  const auto sessions = std::find_if(leak.groups.begin(), leak.groups.end(),
                                     [](const LeakGroup& g) { return g.group.cls == "Session"; });
  ASSERT_NE(sessions, leak.groups.end());
  EXPECT_EQ(sessions->count, 2u) << "0x220 is garbage: never part of a leak";
  EXPECT_EQ(leak.retained_bytes, 40u + 40 + 4'800'000);
  EXPECT_EQ(dom.retained_bytes(id(d2, 0x200)), 40u);
}

// One dump: the allocation tracer's table is the profiler's, not the program's; a String that
// holds its memory itself is its own leak.
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
  ASSERT_EQ(r.leaks.size(), 1u);
  EXPECT_EQ(r.leaks[0].holder, id(g, 0x210)) << "followed down from the Array";
  EXPECT_EQ(r.leaks[0].groups[0].group.cls, "String");
  EXPECT_EQ(r.leaks[0].count, 1u);
  EXPECT_EQ(r.leaks[0].retained_bytes, 5'000'000u);
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
  ASSERT_EQ(r.leaks.size(), 3u);
  EXPECT_TRUE(r.below_threshold);
  for (const Leak& s : r.leaks) EXPECT_EQ(s.groups[0].group.cls, "Item");
  EXPECT_EQ(dom.retained_bytes(r.leaks[0].holder), 40u + 6 * 1000) << "an Array of six";
  LeakOptions low;
  low.threshold = 0.04;
  LeakReport crossing = find_accumulations(g, dom, low);
  EXPECT_FALSE(crossing.below_threshold);
  EXPECT_GT(crossing.leaks.size(), 3u);
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
  ASSERT_EQ(r.leaks.size(), 1u);
  EXPECT_EQ(r.leaks[0].holder, id(g, 0x100)) << "the list that holds the chain";
  EXPECT_EQ(r.leaks[0].groups[0].group.cls, "Item");
  EXPECT_EQ(r.leaks[0].count, uint64_t(kLength));
  EXPECT_EQ(r.leaks[0].bytes, 40u * kLength);
}

TEST(Leaks, OneDumpFindsTheAccumulationPoint) {
  HeapGraph g = load(process_dump(3));
  HeapDominators dom = HeapDominators::compute(g);
  LeakOptions options;
  options.threshold = 0.10;
  LeakReport r = find_accumulations(g, dom, options);
  ASSERT_FALSE(r.leaks.empty());
  // The warm-up Array retains the most (30 x 400 bytes), then the Cache's Hash of Items.
  EXPECT_EQ(r.leaks[0].holder, id(g, 0x500));
  EXPECT_EQ(r.leaks[0].groups[0].group.cls, "String");
  EXPECT_EQ(r.leaks[0].count, 30u);
  bool hash_found = false;
  for (const Leak& s : r.leaks)
    if (s.holder == id(g, 0x200)) {
      hash_found = true;
      ASSERT_EQ(s.groups.size(), 1u);
      EXPECT_EQ(s.groups[0].group.cls, "Item");
      EXPECT_EQ(s.groups[0].group.file, "a.rb");
      EXPECT_EQ(s.count, 60u);
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
  ASSERT_EQ(r.leaks.size(), 1u);
  ASSERT_EQ(r.leaks[0].groups.size(), 1u);
  EXPECT_EQ(r.leaks[0].groups[0].group.file, "app/views.rb");
  EXPECT_EQ(r.leaks[0].groups[0].group.line, 7u);
  EXPECT_EQ(r.leaks[0].groups[0].count, 20u);
}

// The accumulation point's members, not every object of their class and site: 5 more Items
// of the same line live elsewhere, and a picture of the leak must not draw them.
std::string hash_of_items_dump() {
  std::string dump = kClasses + kClassRoots + root("vm", {0x100, 0x300});
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

TEST(Leaks, OneDumpLeakCarriesItsMembers) {
  HeapGraph g = load(hash_of_items_dump());
  HeapDominators dom = HeapDominators::compute(g);
  LeakReport r = find_accumulations(g, dom, LeakOptions());
  ASSERT_EQ(r.leaks.size(), 1u);
  const Leak& s = r.leaks[0];
  EXPECT_EQ(s.holder, id(g, 0x200));
  EXPECT_EQ(s.count, 60u);
  ASSERT_EQ(s.members.size(), 60u);
  for (ObjectId o : s.members) EXPECT_EQ(dom.idom(o), id(g, 0x200));
}

// heapq report draws a leak's members (60), not the 65 Items of its class and line.
TEST(Leaks, ReportPicturesTheLeaksMembers) {
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
