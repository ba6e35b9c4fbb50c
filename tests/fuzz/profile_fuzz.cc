// libFuzzer target: any bytes through the sampled-profile reader, which must never crash, hang
// or read out of bounds, and what it reads must hold together; then what heapq makes of a
// profile (its sites, its growth against itself an hour later) through both renderers. Run with
// tests/fuzz/run.sh.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "heapq/analyze/profile_growth.h"
#include "heapq/read/sampled_profile.h"
#include "heapq/render/render.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  (void)heapq::looks_like_profile(bytes);
  auto input = heapq::memory_input(bytes, "fuzz");
  auto profile = heapq::read_sampled_profile(*input);
  if (!profile) return 0;
  for (const heapq::SampledProfile::Sample& s : profile->samples) {
    for (uint32_t f : s.frames) {
      if (f >= profile->frames.size()) std::abort();  // every frame a sample names is there
    }
  }
  heapq::SampledProfile later = *profile;
  later.time_nanos += 3'600'000'000'000;
  auto growth = heapq::process_growth({&*profile, &later}, 0);
  if (!growth) return 0;
  heapq::ProfileLeaksAnswer answer;
  heapq::ProfileLeaksAnswer::Process& p = answer.processes.emplace_back();
  p.host = growth->host;
  p.pid = growth->pid;
  p.inputs = {{"a", "", profile->period, profile->samples.size()},
              {"b", "", later.period, later.samples.size()}};
  p.heap_bytes = growth->heap_bytes;
  p.found = growth->growing.size();
  p.growing = growth->growing;
  (void)heapq::render::text(answer, {80});
  (void)heapq::render::json(answer);
  return 0;
}
