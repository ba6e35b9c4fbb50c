// A profile as pprof reads it: profile.proto (github.com/google/pprof, proto/profile.proto),
// gzip-compressed. Each frame is a Location with one Line of its Function; functions are the
// frames' names in their files.
#include <map>

#include "heapq/base/utf8.h"
#include "heapq/render/render.h"
#include "memprof/protobuf.h"

namespace heapq::render {

namespace {

namespace protobuf = memprof::protobuf;

using protobuf::kComment;
using protobuf::kDefaultSampleType;
using protobuf::kFunction;
using protobuf::kLocation;
using protobuf::kMapping;
using protobuf::kSample;
using protobuf::kSampleType;

// The profile's strings, each escaped as terminal text is.
auto escaped = [](std::string_view s) { return escape_controls(s); };
using Strings = protobuf::ProfileStrings<decltype(escaped)>;

Result<std::string> gzip(const std::string& data) {
  std::string out;
  if (!protobuf::gzip(data, out)) return io_error("cannot compress the profile: zlib failed");
  return out;
}

}  // namespace

Result<std::string> pprof(const ProfileAnswer& a) {
  if (a.values.size() != a.samples.size() * a.types.size())
    return io_error("a profile whose values do not fit its samples");
  // zlib takes 32-bit lengths in one call; a profile that big is not one anybody can open.
  constexpr size_t kMaxProfile = size_t(1) << 31;
  protobuf::Message profile, m, inner;
  Strings strings(escaped);
  for (const ProfileAnswer::ValueType& t : a.types) {
    m.clear();
    m.int64(1, strings.index(t.type));
    m.int64(2, strings.index(t.unit));
    profile.message(kSampleType, m);
  }
  for (const ProfileAnswer::Sample& s : a.samples) {
    m.clear();
    inner.clear();
    for (uint32_t node = s.node; node != ProfileAnswer::kNoParent; node = a.node_parent[node])
      inner.raw_varint(a.node_frame[node] + 1);  // location ids: the frames' indexes from 1
    m.bytes(1, inner.data());
    inner.clear();
    const size_t first = (&s - a.samples.data()) * a.types.size();
    for (size_t v = 0; v < a.types.size(); ++v)
      inner.raw_varint(static_cast<uint64_t>(a.values[first + v]));
    m.bytes(2, inner.data());
    for (const auto& [key, value] : a.label_sets[s.labels]) {
      inner.clear();
      inner.int64(1, strings.index(key));
      inner.int64(2, strings.index(value));
      m.message(3, inner);
    }
    profile.message(kSample, m);
    if (profile.data().size() > kMaxProfile) return io_error("the profile is over 2 GiB");
  }
  // One mapping, the dump: viewers name the profile after its file, and take its functions,
  // file names and lines as given (nothing to symbolize).
  m.clear();
  m.varint(1, 1);
  m.int64(5, strings.index(a.input.path));
  for (uint32_t has : {7, 8, 9}) m.varint(has, 1);
  profile.message(kMapping, m);
  std::map<std::pair<std::string, std::string>, uint64_t> functions;  // (name, file) -> id
  for (size_t f = 0; f < a.frames.size(); ++f) {
    const ProfileAnswer::Frame& frame = a.frames[f];
    auto [it, added] = functions.try_emplace({frame.name, frame.file}, functions.size() + 1);
    if (added) {
      m.clear();
      m.varint(1, it->second);
      // No system_name: pprof would take the name for a C++ one and cut out what it holds
      // between brackets ("class #<Class:0x...>" to "class #").
      m.int64(2, strings.index(frame.name));
      m.int64(4, strings.index(frame.file));
      profile.message(kFunction, m);
    }
    m.clear();
    m.varint(1, f + 1);
    m.varint(2, 1);  // the mapping
    inner.clear();
    inner.varint(1, it->second);
    if (frame.line) inner.int64(2, frame.line);
    m.message(4, inner);
    profile.message(kLocation, m);
  }
  profile.int64(kComment, strings.index(a.title));
  if (!a.types.empty()) profile.int64(kDefaultSampleType, strings.index(a.types.back().type));
  strings.write(profile);
  if (profile.data().size() > kMaxProfile) return io_error("the profile is over 2 GiB");
  return gzip(profile.data());
}

}  // namespace heapq::render
