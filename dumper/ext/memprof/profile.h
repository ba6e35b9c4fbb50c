// Profiles of the sampled heap as pprof reads them (profile.proto, gzip-compressed): what the
// tracker's sample holds now and what it allocated since Start, each scaled by the sampling
// rate into an estimate of the whole program's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloc_tracker.h"

namespace memprof {

// What a profile says, copied out of the tracker in Ruby context (CollectProfile) so that it is
// encoded while the program runs on (EncodeProfile needs no Ruby and no lock).
struct ProfileSnapshot {
  // The sampled objects of one stack, label (class) and type.
  struct Row {
    uint32_t stack = 0;  // into stacks, 0 none
    uint32_t label = 0;  // into labels
    int type = 0;
    uint64_t live = 0, live_bytes = 0;    // alive now, their memsize now
    uint64_t freed = 0, freed_bytes = 0;  // since freed
  };
  struct Frame {
    std::string name, file;
  };
  uint32_t sample = 1;  // one allocation in sample was recorded
  uint64_t time_nanos = 0, duration_nanos = 0;
  uint64_t pid = 0;
  std::string host;
  std::string started;  // when the process started, ISO 8601 (ProcessStarted); empty: unknown
  std::vector<Row> rows;
  // Stack s's frames are frames[stack_frames[i]] at stack_lines[i] for i in
  // [stack_begin[s], stack_begin[s + 1]), innermost first; stack 0 has none.
  std::vector<uint32_t> stack_begin{0, 0};
  std::vector<uint32_t> stack_frames;
  std::vector<int> stack_lines;
  std::vector<Frame> frames;
  std::vector<std::string> labels;
};

// Ruby context (no GC runs: this allocates nothing of Ruby's): measures the live sampled objects
// (their memsize, their classes' names) and copies what the profile needs. Throws std::bad_alloc.
ProfileSnapshot CollectProfile(AllocTracker& tracker);

// The profile, gzip-compressed. No Ruby call: runs without the GVL. Throws std::bad_alloc, or
// std::runtime_error when zlib fails.
std::string EncodeProfile(const ProfileSnapshot& snapshot);

}  // namespace memprof
