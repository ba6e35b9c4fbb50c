// heapq dominators: the objects that keep the most memory alive, and the dominator tree.
#include "command.h"
#include "heapq/answer/ask/dominators.h"
#include "heapq/answer/ask/profile.h"
#include "input.h"

namespace heapq::cli {

namespace {

using O = DominatorsOptions;

// A profile's deepest frame when --depth is not given.
constexpr size_t kProfileDepth = 64;

constexpr Option<O> kOptions[] = {
    top_option<O>("objects to list by retained bytes; with --depth, children per node"),
    no_default_shown(Bind<O>::count<&O::depth>(
        "depth", "D",
        "print the top D levels of the dominator tree instead; --format pprof|folded: the deepest "
        "frame, deeper objects counted in it (default 64)")),
    output_option<O>(),
    output_long_option<O>(),
};

Result<render::Answer> answer(const GlobalOptions& global, const Invocation<O>& in) {
  if (in.inputs.size() != 1)
    return usage_error("dominators takes one INPUT (see heapq dominators --help)");
  HEAPQ_RETURN_IF_ERROR(in.output_once());
  HEAPQ_RETURN_IF_ERROR(refuse_output_over_inputs(in.output, in.inputs));
  HEAPQ_ASSIGN_OR_RETURN(O options, in.options());
  if (in.given("depth") && options.depth == 0) return usage_error("--depth must be 1 or more");
  if (profile_format(global)) {
    if (in.given("top"))
      return usage_error("--format " + format_name(global) + " profiles every object: no --top");
    const size_t depth = in.given("depth") ? options.depth : kProfileDepth;
    HEAPQ_ASSIGN_OR_RETURN(ProfileAnswer profile,
                           answer_dominators_profile(in.inputs[0], depth, input_options(global)));
    return render::Answer(std::move(profile));
  }
  options.tree = in.given("depth");
  HEAPQ_ASSIGN_OR_RETURN(DominatorsAnswer dominators,
                         answer_dominators(in.inputs[0], options, input_options(global)));
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
    specs_of<kOptions>,
    run_answer_to_output<kOptions, answer>,
    render::kTextAndJson | render::kProfileFormats,
};

}  // namespace heapq::cli
