// heapq retainers: why is this object (or this class's instances) alive?
#include "command.h"
#include "heapq/answer/ask/profile.h"
#include "heapq/answer/ask/retainers.h"
#include "input.h"

namespace heapq::cli {

namespace {

using O = RetainersOptions;

constexpr Option<O> kOptions[] = {
    Bind<O>::limit<&O::paths>("paths", "N", "paths to show (for a class, path shapes); 0: all"),
    Bind<O>::count<&O::max_depth>("max-depth", "D",
                                  "steps shown of a path, its middle elided past them; for a "
                                  "class, the deepest shape, deeper paths merged into it"),
    Bind<O>::flag<&O::referrers>("referrers", "also list the direct referrers"),
    Bind<O>::text<&O::site>(
        "site", "FILE:LINE",
        "a class TARGET's instances allocated there only (FILE as the dump names it, or its end)"),
    output_option<O>(),
    output_long_option<O>(),
};

Result<render::Answer> answer(const GlobalOptions& global, const Invocation<O>& in) {
  if (in.inputs.size() != 2)
    return usage_error("retainers takes INPUT and TARGET (see heapq retainers --help)");
  HEAPQ_ASSIGN_OR_RETURN(const O options, in.options());
  HEAPQ_RETURN_IF_ERROR(in.output_once());
  HEAPQ_RETURN_IF_ERROR(refuse_output_over_inputs(in.output, {in.inputs[0]}));
  if (profile_format(global)) {
    if (in.given("paths") || in.given("referrers"))
      return usage_error("--format " + format_name(global) +
                         " profiles every instance's path: no --paths or --referrers");
    HEAPQ_ASSIGN_OR_RETURN(
        ProfileAnswer profile,
        answer_retainers_profile(in.inputs[0], in.inputs[1], options, input_options(global)));
    return render::Answer(std::move(profile));
  }
  HEAPQ_ASSIGN_OR_RETURN(
      RetainersAnswer retainers,
      answer_retainers(in.inputs[0], in.inputs[1], options, input_options(global)));
  return render::Answer(std::move(retainers));
}

}  // namespace

const Command kRetainersCommand = {
    "retainers",
    "why is an object alive: shortest paths from the GC roots, referrers",
    "heapq retainers [--paths N] [--max-depth D] [--referrers] [--site FILE:LINE] [-o FILE] "
    "INPUT TARGET\n"
    "       heapq retainers --format pprof|folded [--max-depth D] [--site FILE:LINE] [-o FILE] "
    "INPUT TARGET",
    "TARGET is an object's address (0x...) or a class name as heapq stats shows it;\n"
    "--site FILE:LINE narrows a class to its instances allocated there (one row of heapq\n"
    "leaks or heapq sites).\n"
    "For an address: the N shortest paths from the GC roots to the object, each through a\n"
    "different referrer (the object holding it directly), as\n"
    "ROOT(category) -> Class @ivar -> Hash [\"key\"] -> ...; reference names come from memprof\n"
    "dumps, class names always. For a class: the shortest path of every instance, merged by\n"
    "shape (same root, classes and reference names, with indexes and hash keys generalized,\n"
    "a repeated step such as a linked list's @next folded), most instances first. Paths longer\n"
    "than --max-depth show their first and last steps. --referrers lists the direct referrers\n"
    "too. References held by weak maps do not retain and are never on a path.\n"
    "--format pprof (a gzip'd profile.proto) and folded (stacks for flame graphs) give every\n"
    "instance's merged path as its stack, from its GC root down, with the instances' count,\n"
    "own bytes and retained bytes (an instance another one keeps alive adds none of its\n"
    "own: no byte counts twice).\n",
    specs_of<kOptions>,
    run_answer_to_output<kOptions, answer>,
    render::kTextAndJson | render::kProfileFormats,
};

}  // namespace heapq::cli
