// The subcommands of heapq and what they share: global options and the command table.
#pragma once

#include <span>
#include <string_view>

#include "args.h"
#include "heapq/analyze/stats.h"
#include "heapq/render/render.h"

namespace heapq::cli {

struct GlobalOptions {
  render::Format format = render::Format::kText;
  bool quiet = false;
  bool strict = false;
  unsigned threads = 0;
  uint64_t max_line_mib = 1024;  // --max-line
  size_t width = 80;             // --width: columns of text output; 0: no limit
  std::string app_root;          // --app-root
};

struct Command {
  std::string_view name;
  std::string_view summary;  // one line for `heapq --help`
  std::string_view usage;    // "heapq stats [options] INPUT"
  std::string_view details;  // paragraphs after the usage line
  std::span<const OptionSpec> options;
  int (*run)(const GlobalOptions& global, const ParsedArgs& args);
  render::Formats formats = render::kTextAndJson;  // what --format may name (render.h)
};

// Options several commands share, declared once.
inline constexpr OptionSpec kSortOption = {"sort", "KEY", "order by bytes or count", "bytes"};
inline constexpr OptionSpec kRetainedOption = {
    "retained", "", "also compute retained bytes (dominators; slower, more memory)"};
inline constexpr OptionSpec kOutputOption = {"o", "FILE", "write to FILE instead of stdout"};
inline constexpr OptionSpec kOutputLongOption = {"output", "FILE", "same as -o"};
// --top N: what it counts is the command's, and its default.
constexpr OptionSpec top_option(std::string_view help, std::string_view fallback) {
  return {"top", "N", help, fallback};
}

std::span<const Command> commands();
std::span<const OptionSpec> global_options();

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

// The run of a command that returns its answer.
template <Result<render::Answer> (*AnswerFn)(const GlobalOptions&, const ParsedArgs&)>
int run_answer(const GlobalOptions& global, const ParsedArgs& args) {
  return emit_answer(global, AnswerFn(global, args));
}

// The same for a command whose output goes to -o FILE (or --output FILE) when given. The
// answer function checks the option, and refuses an output that is one of its inputs, before
// reading them.
template <Result<render::Answer> (*AnswerFn)(const GlobalOptions&, const ParsedArgs&)>
int run_answer_to_output(const GlobalOptions& global, const ParsedArgs& args) {
  const Result<render::Answer> answer = AnswerFn(global, args);
  return emit_answer(global, answer, answer ? get_output_path(args).value() : "");
}

// Whether the format asked for is a profile (pprof, folded).
inline bool profile_format(const GlobalOptions& global) {
  return render::kProfileFormats.has(global.format);
}

// Parses --sort (bytes or count).
Result<SortKey> get_sort(const ParsedArgs& args);

}  // namespace heapq::cli
