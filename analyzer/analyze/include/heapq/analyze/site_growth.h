// What grows in one process by allocation site, as its sampled profiles say (profile_growth.h):
// plain values, which the leaks answer over profiles holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace heapq {

struct SiteGrowth {
  // The site (profile_site_counts's; file empty: none) and the objects' class.
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
  std::string started;
  std::vector<size_t> order;         // the profiles given, by their indexes, oldest first
  std::vector<int64_t> times_nanos;  // of each profile, oldest first
  std::vector<int64_t> heap_bytes;   // the live estimate of the whole sampled heap in each
  std::vector<SiteGrowth> growing;   // most bytes grown first
};

}  // namespace heapq
