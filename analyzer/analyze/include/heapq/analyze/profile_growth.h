// What grows in one process, read from its sampled-heap profiles over time (no dump): the
// allocation sites whose live objects never fell and grew in all, the sign of a leak whose
// holder a dump then names. Linear in the profiles' samples.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heapq/base/result.h"
#include "heapq/read/sampled_profile.h"

namespace heapq {

struct SiteGrowth {
  // The site: the application's innermost frame that allocated (heapq's rule of what is the
  // app's, is_app_path), else the innermost frame with a file; and the objects' class.
  std::string file;
  int64_t line = 0;
  std::string function;
  std::string class_name;
  std::vector<int64_t> objects, bytes;  // the live estimates in each profile, oldest first
  double objects_per_hour = 0, bytes_per_hour = 0;
};

struct ProcessGrowth {
  std::string host;
  uint64_t pid = 0;
  std::vector<int64_t> times_nanos;  // of each profile, oldest first
  std::vector<int64_t> heap_bytes;   // the live estimate of the whole sampled heap in each
  std::vector<SiteGrowth> growing;   // most bytes grown first
};

// profiles: one process's (the same host and pid), in any order; at least two, at distinct
// times. A site grows when its live objects never fell from one profile to the next and rose
// by at least two sampled objects (twice the period) in all: a sample of objects never freed
// only grows, where a site whose objects come and go rises and falls. top: the most sites
// (0: all).
Result<ProcessGrowth> process_growth(const std::vector<const SampledProfile*>& profiles,
                                     size_t top);

}  // namespace heapq
