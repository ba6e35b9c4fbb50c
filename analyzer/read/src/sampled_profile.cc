// profile.proto's wire format read back (https://protobuf.dev/programming-guides/encoding/):
// what a heap profile's samples, locations, functions and strings say, every length and index
// checked against what holds it.
#include "heapq/read/sampled_profile.h"

#include <charconv>
#include <string_view>
#include <unordered_map>

#include "heapq/base/keyed_hash.h"
#include "heapq/base/utf8.h"

namespace heapq {
namespace {

// A string of the profile as heapq keeps it: UTF-8, each ill-formed sequence replaced (a store
// on a server takes nothing else).
std::string text(std::string_view s) {
  return valid_utf8(s) ? std::string(s) : repair_utf8(s);
}

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

// profile.proto's field numbers (github.com/google/pprof, proto/profile.proto).
enum : uint32_t {
  kSampleType = 1,
  kSample = 2,
  kLocation = 4,
  kFunction = 5,
  kStringTable = 6,
  kTimeNanos = 9,
  kDurationNanos = 10,
  kPeriod = 12,
  kComment = 13,
};

struct Field {
  uint32_t number = 0;
  uint32_t wire = 0;
  uint64_t varint = 0;     // a varint's value
  std::string_view bytes;  // a length-delimited field's bytes
  size_t offset = 0;       // of its key, in the whole profile
};

// A varint at data[pos], pos moved past it; false when it is cut short or longer than 10 bytes.
bool read_varint(std::string_view data, size_t& pos, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 70 && pos < data.size(); shift += 7) {
    const auto byte = static_cast<uint8_t>(data[pos++]);
    v |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// The fields of one message, in order. Offsets count from the profile's first byte.
class FieldReader {
 public:
  FieldReader(std::string_view data, size_t base) : data_(data), base_(base) {}

  // The next field into f; false at the end; an error where the message is cut or malformed.
  Result<bool> next(Field& f) {
    if (pos_ == data_.size()) return false;
    f.offset = base_ + pos_;
    uint64_t key = 0;
    if (!varint(key)) return fail("a field's key is cut short");
    f.number = static_cast<uint32_t>(key >> 3);
    f.wire = static_cast<uint32_t>(key & 7);
    if (key >> 3 == 0 || key >> 3 > UINT32_MAX) return fail("a field number out of range");
    uint64_t length = 0;
    switch (f.wire) {
      case kVarint:
        if (!varint(f.varint)) return fail("a varint is cut short or longer than 10 bytes");
        return true;
      case kFixed64:
      case kFixed32:
        length = f.wire == kFixed64 ? 8 : 4;
        break;
      case kBytes:
        if (!varint(length)) return fail("a length is cut short");
        break;
      default:
        return fail("wire type " + std::to_string(f.wire) + ", which profiles do not use");
    }
    if (length > data_.size() - pos_) return fail("a field longer than what holds it");
    f.bytes = data_.substr(pos_, length);
    pos_ += length;
    return true;
  }

 private:
  bool varint(uint64_t& v) { return read_varint(data_, pos_, v); }
  Result<bool> fail(const std::string& what) {
    return bad_input("damaged profile: at byte " + std::to_string(base_ + pos_) + ": " + what);
  }

  std::string_view data_;
  size_t base_;
  size_t pos_ = 0;
};

Error at(const Field& f, const std::string& what) {
  return bad_input("damaged profile: at byte " + std::to_string(f.offset) + ": " + what);
}

// Calls fn(value) for each varint of a repeated field, packed (bytes) or not (one varint).
template <class Fn>
Status each_varint(const Field& f, Fn&& fn) {
  if (f.wire == kVarint) {
    fn(f.varint);
    return Ok{};
  }
  if (f.wire != kBytes) return at(f, "a list of numbers of the wrong wire type");
  for (size_t pos = 0; pos < f.bytes.size();) {
    uint64_t v = 0;
    if (!read_varint(f.bytes, pos, v)) return at(f, "a packed number is cut short");
    fn(v);
  }
  return Ok{};
}

// Calls fn(field) for each field of a message's bytes (base: their offset in the profile),
// in order; fn returns a Status, and the first error, its own or the message's, ends the walk.
template <class Fn>
Status each_field(std::string_view data, size_t base, Fn&& fn) {
  FieldReader reader(data, base);
  Field f;
  for (;;) {
    auto more = reader.next(f);
    if (!more) return more.error();
    if (!*more) return Ok{};
    HEAPQ_RETURN_IF_ERROR(fn(f));
  }
}
template <class Fn>
Status each_field(const Field& message, Fn&& fn) {
  return each_field(message.bytes, message.offset, fn);
}

// The profile's parts, still as wire bytes, and its scalars.
struct Parts {
  std::vector<Field> sample_types, samples, locations, functions, comments;
  std::vector<std::string_view> strings;
  int64_t time_nanos = 0, duration_nanos = 0, period = 0;
};

Result<Parts> split(std::string_view data) {
  Parts p;
  auto part = [&](const Field& f) -> Status {
    const bool bytes = f.wire == kBytes, number = f.wire == kVarint;
    switch (f.number) {
      case kSampleType:
      case kSample:
      case kLocation:
      case kFunction:
        if (!bytes) return at(f, "a message of the wrong wire type");
        (f.number == kSampleType ? p.sample_types
         : f.number == kSample   ? p.samples
         : f.number == kLocation ? p.locations
                                 : p.functions)
            .push_back(f);
        return Ok{};
      case kStringTable:
        if (!bytes) return at(f, "a string of the wrong wire type");
        p.strings.push_back(f.bytes);
        return Ok{};
      case kComment:
        return each_varint(f, [&](uint64_t v) {
          Field c = f;
          c.varint = v;
          p.comments.push_back(c);
        });
      case kTimeNanos:
      case kDurationNanos:
      case kPeriod:
        if (!number) return at(f, "a number of the wrong wire type");
        (f.number == kTimeNanos       ? p.time_nanos
         : f.number == kDurationNanos ? p.duration_nanos
                                      : p.period) = static_cast<int64_t>(f.varint);
        return Ok{};
      default:
        return Ok{};  // mappings, drop_frames, ...: nothing heapq reads
    }
  };
  HEAPQ_RETURN_IF_ERROR(each_field(data, 0, part));
  if (p.strings.empty() || !p.strings[0].empty())
    return bad_input("damaged profile: its string table does not start with the empty string");
  return p;
}

// Reads a whole profile's parts into the SampledProfile, checking each index.
class Decoder {
 public:
  // max_frames: the most frames the samples may name in all (a location of many lines named by
  // many samples would otherwise multiply a small input into a huge answer).
  Decoder(const Parts& parts, size_t max_frames) : p_(parts), max_frames_(max_frames) {}

  Result<SampledProfile> decode() {
    HEAPQ_RETURN_IF_ERROR(value_types());
    HEAPQ_RETURN_IF_ERROR(functions());
    HEAPQ_RETURN_IF_ERROR(locations());
    for (const Field& s : p_.samples) HEAPQ_RETURN_IF_ERROR(sample(s));
    HEAPQ_RETURN_IF_ERROR(comments());
    out_.time_nanos = p_.time_nanos;
    out_.duration_nanos = p_.duration_nanos;
    out_.period = p_.period;
    return std::move(out_);
  }

 private:
  struct Location {
    std::vector<uint32_t> frames;  // innermost first
  };

  Result<std::string_view> string_at(const Field& f, uint64_t index) const {
    if (index >= p_.strings.size())
      return at(f, "string " + std::to_string(index) + " past the table's " +
                       std::to_string(p_.strings.size()));
    return p_.strings[index];
  }

  // The four values' positions in each sample.
  Status value_types() {
    const char* const names[] = {"inuse_objects", "inuse_space", "alloc_objects", "alloc_space"};
    for (size_t i = 0; i < p_.sample_types.size(); ++i) {
      HEAPQ_RETURN_IF_ERROR(each_field(p_.sample_types[i], [&](const Field& f) -> Status {
        if (f.number != 1 || f.wire != kVarint) return Ok{};  // the type; its unit is 2
        auto name = string_at(f, f.varint);
        if (!name) return name.error();
        for (int k = 0; k < 4; ++k)
          if (*name == names[k]) index_[k] = static_cast<int>(i);
        return Ok{};
      }));
    }
    for (int k = 0; k < 4; ++k)
      if (index_[k] < 0)
        return bad_input(std::string("not a heap profile: it has no ") + names[k] + " values");
    return Ok{};
  }

  Status functions() {
    for (const Field& m : p_.functions) {
      uint64_t id = 0;
      std::string_view name, file;
      HEAPQ_RETURN_IF_ERROR(each_field(m, [&](const Field& f) -> Status {
        if (f.wire != kVarint) return Ok{};
        if (f.number == 1) id = f.varint;
        if (f.number == 2 || f.number == 4) {
          auto s = string_at(f, f.varint);
          if (!s) return s.error();
          (f.number == 2 ? name : file) = *s;
        }
        return Ok{};
      }));
      if (id == 0) return at(m, "a function without an id");
      functions_[id] = {text(name), text(file), 0};
    }
    return Ok{};
  }

  // A location's lines (inlined calls first, the caller last) as frames.
  Status locations() {
    for (const Field& m : p_.locations) {
      uint64_t id = 0;
      Location loc;
      HEAPQ_RETURN_IF_ERROR(each_field(m, [&](const Field& f) -> Status {
        if (f.number == 1 && f.wire == kVarint) id = f.varint;
        if (f.number == 4 && f.wire == kBytes) return line(f, loc);
        return Ok{};
      }));
      if (id == 0) return at(m, "a location without an id");
      if (loc.frames.empty()) loc.frames.push_back(frame({"(unknown)", "", 0}));
      locations_[id] = std::move(loc);
    }
    return Ok{};
  }

  Status line(const Field& m, Location& loc) {
    uint64_t function = 0;
    int64_t number = 0;
    HEAPQ_RETURN_IF_ERROR(each_field(m, [&](const Field& f) -> Status {
      if (f.number == 1 && f.wire == kVarint) function = f.varint;
      if (f.number == 2 && f.wire == kVarint) number = static_cast<int64_t>(f.varint);
      return Ok{};
    }));
    auto it = functions_.find(function);
    if (it == functions_.end())
      return at(m, "a line of function " + std::to_string(function) + ", which is not there");
    SampledProfile::Frame frame_of_line = it->second;
    frame_of_line.line = number;
    loc.frames.push_back(frame(std::move(frame_of_line)));
    return Ok{};
  }

  // The frame's index, each distinct frame once.
  uint32_t frame(SampledProfile::Frame f) {
    std::string key = f.function + '\0' + f.file + '\0' + std::to_string(f.line);
    auto [it, added] = frame_ids_.try_emplace(std::move(key), out_.frames.size());
    if (added) out_.frames.push_back(std::move(f));
    return it->second;
  }

  Status sample(const Field& m) {
    SampledProfile::Sample s;
    std::vector<int64_t> values;
    HEAPQ_RETURN_IF_ERROR(each_field(m, [&](const Field& f) -> Status {
      if (f.number == 1) return locate(f, s);
      if (f.number == 2)
        return each_varint(f, [&](uint64_t v) { values.push_back(static_cast<int64_t>(v)); });
      if (f.number == 3 && f.wire == kBytes) return label(f, s);
      return Ok{};
    }));
    if (values.size() != p_.sample_types.size())
      return at(m, "a sample of " + std::to_string(values.size()) +
                       " values where the profile has " + std::to_string(p_.sample_types.size()));
    s.inuse_objects = values[index_[0]];
    s.inuse_bytes = values[index_[1]];
    s.alloc_objects = values[index_[2]];
    s.alloc_bytes = values[index_[3]];
    out_.samples.push_back(std::move(s));
    return Ok{};
  }

  // A sample's locations (a packed list of ids) appended to its frames.
  Status locate(const Field& f, SampledProfile::Sample& s) {
    Status located = Ok{};
    HEAPQ_RETURN_IF_ERROR(each_varint(f, [&](uint64_t id) {
      if (!located) return;
      auto it = locations_.find(id);
      if (it == locations_.end()) {
        located = at(f, "location " + std::to_string(id) + ", which is not there");
        return;
      }
      frames_named_ += it->second.frames.size();
      if (frames_named_ > max_frames_) {
        located = at(f, "more frames named than a profile of its size can mean");
        return;
      }
      s.frames.insert(s.frames.end(), it->second.frames.begin(), it->second.frames.end());
    }));
    return located;
  }

  // The labels heapq reads: class and type.
  Status label(const Field& m, SampledProfile::Sample& s) {
    std::string_view key, value;
    HEAPQ_RETURN_IF_ERROR(each_field(m, [&](const Field& f) -> Status {
      if ((f.number == 1 || f.number == 2) && f.wire == kVarint) {
        auto str = string_at(f, f.varint);
        if (!str) return str.error();
        (f.number == 1 ? key : value) = *str;
      }
      return Ok{};
    }));
    if (key == "class") s.class_name = text(value);
    if (key == "type") s.type = text(value);
    return Ok{};
  }

  // memprof's comments: "host: NAME", "pid: N", "started: TIME".
  Status comments() {
    for (const Field& c : p_.comments) {
      auto text = string_at(c, c.varint);
      if (!text) return text.error();
      if (text->starts_with("host: ")) out_.host = heapq::text(text->substr(6));
      if (text->starts_with("started: ")) out_.started = heapq::text(text->substr(9));
      if (text->starts_with("pid: ")) {
        const std::string_view digits = text->substr(5);
        uint64_t pid = 0;
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
        if (ec == std::errc() && end == digits.data() + digits.size()) out_.pid = pid;
      }
    }
    return Ok{};
  }

  const Parts& p_;
  const size_t max_frames_;
  size_t frames_named_ = 0;
  SampledProfile out_;
  int index_[4] = {-1, -1, -1, -1};  // inuse_objects, inuse_space, alloc_objects, alloc_space
  // Keyed at random: a stranger's ids and names, chosen to collide, land in no one bucket.
  std::unordered_map<uint64_t, SampledProfile::Frame, KeyedHash> functions_;
  std::unordered_map<uint64_t, Location, KeyedHash> locations_;
  std::unordered_map<std::string, uint32_t, KeyedHash> frame_ids_;
};

// The whole input, at most kMaxProfileBytes of it.
Result<std::string> read_all(ByteSource& in) {
  std::string data;
  char buf[1 << 16];
  for (;;) {
    auto n = in.read(buf, sizeof buf);
    if (!n) return n.error();
    if (*n == 0) break;
    if (data.size() + *n > kMaxProfileBytes)
      return bad_input(in.name() + ": larger than a profile may be (1 GiB, decompressed)");
    data.append(buf, *n);
  }
  if (auto damage = in.damage()) return bad_input(in.name() + ": " + *damage);
  return data;
}

}  // namespace

Result<SampledProfile> read_sampled_profile(ByteSource& in) {
  auto data = read_all(in);
  if (!data) return data.error();
  auto named = [&](const Error& e) { return Error{e.code, in.name() + ": " + e.message}; };
  auto parts = split(*data);
  if (!parts) return named(parts.error());
  // A real profile names each location in a byte or two: 16 frames a byte is far beyond it.
  auto profile = Decoder(*parts, 16 * data->size() + (size_t{1} << 20)).decode();
  if (!profile) return named(profile.error());
  return profile;
}

bool looks_like_profile(std::string_view head) {
  // The fields the bytes hold, as far as they go: each a field of profile.proto's Profile (1-14:
  // messages and strings length-delimited, the rest varints, comment packed or not).
  size_t at = 0;
  auto varint = [&](uint64_t& v) {
    v = 0;
    for (int shift = 0; at < head.size() && shift < 64; shift += 7) {
      const auto b = static_cast<unsigned char>(head[at++]);
      v |= uint64_t(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  };
  bool fields = false;
  while (at < head.size()) {
    uint64_t tag = 0, value = 0;
    if (!varint(tag)) return fields;  // cut off by the end of the bytes looked at
    const uint64_t field = tag >> 3, wire = tag & 7;
    const bool delimited = field <= 6 || field == 11 || field == 13;
    const bool number = (field >= 7 && field <= 10) || field >= 12;
    if (field < 1 || field > 14 || !((wire == 2 && delimited) || (wire == 0 && number)))
      return false;
    if (!varint(value)) return fields;
    if (wire == 0) {
      fields = true;
      continue;
    }
    // A sample type is a message whose first field is its type or unit (varints 1, 2): where a
    // dump opens with a newline, the byte after the "length" is '{' or '"'.
    if (field == 1 && value > 0 && at < head.size() && head[at] != 0x08 && head[at] != 0x10)
      return false;
    fields = true;
    if (value >= head.size() - at) return true;  // runs past the bytes looked at
    at += value;
  }
  return fields;
}

}  // namespace heapq
