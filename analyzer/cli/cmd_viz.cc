// heapq viz: pictures of why objects are alive (retention trees) and of the dominator tree, as
// DOT for graphviz or as SVG.

#include "cli/command.h"
#include "cli/input.h"
#include "cli/output.h"
#include "heapq/answer/pictures.h"
#include "heapq/leaks.h"
#include "heapq/targets.h"
#include "heapq/viz/picture.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"o", "FILE", "write to FILE instead of stdout"},
    {"output", "FILE", "same as -o"},
    {"max-nodes", "N",
     "boxes drawn at most; the rest collapse into \"+ N more\" boxes (default 40)"},
    {"depth", "D",
     "steps of a path, longer ones merged or elided (default 12); --dominators: levels (3)"},
    {"dominators", "", "draw the top of the dominator tree instead of a retention tree"},
    {"top", "N", "--dominators: children drawn per box (default 6)"},
};

Status write_output(const std::string& path, const std::string& text, bool quiet) {
  if (path.empty()) {
    if (!emit(text)) return io_error("cannot write to stdout");
    return Ok{};
  }
  return write_file(path, text, quiet);
}

int run(const GlobalOptions& global, const ParsedArgs& args) {
  const bool dominators = args.has("dominators");
  const size_t want = dominators ? 1 : 2;
  if (args.positional().size() != want)
    return report_error(usage_error(dominators
                                        ? "viz --dominators takes one INPUT (see heapq viz --help)"
                                        : "viz takes INPUT and TARGET (see heapq viz --help)"));
  auto max_nodes = get_count(args, "max-nodes", 40);
  if (!max_nodes) return report_error(max_nodes.error());
  auto depth = get_count(args, "depth", dominators ? 3 : 12);
  if (!depth) return report_error(depth.error());
  auto top = get_count(args, "top", 6);
  if (!top) return report_error(top.error());
  if (*max_nodes == 0 || *depth == 0 || *top == 0)
    return report_error(usage_error("--max-nodes, --depth and --top must be 1 or more"));

  auto out = get_output_path(args);
  if (!out) return report_error(out.error());
  if (Status s = refuse_output_over_inputs(*out, {args.positional()[0]}); !s)
    return report_error(s.error());

  auto dump = load_input(args.positional()[0], global);
  if (!dump) return report_error(dump.error());
  const HeapGraph& g = dump->graph;
  std::optional<Target> target;
  if (!dominators) {
    auto found = find_target(g, args.positional()[1], dump->path);
    if (!found) return report_error(found.error());
    target = std::move(*found);
  }
  const HeapDominators dom = HeapDominators::compute(g);
  const PictureLimits limits{*max_nodes, *depth};
  viz::Picture picture;
  if (dominators) {
    picture = dominators_picture(g, dom, *top, limits);
  } else if (target->object) {
    picture = object_picture(g, dom, *target->object, limits);
  } else {
    const ShortestPathTree tree = ShortestPathTree::compute(g);
    // The holder as heapq leaks names it, so that both draw the same object in red.
    std::vector<bool> in_set(g.object_count(), false);
    for (ObjectId o : target->instances)
      if (dom.reachable(o)) in_set[o.value()] = true;
    const ObjectId holder = find_holder(g, dom, in_set).first;
    picture = shapes_picture(g, tree, dom, target->instances, target->label, holder, limits);
  }
  std::string text = viz::to_dot(picture);
  if (global.format == OutputFormat::kSvg) {
    auto svg = viz::dot_to_svg(text, "use --format dot");
    if (!svg) return report_error(svg.error());
    text = std::move(*svg);
  }
  const Status written = write_output(*out, text, global.quiet);
  return written ? 0 : report_error(written.error());
}

}  // namespace

const Command kVizCommand = {
    "viz",
    "pictures: the retention tree of an object or class, the dominator tree (DOT, SVG)",
    "heapq viz [--format dot|svg] [-o FILE] [--max-nodes N] [--depth D] INPUT TARGET\n"
    "       heapq viz --dominators [--top N] [--depth D] [--format dot|svg] [-o FILE] INPUT",
    "TARGET is an object's address (0x...) or a class name as heapq stats shows it. Draws its\n"
    "retention tree from the GC roots down: for a class, the shortest path of every instance\n"
    "merged by shape as heapq retainers merges them; for an address, its shortest paths\n"
    "through different referrers. Each box shows the class, an address, the shallow and\n"
    "retained size and the allocation site; arrows name the references. Shapes past\n"
    "--max-nodes collapse into \"+ N more\" boxes; the object that holds most of a class's\n"
    "instances (the deepest that dominates more than half, else the one that references\n"
    "most; as heapq leaks names it) is drawn in red.\n"
    "--dominators draws the top of the dominator tree instead: --top children of each box,\n"
    "--depth levels, --max-nodes boxes at most, breadth first.\n"
    "DOT goes to stdout unless -o is given (heapq viz app.json Foo | dot -Tpng > foo.png);\n"
    "--format svg lays it out with graphviz's dot program.\n",
    kOptions,
    run,
    false,
    true,
};

}  // namespace heapq::cli
