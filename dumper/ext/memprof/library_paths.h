// Whether a frame's source path is a library's (a gem's, Ruby's own, memprof's) or the
// application's, so that allocation stacks are recorded up to the application's line. memprof
// cannot know the application's root: a path is the application's unless heapq would call it a
// library's (a "/gems/NAME-VERSION/" directory, Ruby's "/lib/ruby/3.x/" and "vendor_ruby",
// "<internal:...>") or it lies under a directory this Ruby installs libraries in.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace memprof {

class LibraryPaths {
 public:
  // The library directories of this Ruby (Gem.path, RbConfig's, memprof's own).
  void SetDirs(std::vector<std::string> dirs) { dirs_ = std::move(dirs); }
  bool IsApp(std::string_view path) const;

 private:
  std::vector<std::string> dirs_;
};

}  // namespace memprof
