// heapq viz: pictures of why objects are alive (retention trees) and of the dominator tree, as
// DOT for graphviz or as SVG.

#include "command.h"
#include "heapq/answer/ask/viz.h"
#include "input.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    kOutputOption,
    kOutputLongOption,
    {"max-nodes", "N", "boxes drawn at most; the rest collapse into \"+ N more\" boxes", "40"},
    {"depth", "D",
     "steps of a path, longer ones merged or elided (default 12); --dominators: levels (3)"},
    {"dominators", "", "draw the top of the dominator tree instead of a retention tree"},
    top_option("--dominators: children drawn per box", "6"),
    {"leak", "N", "draw leak N as heapq leaks numbers them, from the dumps heapq leaks takes"},
    kAsGivenOption,
    {"site", "FILE:LINE",
     "a class TARGET's instances allocated there only (FILE as the dump names it, or its end)"},
};

Result<render::Answer> answer(const GlobalOptions& global, const ParsedArgs& args) {
  VizOptions options;
  options.dominators = args.has("dominators");
  const bool leak = args.has("leak");
  if (options.dominators && leak)
    return usage_error("--dominators and --leak draw different things");
  if (leak ? args.positional().empty() : args.positional().size() != (options.dominators ? 1u : 2u))
    return usage_error(leak ? "viz --leak N takes the dumps heapq leaks takes"
                       : options.dominators
                           ? "viz --dominators takes one INPUT (see heapq viz --help)"
                           : "viz takes INPUT and TARGET (see heapq viz --help)");
  HEAPQ_ASSIGN_OR_RETURN(options.max_boxes, get_count(args, "max-nodes"));
  HEAPQ_ASSIGN_OR_RETURN(options.depth, get_count(args, "depth", options.dominators ? 3 : 12));
  HEAPQ_ASSIGN_OR_RETURN(options.top, get_count(args, "top"));
  if (options.max_boxes == 0 || options.depth == 0 || options.top == 0)
    return usage_error("--max-nodes, --depth and --top must be 1 or more");
  if (leak) {
    HEAPQ_ASSIGN_OR_RETURN(options.leak, get_count(args, "leak"));
    if (options.leak == 0) return usage_error("--leak counts from 1, as heapq leaks numbers them");
  }
  options.as_given = args.has("as-given");
  options.site = args.get("site");
  if (!options.site.empty() && (leak || options.dominators))
    return usage_error("--site narrows a class TARGET; --leak and --dominators take none");
  HEAPQ_ASSIGN_OR_RETURN(const std::string output, get_output_path(args));
  const std::vector<std::string> inputs =
      leak ? args.positional() : std::vector<std::string>{args.positional()[0]};
  HEAPQ_RETURN_IF_ERROR(refuse_output_over_inputs(output, inputs));
  if (leak) {
    HEAPQ_ASSIGN_OR_RETURN(VizAnswer viz, answer_viz_leak(inputs, options, input_options(global)));
    return render::Answer(std::move(viz));
  }
  HEAPQ_ASSIGN_OR_RETURN(
      VizAnswer viz, answer_viz(inputs[0], options.dominators ? "" : args.positional()[1], options,
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
    kOptions,
    run_answer_to_output<answer>,
    render::kPictureFormats,
};

}  // namespace heapq::cli
