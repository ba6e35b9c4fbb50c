// Asking for the answer of answer/profile.h: the options and the calls that make it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "heapq/analyze/dominators.h"
#include "heapq/answer/ask/retainers.h"
#include "heapq/answer/inputs.h"
#include "heapq/answer/profile.h"
#include "heapq/base/result.h"

namespace heapq {

// heapq sites --format pprof|folded: objects, bytes (and with retained, what each sample's
// objects dominate, each object of the sample counted once: samples overlap, as the retained
// sizes of Eclipse MAT's histogram do) per allocation stack and class. The stack is
// memprof's allocation stack where the dump has one, else the allocation site; objects without
// a site are one frame, "(no allocation site)".
Result<ProfileAnswer> answer_sites_profile(const std::string& input, bool retained,
                                           const InputOptions& inputs);
ProfileAnswer sites_profile(const LoadedDump& dump, const HeapDominators* dominators);

// heapq retainers CLASS --format pprof|folded: each instance's shortest path from the roots,
// merged by shape as `retainers` merges them (max_depth deep), with the instances' count, own
// bytes and retained bytes (an instance that another one keeps alive adds nothing: no byte is
// counted twice).
Result<ProfileAnswer> answer_retainers_profile(const std::string& input, const std::string& target,
                                               const RetainersOptions& options,
                                               const InputOptions& inputs);

// heapq dominators --format pprof|folded: every object under the chain of objects that keep it
// alive (the dominator tree, merged by class and reference name, max_depth deep), with its own
// count and bytes: a frame's total is what it retains. Garbage not yet swept is one frame.
Result<ProfileAnswer> answer_dominators_profile(const std::string& input, size_t max_depth,
                                                const InputOptions& inputs);
ProfileAnswer dominators_profile(const LoadedDump& dump, const HeapDominators& dominators,
                                 size_t max_depth);

}  // namespace heapq
