// Parts every command's answer shares, resolved for the renderers: none of them refers into a
// HeapGraph, so that an answer can be built by hand (tests) and rendered in any format.
#pragma once

#include <string>
#include <vector>

#include "heapq/inputs.h"
#include "heapq/load.h"

namespace heapq {

// A dump a command read (schemas/input.schema.json): what it is and what its load met.
struct InputSummary {
  std::string path;  // as given ("<stdin>" for -)
  std::string name;  // for text headings: a store's dump by its number, "app.db#3"
  LoadReport report;
  std::vector<std::string> warnings;  // load_warnings
};

InputSummary summarize(const LoadedDump& dump);

}  // namespace heapq
