// A profile as pprof reads it: profile.proto (github.com/google/pprof, proto/profile.proto),
// gzip-compressed. Each frame is a Location with one Line of its Function; functions are the
// frames' names in their files.
#include <zlib.h>

#include <map>
#include <unordered_map>

#include "heapq/keyed_hash.h"
#include "heapq/utf8.h"
#include "render/profile/protobuf.h"
#include "render/render.h"

namespace heapq::render {

namespace {

// profile.proto's field numbers.
enum ProfileField : uint32_t {
  kSampleType = 1,
  kSample = 2,
  kMapping = 3,
  kLocation = 4,
  kFunction = 5,
  kStringTable = 6,
  kComment = 13,
  kDefaultSampleType = 14,
};

// The profile's strings, each escaped as terminal text is: pprof's viewers print names as they
// are, and a name's control bytes would drive the terminal.
class Strings {
 public:
  Strings() { index(""); }  // string_table[0] is ""
  int64_t index(const std::string& s) {
    auto [it, added] = ids_.try_emplace(escape_controls(s), static_cast<int64_t>(table_.size()));
    if (added) table_.push_back(&it->first);
    return it->second;
  }
  void write(protobuf::Message& profile) const {
    for (const std::string* s : table_) profile.bytes(kStringTable, *s);
  }

 private:
  std::unordered_map<std::string, int64_t, KeyedHash> ids_;
  std::vector<const std::string*> table_;  // node-based map: the keys stay put
};

Result<std::string> gzip(const std::string& data) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return io_error("cannot compress the profile: zlib failed to start");
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return io_error("cannot compress the profile");
  return out;
}

}  // namespace

Result<std::string> pprof(const ProfileAnswer& a) {
  if (a.values.size() != a.samples.size() * a.types.size())
    return io_error("a profile whose values do not fit its samples");
  // zlib takes 32-bit lengths in one call; a profile that big is not one anybody can open.
  constexpr size_t kMaxProfile = size_t(1) << 31;
  protobuf::Message profile, m, inner;
  Strings strings;
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
