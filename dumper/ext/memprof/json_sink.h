// Buffered JSON Lines output for the dumper: tokens written straight into one buffer, flushed to
// a file descriptor with write(2) or kept in memory. Never calls into Ruby.
//
// It replaced a yajl_gen-based writer: yajl's per-token state machine and print callback made
// a dump of 1.3M objects 2.9 s against ObjectSpace's 1.0 s (see dumper/README.md).
#pragma once

#include <zlib.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace memprof {

class JsonSink {
 public:
  // fd < 0 keeps everything in memory (see Text()). Output to fd is written with write(2) by
  // the calling thread as each megabyte fills; gzip: a writer thread compresses it beside the
  // walk and writes it (one gzip member, finished by Flush).
  explicit JsonSink(int fd, bool gzip = false);
  ~JsonSink();
  JsonSink(const JsonSink&) = delete;
  JsonSink& operator=(const JsonSink&) = delete;

  void BeginRecord() { MapOpen(); }
  void EndRecord();  // closes the record's map and writes the newline

  // A key: plain ASCII that needs no escaping (the dumper's own field names). The literal
  // overload lets the compiler inline the copy.
  template <size_t N>
  void Key(const char (&key)[N]) {
    Reserve(N + 4);
    KeyPrefix();
    std::memcpy(cursor_, key, N - 1);
    cursor_ += N - 1;
    KeySuffix();
  }
  void Key(std::string_view key) {
    Reserve(key.size() + 4);
    KeyPrefix();
    std::memcpy(cursor_, key.data(), key.size());
    cursor_ += key.size();
    KeySuffix();
  }
  // Any bytes: escaped, and written as valid UTF-8 (see AppendAsUtf8).
  void String(std::string_view bytes);
  // Bytes the caller knows to be valid UTF-8: escaped only.
  void Utf8String(std::string_view bytes) {
    Escaped(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  }
  // A string already in JSON form, quotes included (see QuoteJson); written as it is.
  void JsonText(std::string_view json) {
    Reserve(json.size() + 1);
    BeforeValue();
    std::memcpy(cursor_, json.data(), json.size());
    cursor_ += json.size();
  }
  // Whole "key":value pairs already in JSON form, written as they are inside the open map.
  void Fields(std::string_view json) {
    Reserve(json.size() + 1);
    if (!first_[depth_]) *cursor_++ = ',';
    first_[depth_] = false;
    std::memcpy(cursor_, json.data(), json.size());
    cursor_ += json.size();
  }
  void Address(uintptr_t address);
  void Unsigned(uint64_t n);
  void Signed(int64_t n);
  void Bool(bool b) {
    Reserve(6);
    BeforeValue();
    if (b) {
      std::memcpy(cursor_, "true", 4);
      cursor_ += 4;
    } else {
      std::memcpy(cursor_, "false", 5);
      cursor_ += 5;
    }
  }
  void Null() { Raw("null"); }
  void ArrayOpen() { Open('['); }
  void ArrayClose() { Close(']'); }
  void MapOpen() { Open('{'); }
  void MapClose() { Close('}'); }

  // Writes what is buffered and waits until it is written; false on a write error. With
  // gzip, it ends the stream: call it once, after the last record.
  bool Flush();
  int Errno() const;
  // Non-zero when tokens did not nest: a bug in the caller, reported rather than ignored.
  int GeneratorError() const { return nesting_error_; }
  size_t Records() const { return records_; }
  std::string_view Text() const {
    return {buffer_.get(), static_cast<size_t>(cursor_ - buffer_.get())};
  }

 private:
  static constexpr int kMaxDepth = 16;

  // Room for len more bytes at cursor_: flushes (fd) or grows (memory).
  void Reserve(size_t len) {
    if (static_cast<size_t>(end_ - cursor_) < len) MakeRoom(len);
  }
  void MakeRoom(size_t len);
  // Writes the full buffer; with gzip, gives it to the writer thread and continues in the
  // spare one, so that compression overlaps with the heap walk.
  void HandOff();
  void WriterLoop();
  void WriteAll(const char* p, size_t len);
  // Writer thread: compresses len bytes (and ends the stream when last) and writes them.
  void WriteCompressed(const char* p, size_t len, bool last);
  // The comma a value needs unless it follows a key or opens a list.
  void BeforeValue() {
    if (after_key_) {
      after_key_ = false;
    } else {
      if (!first_[depth_]) *cursor_++ = ',';
      first_[depth_] = false;
    }
  }
  void Raw(std::string_view text) {
    Reserve(text.size() + 1);
    BeforeValue();
    std::memcpy(cursor_, text.data(), text.size());
    cursor_ += text.size();
  }
  void KeyPrefix() {
    if (!first_[depth_]) *cursor_++ = ',';
    first_[depth_] = false;
    *cursor_++ = '"';
  }
  void KeySuffix() {
    *cursor_++ = '"';
    *cursor_++ = ':';
    after_key_ = true;
  }
  void Open(char bracket);
  void Close(char bracket);
  void Escaped(const unsigned char* bytes, size_t len);

  int fd_;
  std::unique_ptr<z_stream> zstream_;  // gzip only; the writer thread's
  std::unique_ptr<char[]> compressed_;
  bool pending_last_ = false;      // the pending buffer ends the gzip stream
  std::unique_ptr<char[]> spare_;  // gzip: the buffer the writer thread owns while pending_
  size_t spare_capacity_ = 0;      // each buffer keeps its own size: MakeRoom grows one
  size_t pending_size_ = 0;
  bool pending_ = false;
  bool stopping_ = false;
  int errno_ = 0;  // guarded by mutex_ once the writer runs
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::thread writer_;
  int nesting_error_ = 0;
  size_t records_ = 0;
  std::unique_ptr<char[]> buffer_;
  char* cursor_ = nullptr;
  char* end_ = nullptr;
  int depth_ = 0;
  bool first_[kMaxDepth + 1];
  bool after_key_ = false;
  std::string scratch_;  // sanitized copies of strings that are not valid UTF-8
};

// bytes as a JSON string (quotes, escapes, valid UTF-8), for JsonSink::JsonText.
std::string QuoteJson(std::string_view bytes);

// Length of the longest prefix of bytes[0, len) that is valid UTF-8.
size_t ValidUtf8Prefix(const unsigned char* bytes, size_t len);
// Appends bytes to out as UTF-8, writing each invalid byte as its Latin-1 character.
void AppendAsUtf8(std::string& out, std::string_view bytes);

}  // namespace memprof
