// Asking for the answer of answer/leaks.h: the options and the calls that make it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/leaks.h"
#include "heapq/answer/inputs.h"
#include "heapq/answer/leaks.h"
#include "heapq/base/result.h"

namespace heapq {

// What the analyses take (LeakOptions: --top, --min-growth, --threshold), and the answer.
struct LeaksOptions : LeakOptions {
  size_t max_depth = 64;  // steps of a path shown
  bool as_given = false;  // --as-given: dumps of several processes or out of order
  // The options given that dumps take and profiles do not (--min-growth...), named without
  // dashes: leaks over profiles refuses them rather than ignore them.
  std::vector<std::string> given_for_dumps;
};

// paths: dumps of one process, oldest first, or one store holding several, or one dump; dump
// files of several processes are answered one process at a time (LeaksAnswer::processes),
// unless options.as_given. Or sampled profiles (known by their content; with dumps: a usage
// error): answer_profile_leaks's.
using AnyLeaksAnswer = std::variant<LeaksAnswer, ProfileLeaksAnswer>;
Result<AnyLeaksAnswer> answer_leaks(const std::vector<std::string>& paths,
                                    const LeaksOptions& options, const InputOptions& inputs);

// Sampled profiles (profile_inputs), of one process or several, each process's in any order
// (their times say it): what grows in each.
Result<ProfileLeaksAnswer> answer_profile_leaks(const std::vector<Input*>& profiles,
                                                const LeaksOptions& options);

// The leaks of dumps already loaded (dom: the last one's), unresolved: what growth or
// accumulation finds, with the objects of each leak.
LeakReport find_leaks(const std::vector<LoadedDump>& dumps, const HeapDominators& dom,
                      const LeaksOptions& options);
// Those leaks resolved into the answer: holders, the edges into them, their paths (dom: the
// last dump's).
LeaksAnswer leaks_answer(const std::vector<LoadedDump>& dumps, const HeapDominators& dom,
                         const LeakReport& report, const LeaksOptions& options);

}  // namespace heapq
