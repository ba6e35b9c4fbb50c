// Buffered JSON Lines output; see json_sink.h.
#include "json_sink.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace memprof {
namespace {

constexpr size_t kFlushAt = 1 << 20;
constexpr size_t kCompressedChunk = 256 << 10;

// Digits of n written backwards ending at end; returns the first digit.
char* FormatDecimal(uint64_t n, char* end) {
  do {
    *--end = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  return end;
}

}  // namespace

JsonSink::JsonSink(int fd, bool gzip) : fd_(fd) {
  size_t capacity = fd >= 0 ? kFlushAt + (64 << 10) : 4096;
  buffer_.reset(new char[capacity]);
  cursor_ = buffer_.get();
  end_ = cursor_ + capacity;
  first_[0] = true;
  if (fd >= 0 && gzip) {
    // Level 1: compression runs beside the walk, on the writer thread, and level 1 keeps it
    // from becoming the dump's bottleneck.
    zstream_.reset(new z_stream{});
    if (deflateInit2(zstream_.get(), Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
      throw std::bad_alloc();
    }
    compressed_.reset(new char[kCompressedChunk]);
  }
  // Plain output is written by the walking thread itself. A writer thread would read every
  // buffer the walk has just filled from the other core's cache, and on this kind of VM that
  // made the walk itself nearly twice as slow (1.27M objects: 0.26 s into /dev/null, 0.45-0.55 s
  // into a file with the writer thread, 0.31-0.33 s writing in place; see dumper/README.md).
  // Compression is worth a core of its own.
  if (zstream_) {
    spare_.reset(new char[capacity]);
    spare_capacity_ = capacity;
    // Signals stay with Ruby's threads: the writer blocks them all.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    writer_ = std::thread(&JsonSink::WriterLoop, this);
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  }
}

JsonSink::~JsonSink() {
  if (writer_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    writer_.join();
  }
  if (zstream_) deflateEnd(zstream_.get());
}

int JsonSink::Errno() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return errno_;
}

void JsonSink::WriterLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return pending_ || stopping_; });
    if (!pending_) return;
    size_t size = pending_size_;
    bool last = pending_last_;
    bool failed = errno_ != 0;
    lock.unlock();
    if (!failed && zstream_) {
      WriteCompressed(spare_.get(), size, last);
    } else if (!failed) {
      WriteAll(spare_.get(), size);
    }
    lock.lock();
    pending_ = false;
    changed_.notify_all();
  }
}

// The walking thread, or the writer thread with gzip; records the first error under the lock.
void JsonSink::WriteAll(const char* p, size_t left) {
  while (left > 0) {
    ssize_t n = write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // A non-blocking device (a terminal): wait here, off Ruby's threads.
      pollfd ready = {fd_, POLLOUT, 0};
      if (poll(&ready, 1, -1) >= 0 || errno == EINTR) continue;
    }
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      std::lock_guard<std::mutex> lock(mutex_);
      if (errno_ == 0) errno_ = err;
      return;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

// Writer thread only.
void JsonSink::WriteCompressed(const char* p, size_t len, bool last) {
  z_stream& z = *zstream_;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p));
  z.avail_in = static_cast<uInt>(len);
  int status;
  do {
    z.next_out = reinterpret_cast<Bytef*>(compressed_.get());
    z.avail_out = static_cast<uInt>(kCompressedChunk);
    status = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
    if (status == Z_STREAM_ERROR) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (errno_ == 0) errno_ = EIO;
      return;
    }
    WriteAll(compressed_.get(), kCompressedChunk - z.avail_out);
  } while (z.avail_out == 0 || (last && status != Z_STREAM_END));
}

