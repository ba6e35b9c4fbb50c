// What a command is given to read, each INPUT opened once: a dump file (plain or gzip), stdin
// or a pipe, a sampled profile, or a store's dump (heapq load: app.db, app.db#2,
// postgresql://...#3). What an input is, and which process it says it is of, come from its
// first bytes; its source stays open for its load, so that a file is opened once and a pipe
// read once; a store's dumps are read on one connection.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "heapq/base/result.h"
#include "heapq/model/heap_graph.h"
#include "heapq/read/byte_source.h"
#include "heapq/read/load_report.h"
#include "heapq/read/sampled_profile.h"
#include "heapq/store/store.h"

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

// What an input is: a store's dump (by SQLite's header, or a server's URL), a sampled profile
// (Memprof.profile's pprof, by its first bytes: looks_like_profile), else a dump.
enum class InputKind { kDump, kProfile, kStore };

// One input, opened.
struct Input {
  std::string path;  // as given (a server's URL without its password)
  InputKind kind = InputKind::kDump;
  // Which process it is of, and when: a dump's META record (read by the dump reader's own
  // parser), or what its store says of the dump; none where it does not say.
  std::optional<DumpOrigin> origin;
  std::optional<OpenedInput> file;   // a dump or a profile
  StoreConnection* store = nullptr;  // a store's dump (Inputs holds the connection)
  int64_t dump = 0;                  // which of the store's (StoreRef::dump; 0: the last)
};

// The inputs of a command, each opened once, a store's on one connection.
class Inputs {
 public:
  // Opens each path: an error (exit status 3) names one that cannot be opened.
  static Result<Inputs> open(const std::vector<std::string>& paths);
  // The same for dumps over time: one store given alone stands for each of its dumps, in the
  // order they were loaded (STORE#1, STORE#2, ...).
  static Result<Inputs> open_over_time(const std::vector<std::string>& paths);
  // Opens one more (heapq load opens each as its turn comes, once the paths are checked).
  Result<Input*> add(const std::string& path);
  // A usage error for a pipe, a FIFO or stdin given twice ("- -", a FIFO's path twice, "-" and
  // /dev/stdin): the second would read what the first left. open() asks before opening any (a
  // FIFO's open waits for a writer).
  static Status refuse_streams_given_twice(const std::vector<std::string>& paths);

  std::vector<Input*> all();
  size_t size() const { return inputs_.size(); }
  // The store a server's URL (or a file) names, when an input is a dump of it.
  StoreConnection* store(const std::string& file) const;

 private:
  Result<StoreConnection*> connect(const std::string& file);
  std::map<std::string, std::unique_ptr<StoreConnection>> stores_;  // by file or URL
  std::vector<std::unique_ptr<Input>> inputs_;
};

// Loads a dump input (a profile, which does not read as one, is refused: a usage error);
// options.loaded is told.
Result<LoadedDump> load(Input& input, const InputOptions& options, Needs needs = Needs::kGraph);
// Opens and loads one input. PATH may be a store (heapq load): STORE.db reads its last dump,
// STORE.db#N dump N.
Result<LoadedDump> load_input(const std::string& path, const InputOptions& options,
                              Needs needs = Needs::kGraph);
// Reads a sampled profile input (read_sampled_profile).
Result<SampledProfile> load_profile(Input& input);

// Inputs by the process their META records name (memprof's: host, pid, start), processes
// listed by pid, then host and start, each one's inputs in the order given; `unknown` has those
// that do not say (ObjectSpace's dumps).
struct ProcessInputs {
  ProcessKey process;
  std::vector<Input*> inputs;
};
struct ByProcess {
  std::vector<ProcessInputs> processes;
  std::vector<Input*> unknown;
};
ByProcess group_by_process(const std::vector<Input*>& inputs);
// Puts one process's inputs in the order their META records say they were written (time, then
// GC count) when every one says; whether that changed their order.
bool take_in_written_order(std::vector<Input*>& inputs);

// Refuses (usage error) an output that is one of the inputs: the same file (device and inode,
// whatever the names: a hard link, a symlink, "./x"), a store's dump ("app.db#2") included.
// Inputs that do not exist or are stdin ("-") are skipped.
Status refuse_output_over_inputs(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace heapq
