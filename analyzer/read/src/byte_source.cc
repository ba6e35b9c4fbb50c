#include "heapq/read/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

namespace heapq {

namespace {

// One read(2) or pread(2), retried when a signal interrupts it; `consumed` counts what it gave.
template <class Read>
Result<size_t> read_some(const std::string& name, uint64_t& consumed, Read read) {
  for (;;) {
    const ssize_t got = read();
    if (got >= 0) {
      consumed += static_cast<uint64_t>(got);
      return static_cast<size_t>(got);
    }
    if (errno != EINTR) return io_error(name + ": read failed: " + std::strerror(errno));
  }
}

class FdSource final : public ByteSource {
 public:
  FdSource(int fd, bool owned, std::string name, uint64_t total)
      : fd_(fd), owned_(owned), name_(std::move(name)), total_(total) {}
  ~FdSource() override {
    if (owned_) ::close(fd_);
  }

  Result<size_t> read(char* buf, size_t n) override {
    return read_some(name_, consumed_, [&] { return ::read(fd_, buf, n); });
  }
  const std::string& name() const override { return name_; }
  uint64_t consumed() const override { return consumed_; }
  uint64_t total() const override { return total_; }

 private:
  int fd_;
  bool owned_;
  std::string name_;
  uint64_t total_;
  uint64_t consumed_ = 0;
};

// A regular file's descriptor, shared by the sources that read it, each at its own offset.
struct SharedFd {
  int fd = -1;
  ~SharedFd() {
    if (fd >= 0) ::close(fd);
  }
};

class PreadSource final : public ByteSource {
 public:
  PreadSource(std::shared_ptr<const SharedFd> fd, std::string name, uint64_t total)
      : fd_(std::move(fd)), name_(std::move(name)), total_(total) {}

  Result<size_t> read(char* buf, size_t n) override {
    return read_some(name_, consumed_,
                     [&] { return ::pread(fd_->fd, buf, n, static_cast<off_t>(consumed_)); });
  }
  const std::string& name() const override { return name_; }
  uint64_t consumed() const override { return consumed_; }
  uint64_t total() const override { return total_; }

 private:
  std::shared_ptr<const SharedFd> fd_;
  std::string name_;
  uint64_t total_;
  uint64_t consumed_ = 0;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(std::string bytes, std::string name)
      : bytes_(std::move(bytes)), name_(std::move(name)) {}

