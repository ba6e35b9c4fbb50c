// heapq diff: what changed between two dumps of one process, by class, site or gem.
#include "command.h"
#include "heapq/answer/ask/diff.h"
#include "input.h"

namespace heapq::cli {

namespace {

constexpr Choice<GroupBy> kGroupings[] = {
    {"class", GroupBy::kClass}, {"site", GroupBy::kClassAndSite}, {"gem", GroupBy::kGem}};

constexpr Option<DiffOptions> kOptions[] = {
    Bind<DiffOptions>::choice<&DiffOptions::by, kGroupings>(
        "by", "GROUP", "rows: class, site (file:line, class) or gem"),
    top_option<DiffOptions>("rows to list, largest growth first; 0: all"),
    as_given_option<DiffOptions>(),
};

Result<render::Answer> answer(const GlobalOptions& global, const Invocation<DiffOptions>& in) {
  HEAPQ_ASSIGN_OR_RETURN(const DiffOptions options, in.options());
  HEAPQ_ASSIGN_OR_RETURN(DiffAnswer diff, answer_diff(in.inputs, options, input_options(global)));
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
    specs_of<kOptions>,
    run_answer<kOptions, answer>,
};

}  // namespace heapq::cli
