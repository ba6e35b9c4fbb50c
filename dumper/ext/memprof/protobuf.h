// The protocol buffers wire format, as much of it as pprof's profile.proto needs: varints and
// length-delimited fields (https://protobuf.dev/programming-guides/encoding/), the profile's
// field numbers, its string table and its gzip. memprof's profiles and heapq's are written
// with it (heapq includes it as "memprof/protobuf.h").
#pragma once

#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace memprof::protobuf {

// Appends fields to a message held in a string; a nested message is another Message appended
// whole with bytes().
class Message {
 public:
  void varint(uint32_t field, uint64_t v) {
    key(field, 0);
    raw_varint(v);
  }
  // An int64 field: negative values take ten bytes, as protobuf writes them.
  void int64(uint32_t field, int64_t v) { varint(field, static_cast<uint64_t>(v)); }
  void bytes(uint32_t field, std::string_view b) {
    key(field, 2);
    raw_varint(b.size());
    out_.append(b);
  }
  void message(uint32_t field, const Message& m) { bytes(field, m.out_); }
  const std::string& data() const { return out_; }
  std::string take() { return std::move(out_); }
  void clear() { out_.clear(); }
  void raw_varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }

 private:
  void key(uint32_t field, uint32_t wire_type) { raw_varint(uint64_t(field) << 3 | wire_type); }
  std::string out_;
};

// profile.proto's field numbers (github.com/google/pprof, proto/profile.proto).
enum ProfileField : uint32_t {
  kSampleType = 1,
  kSample = 2,
  kMapping = 3,
  kLocation = 4,
  kFunction = 5,
  kStringTable = 6,
  kTimeNanos = 9,
  kDurationNanos = 10,
  kPeriodType = 11,
  kPeriod = 12,
  kComment = 13,
  kDefaultSampleType = 14,
};

// A profile's string table: each string once, "" first, as normalize(s) writes it (heapq
// escapes control characters: pprof's viewers print names as they are).
template <class Normalize>
class ProfileStrings {
 public:
  explicit ProfileStrings(Normalize normalize) : normalize_(std::move(normalize)) { index(""); }
  int64_t index(std::string_view s) {
    auto [it, added] = ids_.try_emplace(normalize_(s), static_cast<int64_t>(table_.size()));
    if (added) table_.push_back(&it->first);
    return it->second;
  }
  void write(Message& profile) const {
    for (const std::string* s : table_) profile.bytes(kStringTable, *s);
  }

 private:
  Normalize normalize_;
  std::unordered_map<std::string, int64_t> ids_;
  std::vector<const std::string*> table_;  // node-based map: the keys stay put
};

// data gzip-compressed into out, as pprof reads profiles; false when zlib fails. Up to 4 GiB.
inline bool gzip(const std::string& data, std::string& out) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return false;
  out.assign(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return rc == Z_STREAM_END;
}

}  // namespace memprof::protobuf
