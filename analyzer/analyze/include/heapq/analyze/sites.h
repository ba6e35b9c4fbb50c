// Allocation sites: where the live objects were allocated, grouped by site, file, method,
// class or gem. Needs the tracing fields (file, line, method) of the dump.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/analyze/groupings.h"
#include "heapq/analyze/stats.h"
#include "heapq/model/heap_graph.h"

namespace heapq {

// One group. Fields that the grouping does not use are none/empty; objects without an
// allocation site form one group whose file is none.
struct SiteGroup {
  StringId file;
  uint32_t line = 0;  // kSite and kApp
  StringId method;    // kSite, kMethod and kApp
  ClassId cls;        // kSite and kClass
  std::string gem;    // kGem: "NAME-VERSION", or "(ruby)", "(app)", "(unknown)"
  uint64_t count = 0;
  uint64_t bytes = 0;
  std::optional<uint64_t> retained_bytes;
  uint32_t index = 0;  // the group's number before sorting (internal)
};

struct SiteReport {
  std::vector<SiteGroup> groups;  // largest first
  uint64_t objects_with_site = 0;
  uint64_t objects = 0;
};

class HeapDominators;

// Counts and bytes by group, without retained sizes.
SiteReport compute_sites(const HeapGraph& graph, SiteGrouping grouping,
                         SortKey sort = SortKey::kBytes);

// With dominators, the first retained_rows groups (in the order groups lists them) also get
// their retained bytes: what freeing all their objects at once would free (see compute_stats).
SiteReport compute_sites(const HeapGraph& graph, SiteGrouping grouping, SortKey sort,
                         const HeapDominators* dominators, size_t retained_rows);

}  // namespace heapq
