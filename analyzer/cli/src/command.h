// The subcommands of heapq and what they share: global options and the command table.
#pragma once

#include <span>
#include <string_view>

#include "args.h"
#include "bound_options.h"
#include "heapq/analyze/stats.h"
#include "heapq/render/render.h"

namespace heapq::cli {

struct GlobalOptions {
  render::Format format = render::Format::kText;
  bool quiet = false;
  bool strict = false;
  unsigned threads = 0;
  uint64_t max_line_mib = 1024;          // --max-line
  size_t width = render::kDefaultWidth;  // --width: columns of text output; 0: no limit
  std::string app_root;                  // --app-root
};

struct Command {
  std::string_view name;
  std::string_view summary;                  // one line for `heapq --help`
  std::string_view usage;                    // "heapq stats [options] INPUT"
  std::string_view details;                  // paragraphs after the usage line
  std::span<const OptionSpec> (*options)();  // specs_of<its options>
  int (*run)(const GlobalOptions& global, const ParsedArgs& args);
  render::Formats formats = render::kTextAndJson;  // what --format may name (render.h)
};

// Options several commands share, declared once; each sets the field of the command's struct.
inline constexpr Choice<SortKey> kSortKeys[] = {{"bytes", SortKey::kBytes},
                                                {"count", SortKey::kCount}};
template <typename O>
constexpr Option<O> sort_option() {
  return Bind<O>::template choice<&O::sort, kSortKeys>("sort", "KEY", "order by bytes or count");
}
template <typename O>
constexpr Option<O> retained_option() {
  return Bind<O>::template flag<&O::retained>(
      "retained", "also compute retained bytes (dominators; slower, more memory)");
}
template <typename O>
constexpr Option<O> output_option() {
  return Bind<O>::output("o", "FILE", "write to FILE instead of stdout");
}
template <typename O>
constexpr Option<O> output_long_option() {
  return Bind<O>::output("output", "FILE", "same as -o");
}
// --top N, where 0 lists all: what it counts is the command's, its default the field's.
template <typename O>
constexpr Option<O> top_option(std::string_view help) {
  return Bind<O>::template limit<&O::top>("top", "N", help);
}

std::span<const Command> commands();
std::span<const OptionSpec> global_options();
// The global options given, bound (a usage error for a value that is not one).
Result<GlobalOptions> bind_global(const ParsedArgs& args);
// The columns help fits: --width when it is one (help needs no valid options: a width that is
// not one leaves the default); SIZE_MAX for 0, no limit.
size_t help_width(const ParsedArgs& args);

// Defined in cmd_*.cc, one file per command.
extern const Command kStatsCommand;
extern const Command kSitesCommand;
extern const Command kRetainersCommand;
extern const Command kDominatorsCommand;
extern const Command kLeaksCommand;
extern const Command kDiffCommand;
extern const Command kLoadCommand;
extern const Command kSqlCommand;
extern const Command kVizCommand;
extern const Command kReportCommand;
extern const Command kStringsCommand;
extern const Command kFleetCommand;

}  // namespace heapq::cli

namespace heapq::cli {

// Prints "heapq: MESSAGE" on stderr and returns the error's exit status.
int report_error(const Error& error);

// The one place an answer becomes output: rendered in the format asked for and written to
// stdout, or to `output` (whole, heapq/temp_file.h), or its error reported; the exit status.
int emit_answer(const GlobalOptions& global, const Result<render::Answer>& answer,
                const std::string& output = "");

// The run of a command: Fn(global, its invocation) (bound_options.h).
template <const auto& Options, auto Fn>
int run_bound(const GlobalOptions& global, const ParsedArgs& args) {
  return Fn(global, bind_options<Options>(args));
}

// The run of a command that returns its answer.
template <const auto& Options, auto AnswerFn>
int run_answer(const GlobalOptions& global, const ParsedArgs& args) {
  return emit_answer(global, AnswerFn(global, bind_options<Options>(args)));
}

// The same for a command whose output goes to -o FILE (or --output FILE) when given. The
// answer function checks the option, and refuses an output that is one of its inputs, before
// reading them.
template <const auto& Options, auto AnswerFn>
int run_answer_to_output(const GlobalOptions& global, const ParsedArgs& args) {
  const auto invocation = bind_options<Options>(args);
  const Result<render::Answer> answer = AnswerFn(global, invocation);
  return emit_answer(global, answer, answer ? invocation.output : "");
}

// Whether the format asked for is a profile (pprof, folded).
inline bool profile_format(const GlobalOptions& global) {
  return render::kProfileFormats.has(global.format);
}

// The format asked for, as --format names it.
inline std::string format_name(const GlobalOptions& global) {
  return std::string(render::format_name(global.format));
}

}  // namespace heapq::cli
