#include "output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "heapq/base/temp_file.h"
#include "heapq/base/utf8.h"

namespace heapq::cli {

bool emit(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    std::fprintf(stderr, "heapq: cannot write the output: %s\n", std::strerror(errno));
    return false;
  }
  return true;
}

namespace {

// Whether the whole of contents went to fd (errno says why not).
bool write_all(int fd, std::string_view contents) {
  while (!contents.empty()) {
    const ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    contents.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// The same, then fd is closed.
bool write_whole(int fd, std::string_view contents) {
  if (!write_all(fd, contents)) {
    const int error = errno;
    ::close(fd);
    errno = error;
    return false;
  }
  return ::close(fd) == 0;
}

// Beside the file, created exclusively, then renamed over it (never over a link: resolve_output
// gave the file a link names); errno says why not.
bool replace_whole(const TempFile& temp, const std::string& path, std::string_view contents) {
  if (write_whole(temp.fd, contents) && std::rename(temp.path.c_str(), path.c_str()) == 0)
    return true;
  const int error = errno;
  std::remove(temp.path.c_str());
  errno = error;
  return false;
}

}  // namespace

Status write_file(const std::string& path, std::string_view contents, bool quiet) {
  auto target = resolve_output(path);
  if (!target) return io_error("cannot write " + target.error().message);
  bool written = false;
  if (target->kind == OutputTarget::Kind::kDescriptor) {
    written = std::fflush(stdout) == 0 && write_all(target->fd, contents);
  } else if (target->kind == OutputTarget::Kind::kInPlace) {
    const int fd = ::open(target->path.c_str(), O_WRONLY | O_CLOEXEC);
    written = fd >= 0 && write_whole(fd, contents);
  } else {
    auto temp = create_temp_beside(target->path);
    if (!temp) return io_error("cannot write " + temp.error().message);
    written = replace_whole(*temp, target->path, contents);
  }
  if (!written) return io_error("cannot write " + path + ": " + std::strerror(errno));
  if (!quiet) std::fprintf(stderr, "heapq: wrote %s\n", escape_controls(path).c_str());
  return Ok{};
}

}  // namespace heapq::cli
