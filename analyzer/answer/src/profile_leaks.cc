// heapq leaks over sampled profiles: each process's profiles over time, what grows in them.
#include <cstdint>
#include <map>

#include "heapq/analyze/profile_growth.h"
#include "heapq/answer/ask/leaks.h"
#include "heapq/read/dump_time.h"

namespace heapq {

Result<ProfileLeaksAnswer> answer_profile_leaks(const std::vector<Input*>& inputs,
                                                const LeaksOptions& options) {
  std::vector<SampledProfile> profiles;
  profiles.reserve(inputs.size());
  for (Input* in : inputs) {
    HEAPQ_ASSIGN_OR_RETURN(SampledProfile p, load_profile(*in));
    profiles.push_back(std::move(p));
  }
  std::map<ProcessKey, std::vector<size_t>> by_process;
  for (size_t i = 0; i < profiles.size(); ++i) by_process[profiles[i].process()].push_back(i);
  ProfileLeaksAnswer a;
  for (const auto& [key, of] : by_process) {
    std::vector<const SampledProfile*> its;
    for (size_t i : of) its.push_back(&profiles[i]);
    if (its.size() < 2) {
      return usage_error("leaks over profiles compares each process's over time: " +
                         inputs[of[0]]->path + " is the only one of pid " +
                         std::to_string(key.pid) + (key.host.empty() ? "" : " on " + key.host) +
                         "; give two profiles of it or more (MEMPROF_PROFILE_EVERY writes them)");
    }
    HEAPQ_ASSIGN_OR_RETURN(ProcessGrowth growth, process_growth(its, 0));
    ProfileLeaksAnswer::Process& p = a.processes.emplace_back();
    p.host = key.host;
    p.pid = key.pid;
    p.started = key.started;
    for (size_t k : growth.order)
      p.inputs.push_back({inputs[of[k]]->path, iso_time_of_nanos(its[k]->time_nanos),
                          its[k]->period, its[k]->samples.size()});
    p.heap_bytes = std::move(growth.heap_bytes);
    p.found = growth.growing.size();
    if (options.top != SIZE_MAX && growth.growing.size() > options.top)
      growth.growing.resize(options.top);
    p.growing = std::move(growth.growing);
  }
  return a;
}

}  // namespace heapq
