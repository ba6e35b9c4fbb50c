// heapq retainers: why is this object (or this class's instances) alive?
#include "command.h"
#include "heapq/answer/ask/profile.h"
#include "heapq/answer/ask/retainers.h"
#include "input.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"paths", "N", "paths to show (for a class, path shapes); 0: all", "3"},
    {"max-depth", "D",
     "steps shown of a path, its middle elided past them; for a class, the deepest "
     "shape, deeper paths merged into it",
     "64"},
    {"referrers", "", "also list the direct referrers"},
    {"site", "FILE:LINE",
     "a class TARGET's instances allocated there only (FILE as the dump names it, or its end)"},
    kOutputOption,
    kOutputLongOption,
};

Result<render::Answer> answer(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().size() != 2)
    return usage_error("retainers takes INPUT and TARGET (see heapq retainers --help)");
  RetainersOptions options;
  HEAPQ_ASSIGN_OR_RETURN(options.paths, get_limit(args, "paths"));
  HEAPQ_ASSIGN_OR_RETURN(options.max_depth, get_count(args, "max-depth"));
  options.referrers = args.has("referrers");
  options.site = args.get("site");
  HEAPQ_ASSIGN_OR_RETURN(const std::string output, get_output_path(args));
  HEAPQ_RETURN_IF_ERROR(refuse_output_over_inputs(output, {args.positional()[0]}));
  if (profile_format(global)) {
    if (args.has("paths") || args.has("referrers"))
      return usage_error("--format " + args.get("format") +
                         " profiles every instance's path: no --paths or --referrers");
    HEAPQ_ASSIGN_OR_RETURN(ProfileAnswer profile,
                           answer_retainers_profile(args.positional()[0], args.positional()[1],
                                                    options, input_options(global)));
    return render::Answer(std::move(profile));
  }
  HEAPQ_ASSIGN_OR_RETURN(
      RetainersAnswer retainers,
      answer_retainers(args.positional()[0], args.positional()[1], options, input_options(global)));
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
    kOptions,
    run_answer_to_output<answer>,
    render::kTextAndJson | render::kProfileFormats,
};

}  // namespace heapq::cli
