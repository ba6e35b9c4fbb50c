// A sampled-heap profile read back: pprof's profile.proto (gzip'd or not) as Memprof.profile
// writes it, or any heap profile with Go's four values (inuse_objects, inuse_space,
// alloc_objects, alloc_space). Its values are estimates of the whole heap already (the sample
// times the rate): what each allocation stack keeps alive and has allocated.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "heapq/base/result.h"
#include "heapq/read/byte_source.h"
#include "heapq/read/load_report.h"

namespace heapq {

struct SampledProfile {
  struct Frame {
    std::string function;  // "Class#method", "block in ...", as the profile names it
    std::string file;
    int64_t line = 0;  // 0: unknown
  };
  struct Sample {
    std::vector<uint32_t> frames;  // into SampledProfile::frames, innermost first
    std::string class_name;        // the "class" label, if any
    std::string type;              // the "type" label, if any
    int64_t inuse_objects = 0, inuse_bytes = 0, alloc_objects = 0, alloc_bytes = 0;
  };
  // From the profile's comments ("host: NAME", "pid: N", "started: TIME"), which memprof
  // writes; empty and 0 otherwise.
  std::string host;
  uint64_t pid = 0;
  std::string started;  // when the process started, ISO 8601
  ProcessKey process() const { return {host, pid, started}; }
  int64_t time_nanos = 0;      // when it was written (0: unknown)
  int64_t duration_nanos = 0;  // since sampling started
  int64_t period = 0;          // one allocation in `period` was sampled (0: unknown)
  std::vector<Frame> frames;   // each distinct (function, file, line) once
  std::vector<Sample> samples;
};

// The most bytes a profile may have, decompressed: a profile is small, a stranger's may not be.
inline constexpr size_t kMaxProfileBytes = size_t{1} << 30;

// Reads a whole profile. A damaged or hostile one is an error naming the input and what is
// wrong (a truncated field, an index past its table, a value that is not a heap profile's).
Result<SampledProfile> read_sampled_profile(ByteSource& in);

// Whether an input's first bytes (decompressed) are a profile.proto's rather than a dump's: a
// field of a Profile message where a dump has '{' or white space.
bool looks_like_profile(std::string_view head);

}  // namespace heapq
