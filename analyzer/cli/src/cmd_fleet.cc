// heapq fleet: what grows across the processes whose dumps a store holds.
#include "command.h"
#include "heapq/answer/ask/fleet.h"

namespace heapq::cli {

namespace {

constexpr Option<FleetOptions> kOptions[] = {
    Bind<FleetOptions>::text<&FleetOptions::app>("app", "NAME",
                                                 "only the dumps heapq load --app tagged NAME"),
    Bind<FleetOptions>::text<&FleetOptions::since>(
        "since", "TIME", "only the dumps taken at or after TIME (ISO 8601: 2026-11-24T10:00:00Z)"),
    top_option<FleetOptions>("groups to list, most processes first; 0 lists all"),
};

Result<render::Answer> answer(const GlobalOptions&, const Invocation<FleetOptions>& in) {
  if (in.inputs.size() != 1)
    return usage_error(
        "fleet takes one STORE: a server's URL or a store file (see heapq fleet "
        "--help)");
  HEAPQ_ASSIGN_OR_RETURN(const FleetOptions options, in.options());
  HEAPQ_ASSIGN_OR_RETURN(FleetAnswer fleet, answer_fleet(in.inputs[0], options));
  return render::Answer(std::move(fleet));
}

}  // namespace

const Command kFleetCommand = {
    "fleet",
    "what grows across processes: the dumps of many processes in one store (heapq load --to)",
    "heapq fleet [--app NAME] [--since TIME] [--top N] STORE",
    "Reads every dump of STORE (a PostgreSQL server's URL, or a store file) and tells apart its\n"
    "processes by host, pid and start (memprof's META says them; ObjectSpace dumps, which do\n"
    "not, are left out). In each process of two dumps or more, taken in time order, a group\n"
    "(class and allocation site, what the GC roots reach) grows when its count never falls\n"
    "from one dump to the next and ends higher. Lists the groups that grow in the most\n"
    "processes: in how many of those that hold them, objects and bytes an hour in each (the\n"
    "mean), their share of the last dumps' heaps, the fastest-growing processes and the hosts;\n"
    "then each process's heap from its first dump to its last. A leak in the code shows in\n"
    "every process that runs it; one process's growth alone is its own work or data.\n"
    "A process of no dump is read from its sampled profiles (heapq load P.pb.gz), where the\n"
    "store has them: their counts are estimates, and a group grows when it rises by two\n"
    "sampled objects or more. --app and --since choose among them as among dumps.\n",
    specs_of<kOptions>,
    run_answer<kOptions, answer>,
};

}  // namespace heapq::cli
