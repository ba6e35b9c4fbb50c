#include "heapq/read/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace heapq {

namespace {

class FdSource final : public ByteSource {
 public:
  FdSource(int fd, bool owned, std::string name, uint64_t total)
      : fd_(fd), owned_(owned), name_(std::move(name)), total_(total) {}
  ~FdSource() override {
    if (owned_) ::close(fd_);
  }

  Result<size_t> read(char* buf, size_t n) override {
    for (;;) {
      ssize_t got = ::read(fd_, buf, n);
      if (got >= 0) {
        consumed_ += static_cast<uint64_t>(got);
        return static_cast<size_t>(got);
      }
      if (errno != EINTR) return io_error(name_ + ": read failed: " + std::strerror(errno));
    }
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

// The input's bytes as they are (gzip not yet recognized).
Result<std::unique_ptr<ByteSource>> open_raw(const std::string& path) {
  if (path == "-") {
    struct stat st;
    uint64_t total = ::fstat(0, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : 0;
    return std::unique_ptr<ByteSource>(std::make_unique<FdSource>(0, false, "<stdin>", total));
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    return io_error(path + ": cannot read: is a directory");
  }
  uint64_t total = S_ISREG(st.st_mode) ? st.st_size : 0;
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<ByteSource>(std::make_unique<FdSource>(fd, true, path, total));
}

}  // namespace

Result<std::unique_ptr<ByteSource>> open_input(const std::string& path) {
  HEAPQ_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> raw, open_raw(path));
  return sniff(std::move(raw));
}

Result<PeekedInput> peek_first_line(const std::string& path, size_t max_bytes) {
  HEAPQ_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> raw, open_raw(path));
  std::string kept, line;
  {
    HEAPQ_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> content,
                           sniff(std::make_unique<RecordingSource>(*raw, kept)));
    char buf[4096];
    while (line.size() < max_bytes && line.find('\n') == std::string::npos) {
      HEAPQ_ASSIGN_OR_RETURN(const size_t n, content->read(buf, sizeof buf));
      if (n == 0) break;
      line.append(buf, n);
    }
  }
  std::string head = line.substr(0, 64);
  line.resize(std::min(line.find('\n'), line.size()));
  HEAPQ_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> again,
                         sniff(std::make_unique<PeekedSource>(std::move(raw), std::move(kept))));
  return PeekedInput{std::move(line), std::move(head), std::move(again)};
}

std::unique_ptr<ByteSource> memory_input(std::string bytes, std::string name) {
  auto src = sniff(std::make_unique<MemorySource>(std::move(bytes), std::move(name)));
  return std::move(src.value());  // reading memory cannot fail
}

}  // namespace heapq
