// TARGET as heapq retainers and heapq viz take it: an object's address or a class name, the
// class narrowed to one allocation site by --site FILE:LINE.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "heapq/base/result.h"
#include "heapq/model/heap_graph.h"

namespace heapq {

struct Target {
  std::optional<ObjectId> object;   // an address
  std::vector<ObjectId> instances;  // a class
  std::string label;
};

// A usage error names what is wrong with spec; path names the input in the message. site, when
// not empty, is FILE:LINE: only the class's instances allocated there count (a Proc: where its
// block is written, as heapq leaks groups them); FILE as the dump names it, or its last parts
// ("app/cart.rb" for "/srv/shop/app/cart.rb").
Result<Target> find_target(const HeapGraph& g, const std::string& spec, const std::string& path,
                           const std::string& site = "");

}  // namespace heapq
