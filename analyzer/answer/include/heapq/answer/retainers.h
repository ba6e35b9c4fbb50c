// heapq retainers: why an object, or a class's instances, are alive: shortest paths from the
// GC roots and the direct referrers (schemas/retainers.schema.json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/answer/common.h"

namespace heapq {

struct RetainersAnswer {
  InputSummary input;
  // TARGET an address: the object; else TARGET names a class, `cls`, and its instances.
  std::optional<ObjectRef> object;
  std::string cls;
  uint64_t instances = 0;
  uint64_t bytes = 0;  // the object's memsize, or the instances' together
  size_t max_depth = 0;
  bool referrers_asked = false;  // --referrers

  // An object: its shortest paths, each through a different referrer, and its referrers (none:
  // a GC root, whose category is the edge).
  std::vector<PathRef> paths;
  struct Referrer {
    std::optional<ObjectRef> object;
    std::string edge;
  };
  std::vector<Referrer> referrers;

  // A class: its instances' shortest paths merged by shape, most first, each with an example.
  struct Group {
    uint64_t count = 0, bytes = 0;
    bool repeats = false;  // a step of the shape repeats (a linked list)
    bool deeper = false;   // paths deeper than max_depth merged here
    PathRef path;
  };
  std::vector<Group> groups;
  uint64_t more_groups = 0;  // shapes past --paths
  uint64_t unreachable = 0;  // instances the roots do not reach
  // Referrers grouped by class (where its block is written, for a Proc) and reference name.
  struct ReferrerGroup {
    std::string cls, block, edge;
    uint64_t count = 0;
  };
  std::vector<ReferrerGroup> referrer_groups;
};

}  // namespace heapq
