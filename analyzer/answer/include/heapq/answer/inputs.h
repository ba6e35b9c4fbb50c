// What a command is given to read: a dump file (plain or gzip), stdin, or a dump of a store
// (heapq load), each loaded with its report of what was skipped; and dumps of one process over
// time, oldest first.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "heapq/base/result.h"
#include "heapq/model/heap_graph.h"
#include "heapq/model/load.h"
#include "heapq/read/sampled_profile.h"

namespace heapq {

struct LoadedDump {
  std::string path;  // as given ("<stdin>" for -)
  HeapGraph graph;
  LoadReport report;
  std::string name = path;  // for text headers: a store's dump by its number, "app.db#3"
  // By object: what the roots reach, for a dump loaded without its references (an older dump
  // of load_dumps_over_time); empty when not taken.
  std::vector<bool> reachable;
  std::string app;  // a store's dump: heapq load --app; empty: none, or not from a store
};

// What a command reads of its INPUT.
enum class Needs {
  kGraph,        // objects and references
  kObjects,      // objects only: a store opens without its references; a dump is read whole all
                 // the same, so that its load report counts the references that lead nowhere
  kObjectsOnly,  // objects only, a dump's references not even resolved (faster; its report
                 // cannot count the dangling ones)
  kValues,       // objects and the STRING values of a dump, its references not resolved (a store
                 // keeps no values: an error)
};

struct InputOptions {
  bool strict = false;           // the first problem in a dump is an error (exit status 2)
  unsigned threads = 0;          // parser threads; 0: one per core; 1: report one part at a time
  uint64_t max_line_mib = 1024;  // the longest line read
  std::string app_root;          // LoadOptions::app_root
  // Called as a dump file starts to be read; what it returns is told the bytes read so far (a
  // progress bar), and dropped when the file is read.
  std::function<std::function<void(uint64_t, uint64_t)>(const std::string& path)> progress;
  // Called with each input once loaded (to print its load_warnings).
  std::function<void(const LoadedDump&)> loaded;
  // Called with a remark on how inputs are taken (dumps put in the order they were written).
  std::function<void(const std::string&)> note;
};

// PATH may be a store (heapq load): STORE.db reads its last dump, STORE.db#N dump N.
Result<LoadedDump> load_input(const std::string& path, const InputOptions& options,
                              Needs needs = Needs::kGraph);

// The dumps of one process over time, oldest first: the paths as given, or for a single store
// holding several dumps, each of them (STORE#1, STORE#2, ...).
Result<std::vector<std::string>> dumps_over_time(const std::vector<std::string>& paths);

// Loads those dumps, oldest first: the last one whole, the earlier ones without their references
// (they are only counted and matched, never followed), each with what its roots reach
// (LoadedDump::reachable) taken before they go. Unless as_given, dump files whose META records
// say when they were written are taken in that order (told through options.note when it is not
// the order given), and dumps of several processes are refused, each process named with its
// dumps. Checked with check_one_process.
Result<std::vector<LoadedDump>> load_dumps_over_time(const std::vector<std::string>& paths,
                                                     const InputOptions& options, bool as_given);

// Dumps over time (dumps_over_time) by the process whose heap they are (memprof's META pid),
// processes by pid, each process's dumps in the order their META records say they were written
// (time, then GC count) when every one says, told through options.note when that is not the
// order given; one group (pid 0 when none says) for dumps of one process, and for all of them
// as given when as_given. Dumps that do not say (ObjectSpace's, stores, stdin) among those of
// several processes: a usage error. Each dump's META is read once.
struct ProcessDumps {
  uint64_t pid = 0;
  std::string host, started;  // as the dumps' META says; empty: unknown
  std::vector<std::string> paths;
};
Result<std::vector<ProcessDumps>> dumps_by_process(const std::vector<std::string>& paths,
                                                   const InputOptions& options, bool as_given);
// load_dumps_over_time of one process's dumps, in their order (dumps_by_process's).
Result<std::vector<LoadedDump>> load_process_dumps(const std::vector<std::string>& paths,
                                                   const InputOptions& options, bool as_given);

// Dump files of several processes are refused (a usage error naming each process with its
// dumps); those of one are put in the order their META records say they were written (time,
// then GC count), when every one says, told through options.note when that is not the order
// given. Others (ObjectSpace dumps, stores, stdin) stay as given.
Status take_in_time_order(std::vector<std::string>& paths, const InputOptions& options);

// Dumps compared over time must be of one process and given oldest first, where they say
// (memprof's META: pid, time, GC count): a usage error when the last of dumps is of another
// process than one before it, or older, unless as_given (--as-given). Dumps that do not say
// (ObjectSpace's) are taken as given.
Status check_one_process(const std::vector<const LoadedDump*>& dumps, bool as_given);

// Refuses (usage error) an output that is one of the inputs: the same file (device and inode,
// whatever the names: a hard link, a symlink, "./x"), a store's dump ("app.db#2") included.
// Inputs that do not exist or are stdin ("-") are skipped.
Status refuse_output_over_inputs(const std::string& output, const std::vector<std::string>& inputs);

// Whether INPUT is a sampled profile (Memprof.profile's pprof) rather than a dump, by its first
// bytes (looks_like_profile): a regular file only (stdin, a pipe and a store never are: a pipe
// cannot be peeked at and read again).
bool is_profile_input(const std::string& path);
// How many of the inputs are profiles and how many dumps; a usage error when both are there.
struct ProfileInputs {
  size_t profiles = 0, dumps = 0;
};
Result<ProfileInputs> profile_inputs(const std::vector<std::string>& paths);
// Reads a sampled profile (read_sampled_profile).
Result<SampledProfile> load_profile(const std::string& path);

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
