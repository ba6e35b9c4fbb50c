// libFuzzer target: any bytes through the sampled-profile reader, which must never crash, hang
// or read out of bounds, and what it reads must hold together. Run with tests/fuzz/run.sh.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "heapq/read/sampled_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto input = heapq::memory_input(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  auto profile = heapq::read_sampled_profile(*input);
  if (!profile) return 0;
  for (const heapq::SampledProfile::Sample& s : profile->samples) {
    for (uint32_t f : s.frames) {
      if (f >= profile->frames.size()) std::abort();  // every frame a sample names is there
    }
  }
  return 0;
}
