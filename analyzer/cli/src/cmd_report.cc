// heapq report: one HTML file that works offline: summary, top classes and sites, leaks with
// their retention trees, and the dominator tree to click through.
#include "command.h"
#include "heapq/answer/ask/report.h"
#include "input.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"o", "FILE", "the report to write (required)"},
    {"output", "FILE", "same as -o"},
    top_option("rows of each table", "50"),
    {"leaks", "N", "leaks shown, each with its retention tree", "5"},
    {"nodes", "N", "objects of the dominator tree drawn in the icicle", "2000"},
    kAsGivenOption,
};

Result<render::Answer> answer(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().empty())
    return usage_error("report takes one or more INPUTs (see heapq report --help)");
  HEAPQ_ASSIGN_OR_RETURN(const std::string output, get_output_path(args, "report"));
  if (output.empty()) return usage_error("report needs -o FILE (the HTML file to write)");
  HEAPQ_RETURN_IF_ERROR(refuse_output_over_inputs(output, args.positional()));
  ReportOptions options;
  HEAPQ_ASSIGN_OR_RETURN(options.top, get_count(args, "top"));
  HEAPQ_ASSIGN_OR_RETURN(options.leaks, get_count(args, "leaks"));
  HEAPQ_ASSIGN_OR_RETURN(options.nodes, get_count(args, "nodes"));
  options.as_given = args.has("as-given");
  HEAPQ_ASSIGN_OR_RETURN(ReportAnswer report,
                         answer_report(args.positional(), options, input_options(global)));
  return render::Answer(std::move(report));
}

}  // namespace

const Command kReportCommand = {
    "report",
    "one self-contained HTML file: summary, tables, leaks, the dominator tree",
    "heapq report -o FILE [--top N] [--leaks N] [--nodes N] INPUT...",
    "Writes one HTML file that opens offline in any browser (no network, no server): a\n"
    "summary of the last INPUT, its top classes and allocation sites with retained sizes\n"
    "(tables sort by any column), leaks as heapq leaks finds them (several INPUTs, or a\n"
    "store holding several dumps: what grows; one INPUT: where memory accumulates), each\n"
    "with its retention tree drawn by graphviz (what it holds as the leaves), and an icicle of the "
    "dominator tree's top\n"
    "--nodes objects: click to zoom in and out, hover for class, size, site and path.\n"
    "Dumps read from a PostgreSQL server (URL#N) add a section on the whole store (the\n"
    "dump's app's processes, where load --app named one): what grows across them, and each\n"
    "process's heap over time (heapq fleet URL).\n",
    kOptions,
    run_answer_to_output<answer>,
};

}  // namespace heapq::cli