  Result<size_t> read(char* buf, size_t n) override {
    size_t k = std::min(n, bytes_.size() - pos_);
    std::memcpy(buf, bytes_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  const std::string& name() const override { return name_; }
  uint64_t consumed() const override { return pos_; }
  uint64_t total() const override { return bytes_.size(); }

 private:
  std::string bytes_;
  std::string name_;
  size_t pos_ = 0;
};

// Hands back the bytes already read to sniff the format, then the rest of the inner source.
class PeekedSource final : public ByteSource {
 public:
  PeekedSource(std::unique_ptr<ByteSource> inner, std::string head)
      : inner_(std::move(inner)), head_(std::move(head)) {}

  Result<size_t> read(char* buf, size_t n) override {
    if (pos_ < head_.size()) {
      size_t k = std::min(n, head_.size() - pos_);
      std::memcpy(buf, head_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return inner_->read(buf, n);
  }
  const std::string& name() const override { return inner_->name(); }
  uint64_t consumed() const override { return inner_->consumed(); }
  uint64_t total() const override { return inner_->total(); }

 private:
  std::unique_ptr<ByteSource> inner_;
  std::string head_;
  size_t pos_ = 0;
};

// Keeps a copy of what it reads from the inner source, for a PeekedSource to hand out again.
class RecordingSource final : public ByteSource {
 public:
  RecordingSource(ByteSource& inner, std::string& kept) : inner_(inner), kept_(kept) {}

  Result<size_t> read(char* buf, size_t n) override {
    auto got = inner_.read(buf, n);
    if (got) kept_.append(buf, *got);
    return got;
  }
  const std::string& name() const override { return inner_.name(); }
  uint64_t consumed() const override { return inner_.consumed(); }
  uint64_t total() const override { return inner_.total(); }

 private:
  ByteSource& inner_;
  std::string& kept_;
};

bool gzip_magic(const char* p) {
  return static_cast<unsigned char>(p[0]) == 0x1f && static_cast<unsigned char>(p[1]) == 0x8b;
}

// Inflates gzip data, member after member (concatenated .gz files are valid gzip).
class GzipSource final : public ByteSource {
 public:
  explicit GzipSource(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)), in_(1 << 18) {
    std::memset(&z_, 0, sizeof z_);
    inflateInit2(&z_, 15 + 16);
  }
  ~GzipSource() override { inflateEnd(&z_); }

  Result<size_t> read(char* buf, size_t n) override {
    z_.next_out = reinterpret_cast<Bytef*>(buf);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    while (z_.avail_out == static_cast<uInt>(std::min<size_t>(n, 1u << 30)) && !done_) {
      if (z_.avail_in == 0 && !inner_eof_) {
        auto got = inner_->read(reinterpret_cast<char*>(in_.data()), in_.size());
        if (!got) return got.error();
        z_.next_in = in_.data();
        z_.avail_in = static_cast<uInt>(*got);
        inner_eof_ = *got == 0;
      }
      if (z_.avail_in == 0 && inner_eof_) {
        if (in_member_) damage_ = "truncated gzip stream (the file ends inside compressed data)";
        done_ = true;
        break;
      }
      if (!in_member_) {
        // Between members: another member must start here; anything else is left unread.
        if (z_.avail_in < 2 && !inner_eof_) {
          if (auto s = top_up(); !s) return s.error();
        }
        if (z_.avail_in < 2 || !gzip_magic(reinterpret_cast<const char*>(z_.next_in))) {
          damage_ = "data after the end of the gzip stream was ignored";
          done_ = true;
          break;
        }
        inflateReset(&z_);
        in_member_ = true;
      }
      int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        in_member_ = false;
        if (z_.avail_in == 0 && inner_eof_) done_ = true;
      } else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
        damage_ = std::string("corrupt gzip data: ") + (z_.msg ? z_.msg : "invalid stream");
        done_ = true;
      } else if (rc == Z_MEM_ERROR) {
        return io_error(inner_->name() + ": out of memory while inflating");
      }
    }
    return static_cast<size_t>(reinterpret_cast<char*>(z_.next_out) - buf);
  }
  const std::string& name() const override { return inner_->name(); }
  uint64_t consumed() const override { return inner_->consumed(); }
  uint64_t total() const override { return inner_->total(); }
  std::optional<std::string> damage() const override {
    return damage_.empty() ? std::nullopt : std::optional(damage_);
  }

 private:
  // Makes sure at least two input bytes are buffered when the source has them.
  Status top_up() {
    std::memmove(in_.data(), z_.next_in, z_.avail_in);
    size_t have = z_.avail_in;
    while (have < 2 && !inner_eof_) {
      auto got = inner_->read(reinterpret_cast<char*>(in_.data()) + have, in_.size() - have);
      if (!got) return got.error();
      inner_eof_ = *got == 0;
      have += *got;
    }
    z_.next_in = in_.data();
    z_.avail_in = static_cast<uInt>(have);
    return Ok{};
  }

  std::unique_ptr<ByteSource> inner_;
  std::vector<Bytef> in_;
  z_stream z_;
  bool inner_eof_ = false;
  bool in_member_ = false;
  bool done_ = false;
  std::string damage_;
};

// Reads up to two bytes to recognize gzip, then stacks the right reader on the source.
Result<std::unique_ptr<ByteSource>> sniff(std::unique_ptr<ByteSource> raw) {
  std::string head(2, '\0');
  size_t have = 0;
  while (have < head.size()) {
    auto got = raw->read(head.data() + have, head.size() - have);
    if (!got) return got.error();
    if (*got == 0) break;
    have += *got;
  }
  head.resize(have);
  bool gz = have == 2 && gzip_magic(head.data());
  std::unique_ptr<ByteSource> src = std::make_unique<PeekedSource>(std::move(raw), head);
  if (gz) src = std::make_unique<GzipSource>(std::move(src));
  return src;
}

// The first line of a content source (at most about max_bytes of it) and its first bytes.
Result<OpenedInput::Peek> first_line(ByteSource& content, size_t max_bytes) {
  std::string line;
  char buf[4096];
  while (line.size() < max_bytes && line.find('\n') == std::string::npos) {
    HEAPQ_ASSIGN_OR_RETURN(const size_t n, content.read(buf, sizeof buf));
    if (n == 0) break;
    line.append(buf, n);
  }
  std::string head = line.substr(0, 64);
  line.resize(std::min(line.find('\n'), line.size()));
  return OpenedInput::Peek{std::move(line), std::move(head)};
}

}  // namespace

struct OpenedInput::State {
  std::string name;                      // the path, or "<stdin>"
  std::shared_ptr<const SharedFd> file;  // a regular file, read by offset
  uint64_t size = 0;                     // a regular file's
  std::unique_ptr<ByteSource> stream;    // anything else, read once; null once handed out
  std::string kept;                      // the stream's bytes read to peek at it
  std::optional<Peek> peeked;
};

OpenedInput::OpenedInput(std::unique_ptr<State> state) : state_(std::move(state)) {}
OpenedInput::OpenedInput(OpenedInput&&) noexcept = default;
OpenedInput& OpenedInput::operator=(OpenedInput&&) noexcept = default;
OpenedInput::~OpenedInput() = default;

Result<OpenedInput> OpenedInput::open(const std::string& path) {
  auto state = std::make_unique<State>();
  struct stat st;
  if (path == "-") {  // read as it comes, from where it stands, whatever it is
    state->name = "<stdin>";
    uint64_t total = ::fstat(0, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : 0;
    state->stream = std::make_unique<FdSource>(0, false, state->name, total);
    return OpenedInput(std::move(state));
  }
  state->name = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(path + ": cannot open: " + std::strerror(errno));
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    return io_error(path + ": cannot read: is a directory");
  }
  if (S_ISREG(st.st_mode)) {
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    auto shared = std::make_shared<SharedFd>();
    shared->fd = fd;
    state->file = std::move(shared);
    state->size = static_cast<uint64_t>(st.st_size);
  } else {
    state->stream = std::make_unique<FdSource>(fd, true, path, 0);
  }
  return OpenedInput(std::move(state));
}

bool OpenedInput::regular() const {
  return state_->file != nullptr;
}

std::string OpenedInput::raw_head(size_t n) const {
  if (!state_->file) return {};
  std::string head(n, '\0');
  const ssize_t got = ::pread(state_->file->fd, head.data(), n, 0);
  head.resize(got > 0 ? static_cast<size_t>(got) : 0);
  return head;
}

Result<OpenedInput::Peek> OpenedInput::peek(size_t max_bytes) {
  if (state_->peeked) return *state_->peeked;
  if (state_->file) {
    HEAPQ_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> src, content());
    HEAPQ_ASSIGN_OR_RETURN(state_->peeked, first_line(*src, max_bytes));
    return *state_->peeked;
  }
  if (!state_->stream) return io_error(state_->name + ": read already (a pipe is read once)");
  {
    HEAPQ_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> src,
                           sniff(std::make_unique<RecordingSource>(*state_->stream, state_->kept)));
    HEAPQ_ASSIGN_OR_RETURN(state_->peeked, first_line(*src, max_bytes));
  }
  state_->stream =
      std::make_unique<PeekedSource>(std::move(state_->stream), std::exchange(state_->kept, {}));
  return *state_->peeked;
}

Result<std::unique_ptr<ByteSource>> OpenedInput::content() {
  if (state_->file)
    return sniff(std::make_unique<PreadSource>(state_->file, state_->name, state_->size));
  if (!state_->stream) return io_error(state_->name + ": read already (a pipe is read once)");
  return sniff(std::move(state_->stream));
}

Result<std::unique_ptr<ByteSource>> open_input(const std::string& path) {
  HEAPQ_ASSIGN_OR_RETURN(OpenedInput input, OpenedInput::open(path));
  return input.content();
}

std::unique_ptr<ByteSource> memory_input(std::string bytes, std::string name) {
  auto src = sniff(std::make_unique<MemorySource>(std::move(bytes), std::move(name)));
  return std::move(src.value());  // reading memory cannot fail
}

}  // namespace heapq
