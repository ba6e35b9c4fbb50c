#include "library_paths.h"

namespace memprof {
namespace {

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// A "/gems/NAME-VERSION/" directory anywhere in path (Bundler vendors gems inside other trees).
bool InGemDir(std::string_view path) {
  for (size_t at = path.find("/gems/"); at != std::string_view::npos;
       at = path.find("/gems/", at + 1)) {
    const std::string_view rest = path.substr(at + 6);
    const std::string_view dir = rest.substr(0, rest.find('/'));
    if (dir.size() == rest.size()) return false;  // a file, not a directory
    for (size_t dash = dir.find('-'); dash != std::string_view::npos;
         dash = dir.find('-', dash + 1))
      if (dash > 0 && dash + 1 < dir.size() && IsDigit(dir[dash + 1])) return true;
  }
  return false;
}

// Ruby's library ("/lib/ruby/3.1.0/set.rb") and Debian's ("/lib/ruby/vendor_ruby/rack.rb").
bool InRubyLibrary(std::string_view path) {
  constexpr std::string_view kLibRuby = "/lib/ruby/";
  for (size_t at = path.find(kLibRuby); at != std::string_view::npos;
       at = path.find(kLibRuby, at + 1)) {
    const std::string_view rest = path.substr(at + kLibRuby.size());
    if ((!rest.empty() && IsDigit(rest[0])) || rest.starts_with("vendor_ruby/")) return true;
  }
  return false;
}

}  // namespace

bool LibraryPaths::IsApp(std::string_view path) const {
  if (path.starts_with("<internal:")) return false;
  // Ruby 3.3 names code evaluated from a string after the line that evaluated it.
  constexpr std::string_view kEvalAt = "(eval at ";
  if (path.starts_with(kEvalAt)) path.remove_prefix(kEvalAt.size());
  if (InGemDir(path) || InRubyLibrary(path)) return false;
  for (const std::string& dir : dirs_)
    if (!dir.empty() && path.starts_with(dir) &&
        (path.size() == dir.size() || dir.back() == '/' || path[dir.size()] == '/'))
      return false;
  return true;
}

}  // namespace memprof
