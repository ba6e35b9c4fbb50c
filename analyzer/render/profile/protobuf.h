// The protocol buffers wire format, as much of it as profile.proto needs: varints and
// length-delimited fields (https://protobuf.dev/programming-guides/encoding/).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace heapq::render::protobuf {

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

}  // namespace heapq::render::protobuf
