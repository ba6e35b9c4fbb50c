// What grows across the processes of a fleet, as the fleet's analysis (fleet.h) finds it: a
// plain value, which the fleet's answer extends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/model/site_ref.h"

namespace heapq {

struct FleetGrowth {
  uint64_t dumps = 0, processes = 0, hosts = 0;
  uint64_t profiles = 0;            // sampled profiles read, of processes no dump was read of
  uint64_t unattributed_dumps = 0;  // dumps that say no process (ObjectSpace's): left out
  std::string first_time, last_time;

  struct Process {
    std::string host;  // empty: unknown
    uint64_t pid = 0;
    std::string started, app;
    bool profiles = false;  // seen through sampled profiles: its counts are estimates
  };
  struct Worst {
    Process process;
    int64_t growth = 0;              // objects, first dump to last
    std::optional<double> seconds;   // from the first dump to the last; none: a dump says no time
    std::optional<double> per_hour;  // objects; none without an interval (seconds none or 0)
  };
  struct Group {
    std::string class_name;
    std::optional<SiteRef> site;  // none: allocated without tracing
    uint64_t growing_in = 0;      // processes it grows in
    uint64_t seen_in = 0;         // processes of two dumps or more that hold it
    // The mean over the processes it grows in that have a rate (rated_in); none: no such one.
    std::optional<double> objects_per_hour, bytes_per_hour;
    uint64_t rated_in = 0;
    uint64_t count = 0, bytes = 0;   // in the last dump of each process it grows in, summed
    double share = 0;                // bytes over those dumps' reachable bytes
    std::vector<Worst> worst;        // the fastest-growing processes, at most 3
    std::vector<std::string> hosts;  // where it grows, most processes first (at most 5)
    uint64_t more_hosts = 0;
  };
  std::vector<Group> groups;  // most processes first, then most bytes an hour
  uint64_t more_groups = 0;

  struct Point {
    std::string time;
    uint64_t objects = 0, bytes = 0;
  };
  struct ProcessHeap {
    Process process;
    std::vector<Point> heap;  // per dump, oldest first
  };
  std::vector<ProcessHeap> heaps;  // by host, then start
};

}  // namespace heapq
