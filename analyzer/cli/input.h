// Loading the INPUT of a command: a dump file, stdin or gzip, with progress and warnings.
#pragma once

#include <string>

#include "cli/command.h"
#include "heapq/heap_graph.h"
#include "heapq/load.h"

namespace heapq::cli {

struct LoadedDump {
  std::string path;  // as given ("<stdin>" for -)
  HeapGraph graph;
  LoadReport report;
  std::string name = path;  // for text headers: a store's dump by its number, "app.db#3"
};

// Loads and reports problems on stderr (unless --quiet); errors are returned, not printed.
// PATH may be a store (heapq load): STORE.db reads its last dump, STORE.db#N dump N.
// Commands that never follow references (stats, sites) pass references = false: a store then
// opens without them (a dump is read whole all the same).
Result<LoadedDump> load_input(const std::string& path, const GlobalOptions& global,
                              bool references = true);

// One-line summaries of what the load skipped or repaired, for stderr and for JSON output.
std::vector<std::string> load_warnings(const LoadedDump& dump);

}  // namespace heapq::cli
