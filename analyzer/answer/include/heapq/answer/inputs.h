// The inputs of the commands that compare dumps over time: the dumps of one process, oldest
// first, each process named when there are several; and what a load skipped or repaired, in
// words. Opening and loading them is the input layer's (heapq/input/inputs.h).
#pragma once

#include <string>
#include <vector>

#include "heapq/base/result.h"
#include "heapq/input/inputs.h"

namespace heapq {

// Loads the dumps of one process over time (Inputs::open_over_time), oldest first: the last
// one whole, the earlier ones without their references (they are only counted and matched,
// never followed), each with what its roots reach (LoadedDump::reachable) taken before they go.
// Unless as_given, dump files whose META records say when they were written are taken in that
// order (told through options.note when it is not the order given), and dumps of several
// processes are refused, each process named with its dumps. Checked with check_one_process.
Result<std::vector<LoadedDump>> load_dumps_over_time(const std::vector<std::string>& paths,
                                                     const InputOptions& options, bool as_given);
Result<std::vector<LoadedDump>> load_dumps_over_time(Inputs& inputs, const InputOptions& options,
                                                     bool as_given);

// The inputs by the process whose heap they are (memprof's META), processes by pid, each
// process's dumps in the order their META records say they were written (time, then GC count)
// when every one says, told through options.note when that is not the order given; one group
// for dumps of one process, and for all of them as given when as_given. Dumps that do not say
// (ObjectSpace's, stdin) among those of several processes: a usage error.
Result<std::vector<ProcessInputs>> dumps_by_process(Inputs& inputs, const InputOptions& options,
                                                    bool as_given);
// load_dumps_over_time of one process's dumps, in their order (dumps_by_process's).
Result<std::vector<LoadedDump>> load_process_dumps(const std::vector<Input*>& inputs,
                                                   const InputOptions& options, bool as_given);

// Dumps of several processes are refused (a usage error naming each process with its dumps);
// those of one are put in the order their META records say they were written (time, then GC
// count), when every one says, told through options.note when that is not the order given.
// Others (ObjectSpace dumps, stores that do not say) stay as given.
Status take_in_time_order(std::vector<Input*>& dumps, const InputOptions& options);

// Dumps compared over time must be of one process and given oldest first, where they say
// (memprof's META: pid, time, GC count): a usage error when the last of dumps is of another
// process than one before it, or older, unless as_given (--as-given). Dumps that do not say
// (ObjectSpace's) are taken as given.
Status check_one_process(const std::vector<const LoadedDump*>& dumps, bool as_given);

// How many of the inputs are sampled profiles and how many dumps; a usage error when both are
// there.
struct ProfileInputs {
  size_t profiles = 0, dumps = 0;
};
Result<ProfileInputs> profile_inputs(const std::vector<Input*>& inputs);

// One-line summaries of what the load skipped or repaired, for stderr and for JSON output.
std::vector<std::string> load_warnings(const LoadedDump& dump);

// Whether the dump lacks objects its records reference: then what the roots do not reach in it
// may be alive, held by what is missing. ObjectSpace lets other threads run at each write of
// its buffer, so that its dump of a running program is no snapshot: an object they allocate
// where the walk has been is missing, though a record written later references it, and one
// allocated where the walk has not yet been reads as unreachable, the record of what holds it
// written before it. memprof writes with GC off and no other thread running.
bool lacks_referenced_objects(const LoadReport& report);

}  // namespace heapq
