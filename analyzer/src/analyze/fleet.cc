// analyze_fleet: per process (host, pid, start), the groups whose counts grow from dump to dump;
// per group, across processes: in how many it grows, how fast, where the most.
#include "heapq/fleet.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "heapq/inputs.h"

namespace heapq {

namespace {

using Key =
    std::tuple<std::string, std::string, uint32_t, std::string>;  // class, file, line, method

struct Accumulated {
  FleetAnswer::Group group;
  double objects_per_hour = 0, bytes_per_hour = 0;  // sums over the processes it grows in
  std::vector<FleetAnswer::Worst> growing;
  std::map<std::string, uint64_t> hosts;  // processes it grows in, per host
};

}  // namespace

FleetAnswer analyze_fleet(const FleetData& data, const FleetOptions& options) {
  FleetAnswer a;
  a.options = options;
  a.dumps = data.dumps.size();
  // Each dump's time, parsed once (0: it says none).
  std::vector<std::optional<int64_t>> seconds;
  for (const FleetDump& d : data.dumps) seconds.push_back(epoch_seconds(d.time));
  auto time_of = [&](size_t i) { return seconds[i].value_or(0); };
  // Processes: (host, pid, start) -> the indexes of their dumps.
  std::map<std::tuple<std::string, uint64_t, std::string>, std::vector<size_t>> processes;
  for (size_t i = 0; i < data.dumps.size(); ++i) {
    const FleetDump& d = data.dumps[i];
    if (d.pid == 0) {
      ++a.unattributed_dumps;
      continue;
    }
    processes[{d.host, d.pid, d.started}].push_back(i);
  }
  std::set<std::string> hosts;
  std::map<Key, size_t> index;  // group -> its place in groups
  std::vector<Accumulated> groups;
  uint64_t last_bytes = 0;  // the last dumps' reachable bytes, over processes of 2 dumps or more
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (auto& [key, dumps] : processes) {
    std::stable_sort(dumps.begin(), dumps.end(), [&](size_t x, size_t y) {
      return std::pair(time_of(x), data.dumps[x].id) < std::pair(time_of(y), data.dumps[y].id);
    });
    const FleetDump& newest = data.dumps[dumps.back()];
    const FleetAnswer::Process process{std::get<0>(key), std::get<1>(key), std::get<2>(key),
                                       newest.app};
    hosts.insert(process.host);
    FleetAnswer::ProcessHeap& heap = a.heaps.emplace_back();
    heap.process = process;
    for (size_t i : dumps) {
      const FleetDump& d = data.dumps[i];
      heap.heap.push_back({d.time, d.objects, d.bytes});
      if (seconds[i]) {
        first = std::min(first, *seconds[i]);
        last = std::max(last, *seconds[i]);
        if (*seconds[i] == first) a.first_time = d.time;
        if (*seconds[i] == last) a.last_time = d.time;
      }
    }
    if (dumps.size() < 2) continue;
    last_bytes += newest.bytes;
    // Each group's count in each dump of the process (0 where it has none).
    std::unordered_map<size_t, std::vector<const FleetCount*>> series;
    for (size_t k = 0; k < dumps.size(); ++k)
      for (const FleetCount& c : data.counts[dumps[k]]) {
        auto [it, fresh] =
            index.try_emplace(Key{c.class_name, c.file, c.line, c.method}, groups.size());
        if (fresh) {
          Accumulated& g = groups.emplace_back();
          g.group.class_name = c.class_name;
          if (!c.file.empty()) g.group.site = SiteRef{c.file, c.line, c.method};
        }
        auto& counts = series[it->second];
        counts.resize(dumps.size(), nullptr);
        counts[k] = &c;
      }
    const double hours =
        std::max<double>(1, static_cast<double>(time_of(dumps.back()) - time_of(dumps[0]))) / 3600;
    for (auto& entry : series) {
      // Not a structured binding: clang before 16 cannot capture one in the lambda below.
      const std::vector<const FleetCount*>& counts = entry.second;
      Accumulated& acc = groups[entry.first];
      ++acc.group.seen_in;
      auto count = [&](size_t k) { return counts[k] ? counts[k]->count : 0; };
      bool grows = count(dumps.size() - 1) > count(0);
      for (size_t k = 1; grows && k < dumps.size(); ++k) grows = count(k) >= count(k - 1);
      if (!grows) continue;
      const FleetCount* end = counts.back();
      const uint64_t first_bytes = counts[0] ? counts[0]->bytes : 0;
      const int64_t growth = static_cast<int64_t>(end->count - count(0));
      ++acc.group.growing_in;
      acc.group.count += end->count;
      acc.group.bytes += end->bytes;
      acc.objects_per_hour += static_cast<double>(growth) / hours;
      acc.bytes_per_hour +=
          (static_cast<double>(end->bytes) - static_cast<double>(first_bytes)) / hours;
      acc.growing.push_back({process, growth, static_cast<double>(growth) / hours});
      ++acc.hosts[process.host];
    }
  }
  a.processes = processes.size();
  a.hosts = hosts.size();
  std::vector<Accumulated*> ranked;
  for (Accumulated& g : groups)
    if (g.group.growing_in > 0) ranked.push_back(&g);
  for (Accumulated* g : ranked) {
    FleetAnswer::Group& out = g->group;
    out.objects_per_hour = g->objects_per_hour / static_cast<double>(out.growing_in);
    out.bytes_per_hour = g->bytes_per_hour / static_cast<double>(out.growing_in);
    out.share = last_bytes ? static_cast<double>(out.bytes) / static_cast<double>(last_bytes) : 0;
  }
  std::sort(ranked.begin(), ranked.end(), [](const Accumulated* x, const Accumulated* y) {
    return std::tuple(y->group.growing_in, y->group.bytes_per_hour, y->group.count,
                      x->group.class_name) < std::tuple(x->group.growing_in,
                                                        x->group.bytes_per_hour, x->group.count,
                                                        y->group.class_name);
  });
  const size_t shown = std::min(options.top, ranked.size());
  a.more_groups = ranked.size() - shown;
  for (size_t i = 0; i < shown; ++i) {
    Accumulated& g = *ranked[i];
    std::sort(g.growing.begin(), g.growing.end(), [](const auto& x, const auto& y) {
      return std::tuple(y.per_hour, x.process.host, x.process.pid) <
             std::tuple(x.per_hour, y.process.host, y.process.pid);
    });
    g.growing.resize(std::min<size_t>(g.growing.size(), 3));
    g.group.worst = std::move(g.growing);
    std::vector<std::pair<uint64_t, std::string>> by_count;
    for (const auto& [host, n] : g.hosts) by_count.emplace_back(n, host);
    std::stable_sort(by_count.begin(), by_count.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [n, host] : by_count)
      if (g.group.hosts.size() < 5)
        g.group.hosts.push_back(host);
      else
        ++g.group.more_hosts;
    a.groups.push_back(std::move(g.group));
  }
  return a;
}

}  // namespace heapq
