// heapq dominators: the objects that keep the most memory alive, and the dominator tree.
#include "cli/command.h"
#include "cli/input.h"
#include "heapq/answer/dominators.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    top_option("objects to list by retained bytes; with --depth, children per node", "10"),
    {"depth", "D", "print the top D levels of the dominator tree instead"},
};

Result<render::Answer> answer(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().size() != 1)
    return usage_error("dominators takes one INPUT (see heapq dominators --help)");
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
    "heapq dominators [--top N] [--depth D] INPUT",
    "An object dominates another when every path from the GC roots to the other passes through\n"
    "it: freeing it would free the other. Its retained size is the memory of all it dominates,\n"
    "itself included. Lists the objects with the largest retained size, each with its class,\n"
    "allocation site and a shortest path from the roots; --depth D prints the top of the\n"
    "dominator tree instead, --top N children per node. Objects the roots do not reach\n"
    "(garbage not yet swept) are counted apart. References held by ObjectSpace::WeakMap (and\n"
    "WeakRef, which uses one) do not retain.\n",
    kOptions,
    run_answer<answer>,
};

}  // namespace heapq::cli
