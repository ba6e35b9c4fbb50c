// heapq leaks: what grows across dumps, which line allocated it, and who holds it.
#include <cmath>

#include "command.h"
#include "heapq/answer/ask/leaks.h"
#include "input.h"

namespace heapq::cli {

namespace {

using O = LeaksOptions;

// --threshold PCT: a whole percentage of the heap, the share the analysis takes.
constexpr Option<O> threshold_option() {
  return {"threshold", "PCT", "one dump: % of the heap a leak retains at least",
          [](Invocation<O>& in, std::string_view name, const std::string& value) -> Status {
            HEAPQ_ASSIGN_OR_RETURN(const uint64_t percent, parse_count(name, value));
            if (percent == 0 || percent > 100)
              return usage_error("--threshold expects a percentage from 1 to 100");
            in.values.threshold = static_cast<double>(percent) / 100;
            return Ok{};
          },
          [](const O& defaults) { return std::to_string(std::lround(defaults.threshold * 100)); }};
}

constexpr Option<O> kOptions[] = {
    top_option<O>("leaks to show; 0: every one"),
    Bind<O>::count<&O::min_growth>("min-growth", "N",
                                   "objects a group gains, first to last dump, at least"),
    threshold_option(),
    Bind<O>::count<&O::max_depth>("max-depth", "D",
                                  "steps shown of a path, its middle elided past them"),
    as_given_option<O>(),
};

Result<render::Answer> answer(const GlobalOptions& global, const Invocation<O>& in) {
  if (in.inputs.empty())
    return usage_error("leaks takes one or more INPUTs (see heapq leaks --help)");
  HEAPQ_ASSIGN_OR_RETURN(O options, in.options());
  for (std::string_view name : in.given_names)
    if (name != "top") options.given_for_dumps.emplace_back(name);
  // Visited where it is: a moved-out copy of the variant is taken by GCC 12 for uninitialized.
  Result<AnyLeaksAnswer> leaks = answer_leaks(in.inputs, options, input_options(global));
  if (!leaks) return leaks.error();
  return std::visit([](auto& a) -> Result<render::Answer> { return render::Answer(std::move(a)); },
                    *leaks);
}

}  // namespace

const Command kLeaksCommand = {
    "leaks",
    "what grows across dumps, which line allocated it and who holds it",
    "heapq leaks [--top N] [--max-depth D] D1 D2 [D3...]\n"
    "       heapq leaks [--top N] [--threshold PCT] DUMP\n"
    "       heapq leaks [--top N] P1.pb.gz P2.pb.gz [P3.pb.gz...]",
    "D1 D2 D3...: dumps of one process over time, oldest first (or one store\n"
    "holding several: heapq load d1 d2 d3 -o app.db; heapq leaks app.db). Take the\n"
    "first after warm-up, the others after more load. memprof's dumps say which\n"
    "process and when: they are taken in the order written, and the dumps of several\n"
    "processes (memprof-*.jsonl of two workers) each process on its own, one answer\n"
    "per process (--as-given compares them as given). The objects born after D1 and\n"
    "alive in the last dump are grouped by class and allocation site; groups that\n"
    "gained --min-growth objects or more are growing. Each group's holder is the\n"
    "deepest object that dominates most of it, else the one that references most of\n"
    "it; groups with one holder, or held by an object of another growing group (the\n"
    "Requests a leaking Proc captures), are one leak. Leaks that grew between every\n"
    "two dumps come first, then those still growing at the last dump, then the rest\n"
    "(a one-time warm-up grows once), each by the memory it holds. Each leak names\n"
    "its holder, a path from the GC roots to it, its objects per dump, what freeing\n"
    "them all would free, and what it holds: each class and allocation site with its\n"
    "count, bytes and counts per dump.\n"
    "Objects are matched across dumps by memprof's seq, else by address, class and\n"
    "GC generation (allocation tracing on), else by address and class. The counts\n"
    "per dump are of every object, as heapq stats counts; objects the roots do not\n"
    "reach (garbage not yet swept) are never part of a leak.\n"
    "DUMP alone: objects that retain more than --threshold percent of the heap,\n"
    "followed down the dominator tree while one child keeps most of its parent (the\n"
    "accumulation point), with what accumulates there by class and allocation site.\n"
    "P1.pb.gz P2.pb.gz...: sampled profiles (Memprof.profile, MEMPROF_PROFILE_EVERY),\n"
    "of one process or several, in any order (each says when it was written): per\n"
    "process, the allocation sites (the app's innermost frame, and the objects' class)\n"
    "whose estimated live objects never fell and rose by two sampled objects or more,\n"
    "most bytes grown first, with their rates. A profile has no references: a dump of\n"
    "that process names what holds them.\n",
    specs_of<kOptions>,
    run_answer<kOptions, answer>,
};

}  // namespace heapq::cli
