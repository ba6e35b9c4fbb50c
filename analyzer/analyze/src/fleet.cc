// analyze_fleet: per process (host, pid, start), the groups whose counts grow from dump to dump;
// per group, across processes: in how many it grows, how fast, where the most.
#include "heapq/analyze/fleet.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "heapq/analyze/dump_order.h"
#include "heapq/read/dump_time.h"

namespace heapq {

namespace {

using Key =
    std::tuple<std::string, std::string, uint32_t, std::string>;  // class, file, line, method

struct Accumulated {
  FleetGrowth::Group group;
  double objects_per_hour = 0, bytes_per_hour = 0;  // sums over the processes rated
  std::vector<FleetGrowth::Worst> growing;
  std::map<std::string, uint64_t> hosts;  // processes it grows in, per host
};

struct Groups {
  std::map<Key, size_t> index;  // group -> its place in all
  std::vector<Accumulated> all;
};

// Seconds from the first dump to the last, each in the order written: none when one of them
// says no time (then they are in the order loaded, and no interval can be told).
std::optional<double> span_seconds(const FleetData& data, const std::vector<size_t>& dumps) {
  std::optional<int64_t> first, last;
  for (size_t i : dumps) {
    const std::optional<int64_t> t = epoch_microseconds(data.dumps[i].origin.time);
    if (!t) return std::nullopt;
    first = first ? std::min(*first, *t) : *t;
    last = last ? std::max(*last, *t) : *t;
  }
  return static_cast<double>(*last - *first) / 1e6;
}

// Adds what grows in one process of two dumps or more, its dumps oldest first.
void add_process(const FleetData& data, const std::vector<size_t>& dumps,
                 const FleetGrowth::Process& process, Groups& groups) {
  // Each group's count in each dump of the process (null where it has none).
  std::unordered_map<size_t, std::vector<const FleetCount*>> series;
  for (size_t k = 0; k < dumps.size(); ++k)
    for (const FleetCount& c : data.counts[dumps[k]]) {
      auto [it, fresh] =
          groups.index.try_emplace(Key{c.class_name, c.file, c.line, c.method}, groups.all.size());
      if (fresh) {
        Accumulated& g = groups.all.emplace_back();
        g.group.class_name = c.class_name;
        if (!c.file.empty()) g.group.site = SiteRef{c.file, c.line, c.method};
      }
      auto& counts = series[it->second];
      counts.resize(dumps.size(), nullptr);
      counts[k] = &c;
    }
  // A profile's counts are estimates, the sampled objects times the period: a group grows by two
  // sampled objects at least (one more is chance), a dump's by one object.
  uint64_t least = 1;
  for (size_t i : dumps) least = std::max(least, 2 * data.dumps[i].period);
  const std::optional<double> seconds = span_seconds(data, dumps);
  // No rate over no time: dumps of one second (whole seconds, as older dumps give) say nothing
  // of how fast.
  const double hours = seconds ? *seconds / 3600 : 0;
  for (auto& entry : series) {
    // Not a structured binding: clang before 16 cannot capture one in the lambda below.
    const std::vector<const FleetCount*>& counts = entry.second;
    Accumulated& acc = groups.all[entry.first];
    ++acc.group.seen_in;
    auto count = [&](size_t k) { return counts[k] ? counts[k]->count : 0; };
    bool grows = count(dumps.size() - 1) >= count(0) + least;
    for (size_t k = 1; grows && k < dumps.size(); ++k) grows = count(k) >= count(k - 1);
    if (!grows) continue;
    const FleetCount* end = counts.back();
    const uint64_t first_bytes = counts[0] ? counts[0]->bytes : 0;
    const int64_t growth = static_cast<int64_t>(end->count - count(0));
    ++acc.group.growing_in;
    acc.group.count += end->count;
    acc.group.bytes += end->bytes;
    std::optional<double> per_hour;
    if (hours > 0) {
      per_hour = static_cast<double>(growth) / hours;
      ++acc.group.rated_in;
      acc.objects_per_hour += *per_hour;
      acc.bytes_per_hour +=
          (static_cast<double>(end->bytes) - static_cast<double>(first_bytes)) / hours;
    }
    acc.growing.push_back({process, growth, seconds, per_hour});
    ++acc.hosts[process.host];
  }
}

// The group's mean rates over the processes rated, and its share of the last dumps' heaps.
void set_rates(Accumulated& g, uint64_t last_bytes) {
  FleetGrowth::Group& out = g.group;
  if (out.rated_in) {
    out.objects_per_hour = g.objects_per_hour / static_cast<double>(out.rated_in);
    out.bytes_per_hour = g.bytes_per_hour / static_cast<double>(out.rated_in);
  }
  out.share = last_bytes ? static_cast<double>(out.bytes) / static_cast<double>(last_bytes) : 0;
}

// The group as shown: with its fastest processes and its hosts.
FleetGrowth::Group finish_group(Accumulated& g) {
  FleetGrowth::Group& out = g.group;
  // Fastest first; those without a rate after, by growth.
  std::sort(g.growing.begin(), g.growing.end(), [](const auto& x, const auto& y) {
    return std::tuple(y.per_hour, y.growth, x.process.host, x.process.pid) <
           std::tuple(x.per_hour, x.growth, y.process.host, y.process.pid);
  });
  g.growing.resize(std::min<size_t>(g.growing.size(), 3));
  out.worst = std::move(g.growing);
  std::vector<std::pair<uint64_t, std::string>> by_count;
  for (const auto& [host, n] : g.hosts) by_count.emplace_back(n, host);
  std::stable_sort(by_count.begin(), by_count.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  for (const auto& [n, host] : by_count)
    if (out.hosts.size() < 5)
      out.hosts.push_back(host);
    else
      ++out.more_hosts;
  return std::move(out);
}

}  // namespace

FleetGrowth analyze_fleet(const FleetData& data, size_t top) {
  FleetGrowth a;
  for (const FleetDump& d : data.dumps) ++(d.period != 0 ? a.profiles : a.dumps);
  // Processes: (host, pid, start) -> the indexes of their dumps.
  std::map<ProcessKey, std::vector<size_t>> processes;
  for (size_t i = 0; i < data.dumps.size(); ++i) {
    const DumpOrigin& d = data.dumps[i].origin;
    if (d.pid == 0)
      ++a.unattributed_dumps;
    else
      processes[process_of(d)].push_back(i);
  }
  std::set<std::string> hosts;
  Groups groups;
  uint64_t last_bytes = 0;  // the last dumps' reachable bytes, over processes of 2 dumps or more
  std::optional<int64_t> first, last;
  for (auto& [key, loaded] : processes) {
    // In the order written, as leaks and diff take dumps (loaded: in the order loaded).
    std::vector<const DumpOrigin*> origins;
    for (size_t i : loaded) origins.push_back(&data.dumps[i].origin);
    std::vector<size_t> dumps;
    for (size_t k : written_order(origins)) dumps.push_back(loaded[k]);
    const FleetDump& newest = data.dumps[dumps.back()];
    const FleetGrowth::Process process{key.host, key.pid, key.started, newest.app,
                                       newest.period != 0};
    hosts.insert(process.host);
    FleetGrowth::ProcessHeap& heap = a.heaps.emplace_back();
    heap.process = process;
    for (size_t i : dumps) {
      const FleetDump& d = data.dumps[i];
      heap.heap.push_back({d.origin.time, d.objects, d.bytes});
      if (const std::optional<int64_t> t = epoch_microseconds(d.origin.time)) {
        if (!first || *t < *first) {
          first = t;
          a.first_time = d.origin.time;
        }
        if (!last || *t > *last) {
          last = t;
          a.last_time = d.origin.time;
        }
      }
    }
    if (dumps.size() < 2) continue;
    last_bytes += newest.bytes;
    add_process(data, dumps, process, groups);
  }
  a.processes = processes.size();
  a.hosts = hosts.size();
  std::vector<Accumulated*> ranked;
  for (Accumulated& g : groups.all)
    if (g.group.growing_in > 0) {
      set_rates(g, last_bytes);
      ranked.push_back(&g);
    }
  // Most processes first, then most bytes an hour (those without a rate last), most objects.
  auto rank = [](const Accumulated* g) {
    const FleetGrowth::Group& x = g->group;
    return std::tuple(x.growing_in, x.bytes_per_hour, x.count);
  };
  std::sort(ranked.begin(), ranked.end(), [&](const Accumulated* x, const Accumulated* y) {
    return std::tuple(rank(y), x->group.class_name) < std::tuple(rank(x), y->group.class_name);
  });
  const size_t shown = std::min(top, ranked.size());
  a.more_groups = ranked.size() - shown;
  for (size_t i = 0; i < shown; ++i) a.groups.push_back(finish_group(*ranked[i]));
  return a;
}

}  // namespace heapq
