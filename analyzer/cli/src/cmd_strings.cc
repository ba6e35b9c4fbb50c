// heapq strings: duplicate strings by value, and the lines that make the copies.
#include "command.h"
#include "heapq/answer/ask/strings.h"
#include "input.h"

namespace heapq::cli {

namespace {

constexpr Option<StringsOptions> kOptions[] = {
    top_option<StringsOptions>("values (and lines) to list, most wasted bytes first; 0 lists all"),
};

Result<render::Answer> answer(const GlobalOptions& global, const Invocation<StringsOptions>& in) {
  if (in.inputs.size() != 1)
    return usage_error("strings takes one INPUT, a dump (see heapq strings --help)");
  HEAPQ_ASSIGN_OR_RETURN(const StringsOptions options, in.options());
  HEAPQ_ASSIGN_OR_RETURN(StringsAnswer strings,
                         answer_strings(in.inputs[0], options, input_options(global)));
  return render::Answer(std::move(strings));
}

}  // namespace

const Command kStringsCommand = {
    "strings",
    "duplicate strings: values held by many String objects, and the lines that make them",
    "heapq strings [--top N] INPUT",
    "Groups the dump's String objects by value and lists the values held by two copies or\n"
    "more, the most wasted bytes first (what all copies but the smallest take): how many\n"
    "copies, their bytes, how many are frozen and how many interned (deduplicated by Ruby,\n"
    "as \"str\".freeze literals and -\"str\" are), and the lines that allocated them. Then the\n"
    "lines that make the most copies of one value: where a constant, a frozen literal or\n"
    "String#-@ would keep one copy. Needs a dump file, whose STRING records hold their values\n"
    "(ObjectSpace's do; memprof cuts them at its strings: limit and writes a hash of the whole\n"
    "value, so that cut values are told apart); a store keeps no values. Text shows a value's\n"
    "beginning, escaped; JSON has it as the dump does.\n",
    specs_of<kOptions>,
    run_answer<kOptions, answer>,
};

}  // namespace heapq::cli
