// Sampled-heap profiles; see profile.h.
#include "profile.h"

#include <time.h>
#include <unistd.h>

#include <climits>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "heap_dumper.h"
#include "process_identity.h"
#include "protobuf.h"

namespace memprof {

namespace {

using protobuf::gzip;
using protobuf::kComment;
using protobuf::kDefaultSampleType;
using protobuf::kDurationNanos;
using protobuf::kFunction;
using protobuf::kLocation;
using protobuf::kMapping;
using protobuf::kPeriod;
using protobuf::kPeriodType;
using protobuf::kSample;
using protobuf::kSampleType;
using protobuf::kTimeNanos;

// The program's own names, as they are.
auto as_is = [](std::string_view s) { return std::string(s); };
using Strings = protobuf::ProfileStrings<decltype(as_is)>;

std::string TypeName(int type) {
  std::string_view quoted = QuotedTypeName(type);
  return std::string(quoted.substr(1, quoted.size() - 2));
}

}  // namespace

ProfileSnapshot CollectProfile(AllocTracker& tracker) {
  ProfileSnapshot p;
  tracker.NameFreed();
  p.sample = tracker.SampleRate();
  p.time_nanos = ClockNanos(CLOCK_REALTIME);
  p.duration_nanos =
      p.time_nanos > tracker.StartedNanos() ? p.time_nanos - tracker.StartedNanos() : 0;
  p.pid = static_cast<uint64_t>(getpid());
  p.host = HostName();
  p.started = ProcessStarted(getpid());

  // The rows: live objects by stack, label and type, beside what was freed of each.
  std::unordered_map<uint64_t, size_t> row_of;
  auto row = [&](uint64_t key) {
    auto [it, added] = row_of.try_emplace(key, p.rows.size());
    if (added) {
      ProfileSnapshot::Row& r = p.rows.emplace_back();
      r.stack = static_cast<uint32_t>(key >> 32);
      r.label = static_cast<uint32_t>(key >> 8) & 0xFFFFFF;
      r.type = static_cast<int>(key & 0xFF);
    }
    return it->second;
  };
  // Rows by key, most of them found in a direct-mapped cache in front of the map.
  struct Cached {
    uint64_t key = UINT64_MAX;
    size_t row = 0;
  };
  std::vector<Cached> cache(4096);
  tracker.MeasureLive([&](VALUE obj, const AllocationSite& site, uint32_t label) {
    const uint64_t key = AllocTracker::FreedKey(site.stack, label, BUILTIN_TYPE(obj));
    Cached& c = cache[(key * 0x9E3779B97F4A7C15ULL) >> 52];
    if (c.key != key) c = {key, row(key)};
    ProfileSnapshot::Row& r = p.rows[c.row];
    ++r.live;
    r.live_bytes += site.size;
  });
  for (const auto& [key, freed] : tracker.FreedStats()) {
    ProfileSnapshot::Row& r = p.rows[row(key)];
    r.freed += freed.count;
    r.freed_bytes += freed.bytes;
  }

  // The stacks and labels the rows name, renumbered from 1 and from 0, copied.
  std::unordered_map<uint32_t, uint32_t> stack_ids, frame_ids, label_ids;
  const StackTable& stacks = tracker.Stacks();
  const FrameTable& names = tracker.Frames();
  for (ProfileSnapshot::Row& r : p.rows) {
    auto [label, new_label] =
        label_ids.try_emplace(r.label, static_cast<uint32_t>(p.labels.size()));
    if (new_label) p.labels.emplace_back(tracker.Label(r.label));
    r.label = label->second;
    if (r.stack == 0) continue;
    auto [stack, new_stack] =
        stack_ids.try_emplace(r.stack, static_cast<uint32_t>(p.stack_begin.size() - 1));
    if (new_stack) {
      const auto f = stacks.Frames(r.stack);
      const auto l = stacks.Lines(r.stack);
      for (size_t i = 0; i < f.size(); ++i) {
        if (f[i] == FrameTable::kCFrame) continue;  // C methods have no file and line
        auto [frame, new_frame] =
            frame_ids.try_emplace(f[i], static_cast<uint32_t>(p.frames.size()));
        if (new_frame)
          p.frames.push_back({std::string(names.HasMethod(f[i]) ? names.Method(f[i]) : "(top)"),
                              std::string(names.Path(f[i]))});
        p.stack_frames.push_back(frame->second);
        p.stack_lines.push_back(l[i]);
      }
      p.stack_begin.push_back(static_cast<uint32_t>(p.stack_frames.size()));
    }
    r.stack = stack->second;
  }
  return p;
}

std::string EncodeProfile(const ProfileSnapshot& p) {
  protobuf::Message profile, m, inner;
  Strings strings(as_is);
  auto value_type = [&](uint32_t field, const char* type, const char* unit) {
    m.clear();
    m.int64(1, strings.index(type));
    m.int64(2, strings.index(unit));
    profile.message(field, m);
  };
  // Go's heap profiles' four values, in Go's order: pprof's -sample_index names them.
  value_type(kSampleType, "alloc_objects", "count");
  value_type(kSampleType, "alloc_space", "bytes");
  value_type(kSampleType, "inuse_objects", "count");
  value_type(kSampleType, "inuse_space", "bytes");

  // Locations: one per frame and line, ids from 1.
  std::map<std::pair<uint32_t, int>, uint64_t> locations;
  auto location = [&](uint32_t frame, int line) {
    auto [it, added] = locations.try_emplace({frame, line}, locations.size() + 1);
    if (added) {
      m.clear();
      m.varint(1, it->second);
      m.varint(2, 1);  // the mapping
      inner.clear();
      inner.varint(1, frame + 1);  // the frame's function
      if (line > 0) inner.int64(2, line);
      m.message(4, inner);
      profile.message(kLocation, m);
    }
    return it->second;
  };
  const uint64_t n = p.sample;
  for (const ProfileSnapshot::Row& r : p.rows) {
    if (r.live == 0 && r.freed == 0) continue;
    std::vector<uint64_t> ids;
    for (uint32_t i = p.stack_begin[r.stack]; i < p.stack_begin[r.stack + 1]; ++i)
      ids.push_back(location(p.stack_frames[i], p.stack_lines[i]));
    m.clear();
    inner.clear();
    for (uint64_t id : ids) inner.raw_varint(id);
    m.bytes(1, inner.data());
    inner.clear();
    for (uint64_t v :
         {(r.live + r.freed) * n, (r.live_bytes + r.freed_bytes) * n, r.live * n, r.live_bytes * n})
      inner.raw_varint(v);
    m.bytes(2, inner.data());
    for (const auto& [key, value] :
         {std::pair<const char*, std::string>{"class", p.labels[r.label]},
          {"type", TypeName(r.type)}}) {
      inner.clear();
      inner.int64(1, strings.index(key));
      inner.int64(2, strings.index(value));
      m.message(3, inner);
    }
    profile.message(kSample, m);
  }
  // One mapping, the program: its functions, files and lines are given (nothing to symbolize).
  m.clear();
  m.varint(1, 1);
  m.int64(5, strings.index("ruby"));
  for (uint32_t has : {7, 8, 9}) m.varint(has, 1);
  profile.message(kMapping, m);
  for (size_t f = 0; f < p.frames.size(); ++f) {
    m.clear();
    m.varint(1, f + 1);
    m.int64(2, strings.index(p.frames[f].name));
    m.int64(4, strings.index(p.frames[f].file));
    profile.message(kFunction, m);
  }
  profile.int64(kTimeNanos, static_cast<int64_t>(p.time_nanos));
  profile.int64(kDurationNanos, static_cast<int64_t>(p.duration_nanos));
  value_type(kPeriodType, "allocations", "count");
  profile.int64(kPeriod, p.sample);
  std::vector<std::string> comments = {"memprof sampled heap", "host: " + p.host,
                                       "pid: " + std::to_string(p.pid)};
  if (!p.started.empty()) comments.push_back("started: " + p.started);
  comments.push_back("1 in " + std::to_string(p.sample) +
                     " allocations sampled; values scaled by " + std::to_string(p.sample));
  for (const std::string& comment : comments) profile.int64(kComment, strings.index(comment));
  profile.int64(kDefaultSampleType, strings.index("inuse_space"));
  strings.write(profile);
  std::string compressed;
  if (!gzip(profile.data(), compressed)) throw std::runtime_error("zlib failed to compress");
  return compressed;
}

}  // namespace memprof
