#include "heapq/analyze/profile_growth.h"

#include <algorithm>
#include <unordered_map>

#include "heapq/base/keyed_hash.h"
#include "heapq/read/source_paths.h"

namespace heapq {
namespace {

// The frame a sample's objects are counted at: the application's innermost, else the innermost
// with a file (a C method's frame has none); null when no frame has one.
const SampledProfile::Frame* site_frame(const SampledProfile& p, const SampledProfile::Sample& s) {
  const SampledProfile::Frame* innermost = nullptr;
  for (uint32_t f : s.frames) {
    const SampledProfile::Frame& frame = p.frames[f];
    if (frame.file.empty()) continue;
    if (innermost == nullptr) innermost = &frame;
    if (is_app_path(frame.file)) return &frame;
  }
  return innermost;
}

std::string process_name(const SampledProfile& p) {
  return "host " + (p.host.empty() ? std::string("(unknown)") : p.host) + " pid " +
         std::to_string(p.pid) + (p.started.empty() ? "" : " started " + p.started);
}

// The profiles' indexes, oldest first (of one time, as given), all of one process at distinct
// times; else what is wrong.
Result<std::vector<size_t>> in_time_order(const std::vector<const SampledProfile*>& profiles) {
  if (profiles.size() < 2) return usage_error("growth needs two profiles of a process or more");
  for (const SampledProfile* p : profiles) {
    if (p->process() != profiles[0]->process())
      return bad_input("profiles of two processes (" + process_name(*profiles[0]) + ", " +
                       process_name(*p) + "): growth compares one process over time");
  }
  std::vector<size_t> order(profiles.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return profiles[a]->time_nanos < profiles[b]->time_nanos;
  });
  for (size_t i = 1; i < order.size(); ++i) {
    if (profiles[order[i]]->time_nanos == profiles[order[i - 1]]->time_nanos)
      return bad_input("two profiles of " + process_name(*profiles[order[i]]) +
                       " say the same time: which came first is unknown");
  }
  return order;
}

// Every site's live estimates in each profile.
std::vector<SiteGrowth> sites_by_profile(const std::vector<const SampledProfile*>& sorted,
                                         std::vector<int64_t>& heap_bytes) {
  const size_t n = sorted.size();
  std::vector<SiteGrowth> sites;
  std::unordered_map<std::string, size_t, KeyedHash> index;
  std::string key;
  for (size_t i = 0; i < n; ++i) {
    for (const FleetCount& c : profile_site_counts(*sorted[i])) {
      heap_bytes[i] += static_cast<int64_t>(c.bytes);
      key = c.file + '\0' + std::to_string(c.line) + '\0' + c.method + '\0' + c.class_name;
      auto [it, added] = index.try_emplace(key, sites.size());
      if (added) {
        sites.push_back({c.file, c.line, c.method, c.class_name, std::vector<int64_t>(n),
                         std::vector<int64_t>(n), 0, 0});
      }
      sites[it->second].objects[i] += static_cast<int64_t>(c.count);
      sites[it->second].bytes[i] += static_cast<int64_t>(c.bytes);
    }
  }
  return sites;
}

bool never_fell(const std::vector<int64_t>& v) {
  return std::adjacent_find(v.begin(), v.end(), std::greater<>()) == v.end();
}

}  // namespace

std::vector<FleetCount> profile_site_counts(const SampledProfile& p) {
  std::vector<FleetCount> counts;
  std::unordered_map<std::string, size_t, KeyedHash> index;
  std::string key;
  for (const SampledProfile::Sample& s : p.samples) {
    const SampledProfile::Frame* at = site_frame(p, s);
    const std::string_view file = at ? std::string_view(at->file) : "";
    const std::string_view function = at ? std::string_view(at->function) : "";
    const uint32_t line =
        at ? static_cast<uint32_t>(std::clamp<int64_t>(at->line, 0, UINT32_MAX)) : 0;
    key.assign(file).append(1, '\0').append(std::to_string(line)).append(1, '\0');
    key.append(function).append(1, '\0').append(s.class_name);
    auto [it, added] = index.try_emplace(key, counts.size());
    if (added)
      counts.push_back({s.class_name, std::string(file), std::string(function), line, 0, 0});
    FleetCount& c = counts[it->second];
    c.count += static_cast<uint64_t>(std::max<int64_t>(s.inuse_objects, 0));
    c.bytes += static_cast<uint64_t>(std::max<int64_t>(s.inuse_bytes, 0));
  }
  return counts;
}

Result<ProcessGrowth> process_growth(const std::vector<const SampledProfile*>& profiles,
                                     size_t top) {
  auto order = in_time_order(profiles);
  if (!order) return order.error();
  std::vector<const SampledProfile*> sorted;
  for (size_t i : *order) sorted.push_back(profiles[i]);
  ProcessGrowth out;
  out.host = sorted[0]->host;
  out.pid = sorted[0]->pid;
  out.started = sorted[0]->started;
  out.order = std::move(*order);
  for (const SampledProfile* p : sorted) out.times_nanos.push_back(p->time_nanos);
  out.heap_bytes.assign(sorted.size(), 0);
  std::vector<SiteGrowth> sites = sites_by_profile(sorted, out.heap_bytes);
  const double hours = double(out.times_nanos.back() - out.times_nanos.front()) / 3.6e12;
  // Two sampled objects: below that, one object sampled more is chance.
  const int64_t least = 2 * std::max<int64_t>(sorted.back()->period, 1);
  for (SiteGrowth& s : sites) {
    const int64_t grown = s.objects.back() - s.objects.front();
    if (grown < least || !never_fell(s.objects)) continue;
    s.objects_per_hour = double(grown) / hours;
    s.bytes_per_hour = double(s.bytes.back() - s.bytes.front()) / hours;
    out.growing.push_back(std::move(s));
  }
  std::sort(out.growing.begin(), out.growing.end(), [](const SiteGrowth& a, const SiteGrowth& b) {
    const int64_t ga = a.bytes.back() - a.bytes.front(), gb = b.bytes.back() - b.bytes.front();
    if (ga != gb) return ga > gb;
    return std::tie(a.file, a.line, a.class_name) < std::tie(b.file, b.line, b.class_name);
  });
  if (top != 0 && out.growing.size() > top) out.growing.resize(top);
  return out;
}

}  // namespace heapq
