#include <algorithm>
#include <cstdio>
#include <optional>

#include "command.h"
#include "heapq/render/terminal_text.h"
#include "output.h"

namespace heapq::cli {

namespace {

const Command* const kCommands[] = {&kStatsCommand,      &kSitesCommand,  &kRetainersCommand,
                                    &kDominatorsCommand, &kLeaksCommand,  &kDiffCommand,
                                    &kStringsCommand,    &kLoadCommand,   &kSqlCommand,
                                    &kVizCommand,        &kReportCommand, &kFleetCommand};

using G = GlobalOptions;
using Set = Status (*)(Invocation<G>&, std::string_view, const std::string&);

constexpr Set kSetFormat = [](Invocation<G>& in, std::string_view, const std::string& v) -> Status {
  const std::optional<render::Format> named = render::format_named(v);
  if (!named)
    return usage_error(
        "--format expects text or json (or csv for sql, dot or svg for viz, pprof or folded for "
        "sites, retainers and dominators), not \"" +
        v + "\"");
  in.values.format = *named;
  return Ok{};
};
constexpr Set kSetThreads = [](Invocation<G>& in, std::string_view n,
                               const std::string& v) -> Status {
  HEAPQ_ASSIGN_OR_RETURN(const uint64_t threads, parse_count(n, v));
  in.values.threads = static_cast<unsigned>(std::min<uint64_t>(threads, 64));
  return Ok{};
};
constexpr Set kSetMaxLine = [](Invocation<G>& in, std::string_view n,
                               const std::string& v) -> Status {
  HEAPQ_ASSIGN_OR_RETURN(const uint64_t mib, parse_count(n, v));
  if (mib == 0 || mib > (uint64_t(1) << 20))
    return usage_error("--max-line expects MiB from 1 to 1048576, not " + std::to_string(mib));
  in.values.max_line_mib = mib;
  return Ok{};
};
constexpr Set kSetWidth = [](Invocation<G>& in, std::string_view n,
                             const std::string& v) -> Status {
  HEAPQ_ASSIGN_OR_RETURN(const uint64_t width, parse_count(n, v));
  if (width != 0 && width < 40)
    return usage_error("--width expects 0 (no limit) or at least 40 columns, not " +
                       std::to_string(width));
  in.values.width = width;
  return Ok{};
};
// --help and --version are answered before the options are bound: they set nothing.
constexpr Set kSetNothing = [](Invocation<G>&, std::string_view, const std::string&) -> Status {
  return Ok{};
};

constexpr Option<G> kGlobalOptions[] = {
    {"format", "FORMAT",
     "text or json; also csv for sql, dot or svg for viz, pprof (gzip'd profile.proto) or "
     "folded (stacks for flame graphs) for sites, retainers and dominators",
     kSetFormat, [](const G& d) { return std::string(render::format_name(d.format)); }},
    Bind<G>::flag<&G::quiet>(
        "quiet", "no progress bar and no warnings on stderr (JSON output still lists them)"),
    Bind<G>::flag<&G::strict>(
        "strict", "stop at the first problem in the input (exit status 2) instead of skipping it"),
    {"threads", "N", "threads that parse (0: one per core); 1 also makes report one part at a time",
     kSetThreads, [](const G& d) { return std::to_string(d.threads); }},
    {"max-line", "MIB", "longest line read, in MiB; a longer one is an error", kSetMaxLine,
     [](const G& d) { return std::to_string(d.max_line_mib); }},
    {"width", "N", "columns of text output, terminal or not; 0: no limit", kSetWidth,
     [](const G& d) { return std::to_string(d.width); }},
    Bind<G>::text<&G::app_root>(
        "app-root", "DIR",
        "the app's directory: the frames of memprof's allocation stacks under it (outside gems) "
        "are the app's line; default: any frame outside gems and Ruby's library"),
    {"help", "", "show help (also: heapq COMMAND --help)", kSetNothing},
    {"version", "", "show the version", kSetNothing},
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
  return specs_of<kGlobalOptions>();
}

Result<GlobalOptions> bind_global(const ParsedArgs& args) {
  return bind_options<kGlobalOptions>(args).options();
}

size_t help_width(const ParsedArgs& args) {
  const size_t columns = bind_options<kGlobalOptions>(args).values.width;
  return columns == 0 ? SIZE_MAX : columns;
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
