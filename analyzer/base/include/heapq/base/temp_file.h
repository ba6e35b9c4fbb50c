// Files written whole: where they go (never over a link), and the temporary files beside them,
// created exclusively, never through a link.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "heapq/base/result.h"

namespace heapq {

// A new, empty file ".NAME.tmp-PID-RANDOM" in the directory of NAME (so that renaming it over
// NAME stays on one file system). O_CREAT | O_EXCL: whatever is already there under that name,
// a symlink planted in a shared directory included, is never opened, followed or truncated.
struct TempFile {
  std::string path;
  int fd = -1;  // open for writing; the caller closes it
};
Result<TempFile> create_temp_beside(const std::string& path);

// Where an output named `path` is written. A regular file (or a new one) is replaced whole by
// a rename, and a rename never replaces a link: a link is followed to the file it names, unless
// it sits in a shared directory (sticky, world-writable) and another user owns it, as the
// kernel's protected_symlinks refuses. What is not a regular file (a device, a FIFO) is written
// in place, and one of this process's own descriptors (-, /dev/stdout, /dev/fd/N,
// /proc/self/fd/N) is written through that descriptor, so that a shell's `>>` appends.
struct OutputTarget {
  enum class Kind { kReplace, kInPlace, kDescriptor };
  Kind kind = Kind::kReplace;
  std::string path;  // kReplace: the file to rename over; kInPlace: what to open
  int fd = -1;       // kDescriptor
};
Result<OutputTarget> resolve_output(const std::string& path);

// The process that made `name` (a file name in path's directory), when it is one of path's
// temporary files: ".NAME.tmp-PID-RANDOM", or ".NAME.tmp-PID" as earlier versions named them.
std::optional<pid_t> temp_file_owner(const std::string& path, const std::string& name);

}  // namespace heapq