void JsonSink::HandOff() {
  if (!writer_.joinable()) {
    if (Errno() == 0) WriteAll(buffer_.get(), static_cast<size_t>(cursor_ - buffer_.get()));
    cursor_ = buffer_.get();
    return;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !pending_; });
  size_t full_capacity = static_cast<size_t>(end_ - buffer_.get());
  std::swap(buffer_, spare_);
  pending_size_ = static_cast<size_t>(cursor_ - spare_.get());
  pending_ = pending_size_ > 0 || pending_last_;
  cursor_ = buffer_.get();
  end_ = cursor_ + spare_capacity_;
  spare_capacity_ = full_capacity;
  lock.unlock();
  changed_.notify_all();
}

void JsonSink::MakeRoom(size_t len) {
  if (fd_ >= 0) {
    HandOff();
    if (static_cast<size_t>(end_ - cursor_) >= len) return;
  }
  size_t used = static_cast<size_t>(cursor_ - buffer_.get());
  size_t capacity = static_cast<size_t>(end_ - buffer_.get());
  while (capacity - used < len) capacity *= 2;
  std::unique_ptr<char[]> bigger(new char[capacity]);
  std::memcpy(bigger.get(), buffer_.get(), used);
  buffer_ = std::move(bigger);
  cursor_ = buffer_.get() + used;
  end_ = buffer_.get() + capacity;
}

void JsonSink::Open(char bracket) {
  Reserve(2);
  BeforeValue();
  *cursor_++ = bracket;
  if (depth_ == kMaxDepth) {
    nesting_error_ = 1;
    return;
  }
  first_[++depth_] = true;
}

void JsonSink::Close(char bracket) {
  Reserve(1);
  *cursor_++ = bracket;
  if (depth_ == 0 || after_key_) {
    nesting_error_ = 2;
    return;
  }
  --depth_;
}

void JsonSink::EndRecord() {
  MapClose();
  if (depth_ != 0) nesting_error_ = 3;
  depth_ = 0;
  first_[0] = true;
  after_key_ = false;
  Reserve(1);
  *cursor_++ = '\n';
  ++records_;
  if (fd_ >= 0 && cursor_ - buffer_.get() >= static_cast<ptrdiff_t>(kFlushAt)) HandOff();
}

bool JsonSink::Flush() {
  if (fd_ < 0) return true;
  if (zstream_) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !pending_; });
    pending_last_ = true;  // read by the writer with the buffer handed off next
  }
  HandOff();
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !pending_; });
  return errno_ == 0;
}

void JsonSink::String(std::string_view bytes) {
  auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  if (ValidUtf8Prefix(data, bytes.size()) == bytes.size()) {
    Escaped(data, bytes.size());
    return;
  }
  scratch_.clear();
  AppendAsUtf8(scratch_, bytes);
  Escaped(reinterpret_cast<const unsigned char*>(scratch_.data()), scratch_.size());
}

// JSON string escaping: '"', '\\' and control characters; UTF-8 passes through.
void JsonSink::Escaped(const unsigned char* s, size_t len) {
  Reserve(len * 6 + 3);
  BeforeValue();
  char* out = cursor_;
  *out++ = '"';
  for (size_t i = 0; i < len; ++i) {
    // Eight bytes at a time while none is a quote, a backslash or a control character.
    while (i + 8 <= len) {
      uint64_t word;
      std::memcpy(&word, s + i, 8);
      constexpr uint64_t kOnes = 0x0101010101010101ULL;
      constexpr uint64_t kHigh = 0x8080808080808080ULL;
      uint64_t quote = word ^ (kOnes * '"');
      uint64_t backslash = word ^ (kOnes * '\\');
      uint64_t special = ((word - kOnes * 0x20) & ~word) | ((quote - kOnes) & ~quote) |
                         ((backslash - kOnes) & ~backslash);
      if ((special & kHigh) != 0) break;
      std::memcpy(out, &word, 8);
      out += 8;
      i += 8;
    }
    if (i >= len) break;
    unsigned char c = s[i];
    if (c >= 0x20 && c != '"' && c != '\\') {
      *out++ = static_cast<char>(c);
      continue;
    }
    *out++ = '\\';
    switch (c) {
      case '"':
        *out++ = '"';
        break;
      case '\\':
        *out++ = '\\';
        break;
      case '\n':
        *out++ = 'n';
        break;
      case '\r':
        *out++ = 'r';
        break;
      case '\t':
        *out++ = 't';
        break;
      case '\b':
        *out++ = 'b';
        break;
      case '\f':
        *out++ = 'f';
        break;
      default:
        *out++ = 'u';
        *out++ = '0';
        *out++ = '0';
        *out++ = "0123456789abcdef"[c >> 4];
        *out++ = "0123456789abcdef"[c & 0xf];
    }
  }
  *out++ = '"';
  cursor_ = out;
}

