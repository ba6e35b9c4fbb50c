// heapq leaks: what grows across dumps of one process, which line allocated it and who holds it;
// or, from one dump, where memory accumulates (schemas/leaks.schema.json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "heapq/answer/common.h"
#include "heapq/dominators.h"
#include "heapq/dump_match.h"
#include "heapq/leaks.h"

namespace heapq {

struct LeaksAnswer {
  InputSummary input;                // the last dump, whose objects the suspects name
  std::vector<InputSummary> inputs;  // every dump read, oldest first
  uint64_t heap_bytes = 0;  // what the last dump's roots retain (one dump: less the profiler's)
  uint64_t profiler_bytes = 0;
  bool several = false;  // dumps over time; else one dump
  // Several dumps.
  MatchMethod match = MatchMethod::kAddress;
  uint64_t born = 0;            // objects of the last dump born after the first
  uint64_t groups_growing = 0;  // suspects still growing at the last dump
  uint64_t min_growth = 0;
  // One dump.
  uint64_t threshold_percent = 0;
  bool below_threshold = false;  // nothing retains it: the suspects are the biggest all the same

  struct Suspect {
    std::string cls;
    std::optional<SiteRef> site;  // the group's (one dump: its most common) allocation site
    uint64_t count = 0, bytes = 0, retained_bytes = 0;
    std::vector<uint64_t> growth;  // objects of the group in each dump
    bool growing = false, steady = false;
    uint64_t example = 0;                                            // the address of one of them
    std::vector<std::pair<std::optional<SiteRef>, uint64_t>> sites;  // one dump: top sites
    std::optional<ObjectRef> holder;
    std::string holder_edge;  // the reference into the holder on its shortest path
    uint64_t holder_share = 0;
    std::optional<PathRef> path;  // from a GC root to the holder
    size_t same_holder_as = 0;    // the number (1, 2, ...) of an earlier suspect with this holder
    bool own_memory = false;      // one object whose own memory is the accumulation
  };
  std::vector<Suspect> suspects;  // most likely first
};

struct LeaksOptions {
  size_t top = 5;  // SIZE_MAX: every growing group
  uint64_t min_growth = 10;
  uint64_t threshold_percent = 10;  // one dump
  size_t max_depth = 64;            // steps of a path shown
  bool as_given = false;            // --as-given: dumps of several processes or out of order
};

// paths: dumps of one process, oldest first, or one store holding several, or one dump.
Result<LeaksAnswer> answer_leaks(const std::vector<std::string>& paths, const LeaksOptions& options,
                                 const InputOptions& inputs);

// The suspects of dumps already loaded (dom: the last one's), unresolved: what growth or
// accumulation finds, with the objects of each suspect.
LeakReport find_leaks(const std::vector<LoadedDump>& dumps, const HeapDominators& dom,
                      const LeaksOptions& options);
// Those suspects resolved into the answer: holders, the edges into them, their paths.
LeaksAnswer leaks_answer(const std::vector<LoadedDump>& dumps, const LeakReport& report,
                         const LeaksOptions& options);

}  // namespace heapq
