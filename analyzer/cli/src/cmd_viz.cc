// heapq viz: pictures of why objects are alive (retention trees) and of the dominator tree, as
// DOT for graphviz or as SVG.

#include "command.h"
#include "heapq/answer/ask/viz.h"
#include "input.h"

namespace heapq::cli {

namespace {

using O = VizOptions;

// The dominator tree's levels drawn when --depth is not given (a path's steps are O's depth).
constexpr size_t kDominatorLevels = 3;

constexpr Option<O> kOptions[] = {
    output_option<O>(),
    output_long_option<O>(),
    Bind<O>::count<&O::max_boxes>("max-nodes", "N",
                                  "boxes drawn at most; the rest collapse into \"+ N more\" boxes"),
    no_default_shown(Bind<O>::count<&O::depth>(
        "depth", "D",
        "steps of a path, longer ones merged or elided (default 12); --dominators: levels (3)")),
    Bind<O>::flag<&O::dominators>("dominators",
                                  "draw the top of the dominator tree instead of a retention tree"),
    Bind<O>::count<&O::top>("top", "N", "--dominators: children drawn per box"),
    no_default_shown(Bind<O>::count<&O::leak>(
        "leak", "N", "draw leak N as heapq leaks numbers them, from the dumps heapq leaks takes")),
    as_given_option<O>(),
    Bind<O>::text<&O::site>(
        "site", "FILE:LINE",
        "a class TARGET's instances allocated there only (FILE as the dump names it, or its end)"),
};

// The invocation's options, checked together.
Result<O> checked_options(const Invocation<O>& in) {
  const bool dominators = in.given("dominators");
  const bool leak = in.given("leak");
  if (dominators && leak) return usage_error("--dominators and --leak draw different things");
  if (in.given("top") && !dominators)
    return usage_error("--top counts the children drawn per box of --dominators");
  if (in.given("as-given") && !leak)
    return usage_error("--as-given orders the dumps of --leak N; one INPUT has no order");
  if (leak ? in.inputs.empty() : in.inputs.size() != (dominators ? 1u : 2u))
    return usage_error(leak         ? "viz --leak N takes the dumps heapq leaks takes"
                       : dominators ? "viz --dominators takes one INPUT (see heapq viz --help)"
                                    : "viz takes INPUT and TARGET (see heapq viz --help)");
  HEAPQ_ASSIGN_OR_RETURN(O options, in.options());
  if (dominators && !in.given("depth")) options.depth = kDominatorLevels;
  if (options.max_boxes == 0 || options.depth == 0 || options.top == 0)
    return usage_error("--max-nodes, --depth and --top must be 1 or more");
  if (leak && options.leak == 0)
    return usage_error("--leak counts from 1, as heapq leaks numbers them");
  if (!options.site.empty() && (leak || options.dominators))
    return usage_error("--site narrows a class TARGET; --leak and --dominators take none");
  return options;
}

Result<render::Answer> answer(const GlobalOptions& global, const Invocation<O>& in) {
  HEAPQ_ASSIGN_OR_RETURN(const O options, checked_options(in));
  HEAPQ_RETURN_IF_ERROR(in.output_once());
  const bool leak = in.given("leak");
  const std::vector<std::string> inputs = leak ? in.inputs : std::vector<std::string>{in.inputs[0]};
  HEAPQ_RETURN_IF_ERROR(refuse_output_over_inputs(in.output, inputs));
  if (leak) {
    HEAPQ_ASSIGN_OR_RETURN(VizAnswer viz, answer_viz_leak(inputs, options, input_options(global)));
    return render::Answer(std::move(viz));
  }
  HEAPQ_ASSIGN_OR_RETURN(VizAnswer viz,
                         answer_viz(inputs[0], options.dominators ? "" : in.inputs[1], options,
                                    input_options(global)));
  return render::Answer(std::move(viz));
}

}  // namespace

const Command kVizCommand = {
    "viz",
    "pictures: the retention tree of an object or class, the dominator tree (DOT, SVG)",
    "heapq viz [--format dot|svg] [-o FILE] [--max-nodes N] [--depth D] [--site FILE:LINE]\n"
    "          INPUT TARGET\n"
    "       heapq viz --leak N [--format dot|svg] [-o FILE] [--max-nodes N] D1 D2 [D3...]\n"
    "       heapq viz --dominators [--top N] [--depth D] [--format dot|svg] [-o FILE] INPUT",
    "TARGET is an object's address (0x...) or a class name as heapq stats shows it (--site\n"
    "FILE:LINE: its instances allocated there only). Draws its\n"
    "retention tree from the GC roots down: for a class, the shortest path of every instance\n"
    "merged by shape as heapq retainers merges them; for an address, its shortest paths\n"
    "through different referrers. Each box shows the class, an address, the shallow and\n"
    "retained size and the allocation site; arrows name the references. Shapes past\n"
    "--max-nodes collapse into \"+ N more\" boxes; the object that holds most of a class's\n"
    "instances (the deepest that dominates more than half, else the one that references\n"
    "most; as heapq leaks names it) is drawn in red.\n"
    "--leak N draws leak N of heapq leaks on the same INPUTs (several dumps, or one): every\n"
    "object it holds, whatever its class, merged by shape, its holder in red.\n"
    "--dominators draws the top of the dominator tree instead: --top children of each box,\n"
    "--depth levels, --max-nodes boxes at most, breadth first.\n"
    "DOT goes to stdout unless -o is given (heapq viz app.json Foo | dot -Tpng > foo.png);\n"
    "--format svg lays it out with graphviz's dot program.\n",
    specs_of<kOptions>,
    run_answer_to_output<kOptions, answer>,
    render::kPictureFormats,
};

}  // namespace heapq::cli
