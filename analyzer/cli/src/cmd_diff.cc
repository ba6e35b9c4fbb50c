// heapq diff: what changed between two dumps of one process, by class, site or gem.
#include "command.h"
#include "heapq/answer/ask/diff.h"
#include "input.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"by", "GROUP", "rows: class, site (file:line, class) or gem", "class"},
    top_option("rows to list, largest growth first; 0: all", "20"),
    kAsGivenOption,
};

Result<GroupBy> get_grouping(const ParsedArgs& args) {
  std::string by = args.get("by");
  if (by == "class") return GroupBy::kClass;
  if (by == "site") return GroupBy::kClassAndSite;
  if (by == "gem") return GroupBy::kGem;
  return usage_error("--by expects class, site or gem, not \"" + by + "\"");
}

Result<render::Answer> answer(const GlobalOptions& global, const ParsedArgs& args) {
  DiffOptions options;
  HEAPQ_ASSIGN_OR_RETURN(options.by, get_grouping(args));
  HEAPQ_ASSIGN_OR_RETURN(options.top, get_limit(args, "top"));
  options.as_given = args.has("as-given");
  HEAPQ_ASSIGN_OR_RETURN(DiffAnswer diff,
                         answer_diff(args.positional(), options, input_options(global)));
  return render::Answer(std::move(diff));
}

}  // namespace

const Command kDiffCommand = {
    "diff",
    "what changed between two dumps: counts and bytes, born and freed",
    "heapq diff [--by class|site|gem] [--top N] BEFORE AFTER",
    "Compares two dumps of one process (or the first and last dump of a store): for\n"
    "each class (--by site: allocation site and class; --by gem: the gem that\n"
    "allocated), the objects and bytes after, their change since BEFORE, how many\n"
    "were born since BEFORE and how many of BEFORE's were freed; the largest growth\n"
    "in bytes first. Objects are matched across the dumps as heapq leaks matches\n"
    "them (memprof's seq, else address, class and GC generation). Every object of a\n"
    "dump counts, as heapq stats counts them. --format json gives by_class and\n"
    "by_site (and by_gem with --by gem).\n",
    kOptions,
    run_answer<answer>,
};

}  // namespace heapq::cli
