#include "heapq/base/temp_file.h"

#include <fcntl.h>
#include <sys/stat.h>
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

// N when dir/name is /proc/PID/fd/N (or a thread's) of this process: dir is canonical, so that
// /proc/self, /proc/thread-self and /dev/fd are seen through.
std::optional<int> own_descriptor(const std::filesystem::path& dir, const std::string& name) {
  const std::string self = "/proc/" + std::to_string(::getpid()), d = dir.string();
  const bool fd_dir = d == self + "/fd" || (d.starts_with(self + "/task/") && d.ends_with("/fd"));
  if (!fd_dir || name.empty() || name.size() > 9 ||
      name.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoi(name);
}

// A link in a sticky world-writable directory (/tmp) that neither we nor the directory's owner
// made: what the kernel's protected_symlinks would not follow either.
bool planted(const std::filesystem::path& dir, const struct stat& link) {
  struct stat d;
  return ::stat(dir.c_str(), &d) == 0 && (d.st_mode & S_ISVTX) && (d.st_mode & S_IWOTH) &&
         link.st_uid != ::geteuid() && link.st_uid != d.st_uid;
}

}  // namespace

Result<OutputTarget> resolve_output(const std::string& path) {
  using Kind = OutputTarget::Kind;
  if (path == "-") return OutputTarget{Kind::kDescriptor, path, STDOUT_FILENO};
  std::string at = path;
  // One link at a time, each checked before it is followed.
  for (int hop = 0; hop < 40; ++hop) {
    const std::filesystem::path p(at);
    std::error_code ec;
    const auto dir = std::filesystem::canonical(p.has_parent_path() ? p.parent_path() : ".", ec);
    if (ec) return OutputTarget{Kind::kReplace, at};  // creating the file beside it says why not
    const std::string name = p.filename().string(), full = (dir / name).string();
    if (const std::optional<int> fd = own_descriptor(dir, name))
      return OutputTarget{Kind::kDescriptor, full, *fd};
    struct stat st;
    if (::lstat(full.c_str(), &st) != 0 || S_ISREG(st.st_mode))
      return OutputTarget{Kind::kReplace, full};
    if (!S_ISLNK(st.st_mode)) return OutputTarget{Kind::kInPlace, full};
    if (planted(dir, st))
      return io_error(path + ": a link another user made in a shared directory; not followed");
    struct stat target;
    if (::stat(full.c_str(), &target) == 0 && !S_ISREG(target.st_mode))
      return OutputTarget{Kind::kInPlace, full};  // another process's pipe, a device
    std::string link(4096, '\0');
    const ssize_t n = ::readlink(full.c_str(), link.data(), link.size());
    if (n < 0 || static_cast<size_t>(n) == link.size())
      return io_error(path +
                      ": cannot read the link: " + std::strerror(n < 0 ? errno : ENAMETOOLONG));
    link.resize(static_cast<size_t>(n));
    at = link.starts_with('/') ? link : (dir / link).string();
  }
  return io_error(path + ": " + std::strerror(ELOOP));
}

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
