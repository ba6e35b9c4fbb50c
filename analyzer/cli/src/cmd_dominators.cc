// heapq dominators: the objects that keep the most memory alive, and the dominator tree.
#include "command.h"
#include "heapq/answer/ask/dominators.h"
#include "heapq/answer/ask/profile.h"
#include "input.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    top_option("objects to list by retained bytes; with --depth, children per node", "10"),
    {"depth", "D",
     "print the top D levels of the dominator tree instead; --format pprof|folded: the deepest "
     "frame, deeper objects counted in it (default 64)"},
    kOutputOption,
    kOutputLongOption,
};

Result<render::Answer> answer(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().size() != 1)
    return usage_error("dominators takes one INPUT (see heapq dominators --help)");
  HEAPQ_ASSIGN_OR_RETURN(const std::string output, get_output_path(args));
  HEAPQ_RETURN_IF_ERROR(refuse_output_over_inputs(output, args.positional()));
  if (profile_format(global)) {
    if (args.has("top"))
      return usage_error("--format " + args.get("format") + " profiles every object: no --top");
    HEAPQ_ASSIGN_OR_RETURN(const uint64_t depth, get_count(args, "depth", 64));
    if (depth == 0) return usage_error("--depth must be 1 or more");
    HEAPQ_ASSIGN_OR_RETURN(
        ProfileAnswer profile,
        answer_dominators_profile(args.positional()[0], depth, input_options(global)));
    return render::Answer(std::move(profile));
  }
  DominatorsOptions options;
  HEAPQ_ASSIGN_OR_RETURN(options.top, get_limit(args, "top"));
  options.tree = args.has("depth");
  if (options.tree) {
    HEAPQ_ASSIGN_OR_RETURN(options.depth, get_count(args, "depth"));
  }
  HEAPQ_ASSIGN_OR_RETURN(DominatorsAnswer dominators,
                         answer_dominators(args.positional()[0], options, input_options(global)));
  return render::Answer(std::move(dominators));
}

}  // namespace

const Command kDominatorsCommand = {
    "dominators",
    "the objects that keep the most memory alive (retained sizes, dominator tree)",
    "heapq dominators [--top N] [--depth D] [-o FILE] INPUT\n"
    "       heapq dominators --format pprof|folded [--depth D] [-o FILE] INPUT",
    "An object dominates another when every path from the GC roots to the other passes through\n"
    "it: freeing it would free the other. Its retained size is the memory of all it dominates,\n"
    "itself included. Lists the objects with the largest retained size, each with its class,\n"
    "allocation site and a shortest path from the roots; --depth D prints the top of the\n"
    "dominator tree instead, --top N children per node. Objects the roots do not reach\n"
    "(garbage not yet swept) are counted apart. References held by ObjectSpace::WeakMap (and\n"
    "WeakRef, which uses one) do not retain.\n"
    "--format pprof (a gzip'd profile.proto) and folded (stacks for flame graphs) profile the\n"
    "whole tree: each object's stack is the chain of objects that keep it alive, from its GC\n"
    "root down, merged by class and reference name (indexes and hash keys read \"[]\", a\n"
    "repeated step folded) as heapq retainers merges paths; its value, its own count and\n"
    "bytes. A frame's total is what its objects retain: a flame graph of the heap, read from\n"
    "the roots down (go tool pprof -http : heap.pb.gz, speedscope).\n",
    kOptions,
    run_answer_to_output<answer>,
    render::kTextAndJson | render::kProfileFormats,
};

}  // namespace heapq::cli
