#include <cstdio>

#include "command.h"
#include "heapq/render/terminal_text.h"
#include "output.h"

namespace heapq::cli {

namespace {

const Command* const kCommands[] = {&kStatsCommand,      &kSitesCommand,  &kRetainersCommand,
                                    &kDominatorsCommand, &kLeaksCommand,  &kDiffCommand,
                                    &kStringsCommand,    &kLoadCommand,   &kSqlCommand,
                                    &kVizCommand,        &kReportCommand, &kFleetCommand};

const OptionSpec kGlobalOptions[] = {
    {"format", "FORMAT",
     "text or json; also csv for sql, dot or svg for viz, pprof (gzip'd profile.proto) or "
     "folded (stacks for flame graphs) for sites, retainers and dominators",
     "text"},
    {"quiet", "", "no progress bar and no warnings on stderr (JSON output still lists them)"},
    {"strict", "", "stop at the first problem in the input (exit status 2) instead of skipping it"},
    {"threads", "N", "threads that parse (0: one per core); 1 also makes report one part at a time",
     "0"},
    {"max-line", "MIB", "longest line read, in MiB; a longer one is an error", "1024"},
    {"width", "N", "columns of text output, terminal or not; 0: no limit", "80"},
    {"app-root", "DIR",
     "the app's directory: the frames of memprof's allocation stacks under it (outside gems) "
     "are the app's line; default: any frame outside gems and Ruby's library"},
    {"help", "", "show help (also: heapq COMMAND --help)"},
    {"version", "", "show the version"},
};

std::vector<Command> table() {
  std::vector<Command> out;
  for (const Command* c : kCommands) out.push_back(*c);
  return out;
}

}  // namespace

std::span<const Command> commands() {
  static const std::vector<Command> all = table();
  return all;
}

std::span<const OptionSpec> global_options() {
  return kGlobalOptions;
}

int report_error(const Error& error) {
  std::fprintf(stderr, "heapq: %s\n", escape_controls(error.message).c_str());
  return static_cast<int>(error.code);
}

int emit_answer(const GlobalOptions& global, const Result<render::Answer>& answer,
                const std::string& output) {
  if (!answer) return report_error(answer.error());
  const Result<std::string> rendered =
      render::render(answer.value(), global.format, {global.width});
  if (!rendered) return report_error(rendered.error());
  if (output.empty()) return emit(rendered.value()) ? 0 : static_cast<int>(ExitCode::kIo);
  const Status written = write_file(output, rendered.value(), global.quiet);
  return written ? 0 : report_error(written.error());
}

}  // namespace heapq::cli