// Digits go straight into the buffer, last digit first: no temporary, no copy.
void JsonSink::Address(uintptr_t address) {
  int bits = address == 0 ? 1 : 64 - __builtin_clzll(address);
  size_t digits = static_cast<size_t>((bits + 3) / 4);
  Reserve(digits + 6);
  BeforeValue();
  char* out = cursor_;
  out[0] = '"';
  out[1] = '0';
  out[2] = 'x';
  char* p = out + 3 + digits;
  *p = '"';
  static const char kPairs[] =
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
      "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
      "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
      "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
      "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
      "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
      "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
      "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
  for (; address >= 0x10; address >>= 8) {  // two digits per byte, from the last
    p -= 2;
    std::memcpy(p, kPairs + 2 * (address & 0xff), 2);
    if (p == out + 3) return void(cursor_ = out + 4 + digits);
  }
  if (p > out + 3) *--p = "0123456789abcdef"[address & 0xf];
  cursor_ = out + 4 + digits;
}

void JsonSink::Unsigned(uint64_t n) {
  size_t digits = 1;
  for (uint64_t rest = n / 10; rest != 0; rest /= 10) ++digits;
  Reserve(digits + 1);
  BeforeValue();
  char* p = cursor_ + digits;
  cursor_ = p;
  do {
    *--p = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
}

void JsonSink::Signed(int64_t n) {
  if (n >= 0) {
    Unsigned(static_cast<uint64_t>(n));
    return;
  }
  char text[24];
  char* end = text + sizeof(text);
  char* p = FormatDecimal(0 - static_cast<uint64_t>(n), end);
  *--p = '-';
  Raw({p, static_cast<size_t>(end - p)});
}

std::string QuoteJson(std::string_view bytes) {
  JsonSink sink(-1);
  sink.ArrayOpen();
  sink.String(bytes);
  std::string_view text = sink.Text();
  return std::string(text.substr(1));  // without the '['
}

size_t ValidUtf8Prefix(const unsigned char* s, size_t len) {
  size_t i = 0;
  while (i < len) {
    // ASCII runs eight bytes at a time.
    if (i + 8 <= len) {
      uint64_t word;
      std::memcpy(&word, s + i, 8);
      if ((word & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t need;
    uint32_t min;
    uint32_t cp;
    if ((c & 0xe0) == 0xc0) {
      need = 1, min = 0x80, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      need = 2, min = 0x800, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      need = 3, min = 0x10000, cp = c & 0x07;
    } else {
      return i;
    }
    if (i + need >= len) return i;  // the sequence is cut short
    for (size_t k = 1; k <= need; ++k) {
      unsigned char cc = s[i + k];
      if ((cc & 0xc0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return len;
}

void AppendAsUtf8(std::string& out, std::string_view bytes) {
  auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t len = bytes.size();
  size_t i = 0;
  while (i < len) {
    size_t valid = ValidUtf8Prefix(s + i, len - i);
    out.append(bytes.data() + i, valid);
    i += valid;
    if (i < len) {
      unsigned char c = s[i++];  // an invalid byte: its Latin-1 character, U+0080..U+00FF
      out.push_back(static_cast<char>(0xc0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
    }
  }
}

}  // namespace memprof
