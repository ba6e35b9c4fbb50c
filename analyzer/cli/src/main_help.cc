#include "main_help.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <new>
#include <optional>

#include "command.h"
#include "heapq/render/help.h"
#include "heapq/render/terminal_text.h"
#include "heapq/store/store.h"
#include "output.h"

#ifndef HEAPQ_VERSION
#define HEAPQ_VERSION "unknown"
#endif

namespace heapq::cli {

namespace {

constexpr char kVersionLine[] = "heapq " HEAPQ_VERSION "\n";  // --version, with a command or not

std::string tool_help(size_t width) {
  std::string out =
      "usage: heapq [--format text|json|...] [--width N] [--quiet] [--strict] COMMAND\n"
      "             [options] INPUT\n\n"
      "Analyzes Ruby heap dumps: Memprof.dump_all and ObjectSpace.dump_all output of\n"
      "any Ruby version, plain or gzip-compressed; INPUT - reads stdin. Text output\n"
      "fits 80 columns (--width): long names are cut in the middle, long lines wrap.\n\n"
      "commands:\n";
  size_t column = 0;
  for (const Command& c : commands()) column = std::max(column, c.name.size());
  for (const Command& c : commands()) {
    std::string name = "  " + std::string(c.name);
    name.resize(column + 4, ' ');
    out += name + render::wrap_words(c.summary, name.size(), name.size(), width) + "\n";
  }
  out += "\noptions (before or after the command):\n" + describe_options(global_options(), width) +
         "\nexit status: 0 success, 1 usage error, 2 bad input, 3 I/O error.\n"
         "heapq COMMAND --help tells more about a command.\n";
  return out;
}

std::string command_help(const Command& c, size_t width) {
  std::string out = render::fit_help("usage: " + std::string(c.usage), width) + "\n" +
                    render::fit_help(c.details, width);
  if (!c.options().empty()) out += "\noptions:\n" + describe_options(c.options(), width);
  out += "\nglobal options:\n" + describe_options(global_options(), width);
  return out;
}

// True when `name` is one of specs that takes a value (--format json): the next argument is it.
bool takes_value(std::span<const OptionSpec> specs, std::string_view name) {
  return std::any_of(specs.begin(), specs.end(),
                     [&](const OptionSpec& s) { return s.name == name && !s.value_name.empty(); });
}

const Command* find_command(const std::string& name) {
  for (const Command& c : commands())
    if (c.name == name) return &c;
  return nullptr;
}

// A format the command does not write, or pprof to a terminal: said before any input is read.
Status check_format(const Command& command, const GlobalOptions& global, const ParsedArgs& args) {
  const std::string name(command.name);
  const bool draws = command.formats.has(render::Format::kDot);
  if (!command.formats.has(global.format)) {
    if (global.format == render::Format::kCsv)
      return usage_error("--format csv is for heapq sql; " + name + " writes text or json");
    if (render::kPictureFormats.has(global.format))
      return usage_error("--format dot and svg are for heapq viz; " + name +
                         " writes text or json");
    if (profile_format(global))
      return usage_error(
          "--format pprof and folded are for heapq sites, retainers and dominators; " + name +
          " writes " + (draws ? "dot or svg" : "text or json"));
    return usage_error("heapq " + name + " draws dot or svg, not json");
  }
  // Compressed bytes would only garble a terminal.
  if (global.format == render::Format::kPprof && !args.has("o") && !args.has("output") &&
      ::isatty(STDOUT_FILENO))
    return usage_error(
        "--format pprof writes a binary file: give -o FILE (for example heap.pb.gz) or redirect "
        "the output");
  return Ok{};
}

}  // namespace

extern "C" void cancel_and_reraise(int sig) {
  heapq::cancel_server_statements();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int run_heapq(const std::vector<std::string>& args) {
  // The command is the first positional argument; global options may come before or after it.
  const Command* command = nullptr;
  size_t at = 0;
  size_t dashes = SIZE_MAX;  // a "--" before the command ends the global options
  for (; at < args.size(); ++at) {
    if (args[at] == "--" && dashes == SIZE_MAX) {
      dashes = at;
      continue;
    }
    if (dashes != SIZE_MAX || args[at] == "-" || !args[at].starts_with("-")) {
      command = find_command(args[at]);
      if (!command && args[at] != "help")
        return report_error(usage_error("unknown command \"" + args[at] + "\" (see heapq --help)"));
      break;
    }
    // A global option's value is not the command.
    const size_t letter = args[at].find_first_not_of('-');
    std::string name = letter == std::string::npos ? "" : args[at].substr(letter);
    if (takes_value(global_options(), name) && at + 1 < args.size()) ++at;
  }
  if (at < args.size() && args[at] == "help") {
    const Command* about = at + 1 < args.size() ? find_command(args[at + 1]) : nullptr;
    return emit(about ? command_help(*about, render::kDefaultWidth)
                      : tool_help(render::kDefaultWidth))
               ? 0
               : 3;
  }
  if (!command) {
    auto parsed = parse_args(std::span(args).first(std::min(at, dashes)), global_options());
    if (!parsed) return report_error(parsed.error());
    const size_t width = help_width(*parsed);
    if (parsed->has("version")) return emit(kVersionLine) ? 0 : 3;
    if (parsed->has("help")) return emit(tool_help(width)) ? 0 : 3;
    std::fputs(tool_help(width).c_str(), stderr);
    return static_cast<int>(heapq::ExitCode::kUsage);
  }

  std::vector<OptionSpec> specs(command->options().begin(), command->options().end());
  specs.insert(specs.end(), global_options().begin(), global_options().end());
  std::vector<std::string> command_args;
  for (size_t i = 0; i < at; ++i)
    if (i != dashes) command_args.push_back(args[i]);
  command_args.insert(command_args.end(), args.begin() + at + 1, args.end());
  auto parsed = parse_args(command_args, specs);
  if (!parsed) return report_error(parsed.error());
  if (parsed->has("help")) return emit(command_help(*command, help_width(*parsed))) ? 0 : 3;
  if (parsed->has("version")) return emit(kVersionLine) ? 0 : 3;
  auto global = bind_global(*parsed);
  if (!global) return report_error(global.error());
  if (Status format = check_format(*command, *global, *parsed); !format)
    return report_error(format.error());
  // A server's notices are a stranger's text: escaped, and silent with --quiet.
  if (!global->quiet)
    heapq::set_server_notices(
        [](const std::string& line) { std::fprintf(stderr, "heapq: %s\n", line.c_str()); });
  // Stopped, heapq leaves no statement running on a server (its connection's end alone would
  // not stop a query that has sent nothing yet).
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    if (std::signal(sig, cancel_and_reraise) == SIG_IGN) std::signal(sig, SIG_IGN);
  // An allocation that failed anywhere (a dump bigger than the memory): said, never an abort.
  try {
    return command->run(*global, *parsed);
  } catch (const std::bad_alloc&) {
    return report_error(heapq::out_of_memory());
  }
}

}  // namespace heapq::cli
