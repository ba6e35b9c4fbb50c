// Writing a command's output: to stdout, or to a file written whole.
#pragma once

#include <string>
#include <string_view>

#include "heapq/base/result.h"

namespace heapq::cli {

// Writes the text to stdout; false (and a message on stderr) when stdout fails.
bool emit(std::string_view text);

// Writes a file whole: to a temporary file created exclusively beside it (heapq/temp_file.h),
// renamed over it once complete, so that a reader never finds half of it there; a link is
// followed to its file, never replaced. A device, a FIFO or one of heapq's own descriptors
// (-, /dev/stdout) is written in place (resolve_output). Says "heapq: wrote PATH" on stderr
// unless quiet.
Status write_file(const std::string& path, std::string_view contents, bool quiet);

}  // namespace heapq::cli
