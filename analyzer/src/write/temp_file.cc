#include "heapq/temp_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

namespace heapq {

namespace {

std::string temp_prefix(const std::string& path) {
  return "." + std::filesystem::path(path).filename().string() + ".tmp-";
}

}  // namespace

Result<TempFile> create_temp_beside(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string stem = temp_prefix(path) + std::to_string(::getpid()) + "-";
  static std::mt19937_64 random{std::random_device{}()};
  int error = EEXIST;
  // A name someone else took (or planted) is skipped, never reused.
  for (int attempt = 0; attempt < 100 && error == EEXIST; ++attempt) {
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(random()));
    TempFile t{(p.parent_path() / (stem + suffix)).string()};
    t.fd = ::open(t.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (t.fd >= 0) return t;
    error = errno;
  }
  return io_error(path + ": cannot create a temporary file beside it: " + std::strerror(error));
}

std::optional<pid_t> temp_file_owner(const std::string& path, const std::string& name) {
  const std::string prefix = temp_prefix(path);
  if (!name.starts_with(prefix)) return std::nullopt;
  const std::string rest = name.substr(prefix.size());
  const size_t dash = rest.find('-');
  const std::string pid = rest.substr(0, dash);
  if (pid.empty() || pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  if (dash != std::string::npos &&
      (rest.size() != dash + 17 ||
       rest.find_first_not_of("0123456789abcdef", dash + 1) != std::string::npos))
    return std::nullopt;
  return static_cast<pid_t>(std::stol(pid));
}

}  // namespace heapq
