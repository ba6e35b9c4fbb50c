// heapq stats: totals, and counts and bytes by type and by class.
#include "command.h"
#include "heapq/answer/ask/stats.h"
#include "input.h"

namespace heapq::cli {

namespace {

constexpr Option<StatsOptions> kOptions[] = {
    top_option<StatsOptions>("classes to list, largest first; 0 lists all"),
    sort_option<StatsOptions>(),
    retained_option<StatsOptions>(),
};

Result<render::Answer> answer(const GlobalOptions& global, const Invocation<StatsOptions>& in) {
  if (in.inputs.size() != 1) return usage_error("stats takes one INPUT (see heapq stats --help)");
  HEAPQ_ASSIGN_OR_RETURN(const StatsOptions options, in.options());
  HEAPQ_ASSIGN_OR_RETURN(StatsAnswer stats,
                         answer_stats(in.inputs[0], options, input_options(global)));
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
    specs_of<kOptions>,
    run_answer<kOptions, answer>,
};

}  // namespace heapq::cli
