// heapq report: one HTML file that works offline: summary, top classes and sites, leaks with
// their retention trees, and the dominator tree to click through.
#include "command.h"
#include "heapq/answer/ask/report.h"
#include "input.h"

namespace heapq::cli {

namespace {

using O = ReportOptions;

constexpr Option<O> kOptions[] = {
    Bind<O>::output("o", "FILE", "the report to write (required)"),
    Bind<O>::output("output", "FILE", "same as -o"),
    Bind<O>::count<&O::top>("top", "N", "rows of each table"),
    Bind<O>::count<&O::leaks>("leaks", "N", "leaks shown, each with its retention tree"),
    Bind<O>::count<&O::nodes>("nodes", "N", "objects of the dominator tree drawn in the icicle"),
    as_given_option<O>(),
};

Result<render::Answer> answer(const GlobalOptions& global, const Invocation<O>& in) {
  if (in.inputs.empty())
    return usage_error("report takes one or more INPUTs (see heapq report --help)");
  HEAPQ_RETURN_IF_ERROR(in.output_once("report"));
  if (in.output.empty()) return usage_error("report needs -o FILE (the HTML file to write)");
  HEAPQ_RETURN_IF_ERROR(refuse_output_over_inputs(in.output, in.inputs));
  HEAPQ_ASSIGN_OR_RETURN(const O options, in.options());
  HEAPQ_ASSIGN_OR_RETURN(ReportAnswer report,
                         answer_report(in.inputs, options, input_options(global)));
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
    specs_of<kOptions>,
    run_answer_to_output<kOptions, answer>,
};

}  // namespace heapq::cli
