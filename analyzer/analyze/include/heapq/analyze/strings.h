// Duplicate strings: STRING objects that hold the same value, as Eclipse MAT's "duplicate
// strings" and memory_profiler's String Report find them. Needs the values (LoadOptions::values).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "heapq/model/heap_graph.h"

namespace heapq {

// One value held by two copies or more.
struct DuplicateString {
  std::string_view value;  // a copy's value (held by the graph), cut where the dump cut it
  uint64_t bytesize = 0;
  bool cut = false;   // the dump holds only the value's beginning
  uint64_t hash = 0;  // memprof's value_hash, which tells cut values apart; 0: none
  uint64_t count = 0, bytes = 0;
  uint64_t wasted_bytes = 0;  // all but the smallest copy
  uint64_t frozen = 0, interned = 0;
  std::vector<std::pair<SiteId, uint64_t>> sites;  // copies by allocation site, most first
};

// A line that makes many copies of one value.
struct CopyingSite {
  SiteId site;
  std::string_view value;  // as DuplicateString::value
  uint64_t bytesize = 0;
  bool cut = false;
  uint64_t count = 0, bytes = 0;
};

struct StringReport {
  uint64_t strings = 0;     // STRING objects
  uint64_t with_value = 0;  // ... whose value the dump holds
  uint64_t distinct = 0;    // values among them
  uint64_t duplicated = 0;  // values held by two copies or more
  uint64_t copies = 0;      // the copies of those values
  uint64_t wasted_bytes = 0;
  std::vector<DuplicateString> duplicates;  // the first `top`, most wasted bytes first
  std::vector<CopyingSite> copying_sites;   // most copies of one value first (2 or more)
};

// O(strings), with hash tables. top: duplicates and copying sites kept; sites_per_value: sites
// kept of each duplicate.
StringReport compute_duplicate_strings(const HeapGraph& graph, size_t top, size_t sites_per_value);

}  // namespace heapq
