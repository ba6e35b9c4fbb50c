// heapq stats: totals, and counts and bytes by type and by class.
#include "command.h"
#include "heapq/answer/ask/stats.h"
#include "input.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    top_option("classes to list, largest first; 0 lists all", "20"),
    kSortOption,
    kRetainedOption,
};

Result<render::Answer> answer(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().size() != 1)
    return usage_error("stats takes one INPUT (see heapq stats --help)");
  StatsOptions options;
  HEAPQ_ASSIGN_OR_RETURN(options.top, get_limit(args, "top"));
  HEAPQ_ASSIGN_OR_RETURN(options.sort, get_sort(args));
  options.retained = args.has("retained");
  HEAPQ_ASSIGN_OR_RETURN(StatsAnswer stats,
                         answer_stats(args.positional()[0], options, input_options(global)));
  return render::Answer(std::move(stats));
}

}  // namespace

const Command kStatsCommand = {
    "stats",
    "object counts and bytes by type and by class",
    "heapq stats [--top N] [--sort bytes|count] [--retained] INPUT",
    "Counts the live objects of the dump and their memory (memsize, as Ruby reports it), in all,\n"
    "by type (STRING, ARRAY, ...) and by class, largest first. INPUT is a dump file from\n"
    "ObjectSpace.dump_all or Memprof.dump_all, plain or gzip, or - for stdin. --retained adds\n"
    "each class's retained bytes: what freeing all its instances at once would free, including\n"
    "what they hold together though none of them alone does (one walk of the heap per row shown\n"
    "at worst: keep --top small on big dumps).\n",
    kOptions,
    run_answer<answer>,
};

}  // namespace heapq::cli
