// Temporary files beside a file being written whole: created exclusively, never through a link.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "heapq/result.h"

namespace heapq {

// A new, empty file ".NAME.tmp-PID-RANDOM" in the directory of NAME (so that renaming it over
// NAME stays on one file system). O_CREAT | O_EXCL: whatever is already there under that name,
// a symlink planted in a shared directory included, is never opened, followed or truncated.
struct TempFile {
  std::string path;
  int fd = -1;  // open for writing; the caller closes it
};
Result<TempFile> create_temp_beside(const std::string& path);

// The process that made `name` (a file name in path's directory), when it is one of path's
// temporary files: ".NAME.tmp-PID-RANDOM", or ".NAME.tmp-PID" as earlier versions named them.
std::optional<pid_t> temp_file_owner(const std::string& path, const std::string& name);

}  // namespace heapq
