// TARGET as heapq retainers and heapq viz take it: an object's address or a class name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "heapq/heap_graph.h"
#include "heapq/result.h"

namespace heapq {

struct Target {
  std::optional<ObjectId> object;   // an address
  std::vector<ObjectId> instances;  // a class
  std::string label;
};

// A usage error names what is wrong with spec; path names the input in the message.
Result<Target> find_target(const HeapGraph& g, const std::string& spec, const std::string& path);

}  // namespace heapq
