#include "cli/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "heapq/temp_file.h"
#include "heapq/utf8.h"

namespace heapq::cli {

bool emit(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    std::fprintf(stderr, "heapq: cannot write the output: %s\n", std::strerror(errno));
    return false;
  }
  return true;
}

namespace {

// Whether the whole of contents went to fd, which is closed (errno says why not).
bool write_whole(int fd, std::string_view contents) {
  while (!contents.empty()) {
    const ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      errno = error;
      return false;
    }
    contents.remove_prefix(static_cast<size_t>(n));
  }
  return ::close(fd) == 0;
}

}  // namespace

Status write_file(const std::string& path, std::string_view contents, bool quiet) {
  struct stat st;
  bool written = false;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // A device or FIFO (/dev/stdout): written in place, nothing to rename.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    written = fd >= 0 && write_whole(fd, contents);
  } else {
    // Beside the file, created exclusively, then renamed over it: rename(2) replaces a symlink
    // at `path` itself, never the file it points to.
    auto temp = create_temp_beside(path);
    if (!temp) return io_error("cannot write " + temp.error().message);
    written = write_whole(temp->fd, contents) && std::rename(temp->path.c_str(), path.c_str()) == 0;
    if (!written) {
      const int error = errno;
      std::remove(temp->path.c_str());
      errno = error;
    }
  }
  if (!written) return io_error("cannot write " + path + ": " + std::strerror(errno));
  if (!quiet) std::fprintf(stderr, "heapq: wrote %s\n", escape_controls(path).c_str());
  return Ok{};
}

}  // namespace heapq::cli
