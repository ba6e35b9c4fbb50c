// heapq leaks: what grows across dumps of one process, which line allocated it and who holds it;
// or, from one dump, where memory accumulates (schemas/leaks.schema.json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "heapq/analyze/groupings.h"
#include "heapq/analyze/site_growth.h"
#include "heapq/answer/common.h"

namespace heapq {

struct LeaksAnswer {
  InputSummary input;                // the last dump, whose objects the leaks name
  std::vector<InputSummary> inputs;  // every dump read, oldest first
  uint64_t heap_bytes = 0;  // what the last dump's roots retain (one dump: less the profiler's)
  uint64_t profiler_bytes = 0;
  bool several = false;  // dumps over time; else one dump
  uint64_t found = 0;    // leaks found, before --top
  // Several dumps.
  MatchMethod match = MatchMethod::kAddress;
  uint64_t born = 0;                  // objects of the last dump born after the first
  std::vector<std::string> warnings;  // what makes born unsure
  uint64_t groups = 0;                // groups (class, site) that gained --min-growth, in all leaks
  uint64_t groups_growing = 0;        // of them, still growing at the last dump
  uint64_t min_growth = 0;
  // One dump.
  uint64_t threshold_percent = 0;
  bool below_threshold = false;  // nothing retains it: the leaks are the biggest all the same

  // What a leak holds of one class allocated at one site.
  struct Held {
    std::string cls;
    std::optional<SiteRef> site;
    uint64_t count = 0, bytes = 0;
    std::vector<uint64_t> growth;  // objects of the group in each dump
    bool growing = false, steady = false;
    uint64_t example = 0;  // the address of one of them
    // memprof's allocation stacks: the application's line most of them were allocated from,
    // and how many were; none without stacks.
    std::optional<SiteRef> app;
    uint64_t app_count = 0;
    uint64_t retained_bytes = 0;  // what they hold alone (LeakGroup::retained_bytes)
    // Strings and Symbols: the example's value (its first kSampleBytes), where the dump file
    // has it (a text String; a memprof dump with strings).
    std::optional<std::string> sample;
  };
  // What it counts (LeakCounts, as the analysis counts it), and its objects resolved.
  struct Leak : LeakCounts {
    std::optional<ObjectRef> holder;
    std::string holder_edge;  // the reference into the holder on its shortest path
    // No holder: the GC root category that holds most of it directly (finalizers), if any.
    std::string holder_root;
    // The path to the holder: its owners (kOwners: the dominator chain, each step alone keeping
    // the next alive, from the outermost owner down, from its root where one holds it
    // directly), or the shortest path from a GC root where no object alone keeps it alive.
    enum class PathKind { kOwners, kShortest };
    PathKind path_kind = PathKind::kShortest;
    std::optional<PathRef> path;
    // kOwners whose outermost owner no root holds directly: the shortest path to that owner.
    std::optional<PathRef> owner_path;
    bool own_memory = false;  // one object whose own memory is the accumulation
    std::vector<Held> holds;  // by class and site, retaining the most first
  };
  std::vector<Leak> leaks;  // most likely first

  // Dumps of several processes (memprof's META pid): each process's answer, its pid set, and
  // nothing else here.
  uint64_t pid = 0;
  std::string host, started;  // of that process, as its META says; empty: unknown
  std::vector<LeaksAnswer> processes;
};

inline constexpr size_t kSampleBytes = 200;

// heapq leaks over sampled profiles (Memprof.profile), each process's over time: the allocation
// sites whose live estimates grow (process_growth). A profile has no references: the holder is
// a dump's to name.
struct ProfileLeaksAnswer {
  struct Input {
    std::string path;
    std::string time;  // when it was written, ISO 8601 (empty: unknown)
    int64_t period = 0;
    uint64_t samples = 0;
  };
  struct Process {
    std::string host, started;        // empty: unknown
    uint64_t pid = 0;                 // 0: unknown
    std::vector<Input> inputs;        // oldest first
    std::vector<int64_t> heap_bytes;  // the live estimate of the sampled heap, in each
    uint64_t found = 0;               // sites growing, before --top
    std::vector<SiteGrowth> growing;  // most bytes grown first, at most --top
  };
  std::vector<Process> processes;  // by host, pid and start
};

}  // namespace heapq
