#include "heapq/read/source_paths.h"

namespace heapq {

namespace {

bool is_version_start(std::string_view s, size_t dash) {
  return dash + 1 < s.size() && s[dash + 1] >= '0' && s[dash + 1] <= '9';
}

// Ruby's library directory holds a version: /usr/lib/ruby/3.1.0/set.rb. Where its "/lib/ruby/"
// starts, or npos.
constexpr std::string_view kLibRuby = "/lib/ruby/";

size_t ruby_library_at(std::string_view path) {
  for (size_t at = path.find(kLibRuby); at != std::string_view::npos;
       at = path.find(kLibRuby, at + 1)) {
    const size_t after = at + kLibRuby.size();
    if (after < path.size() && path[after] >= '0' && path[after] <= '9') return at;
  }
  return std::string_view::npos;
}

// Where the last "/gems/NAME-VERSION/" of path starts its NAME (bundler vendors gems inside
// other trees: the last one wins) and NAME-VERSION's length; npos when there is none.
std::pair<size_t, size_t> gem_dir(std::string_view path) {
  size_t at = path.rfind("/gems/");
  while (at != std::string_view::npos) {
    size_t start = at + 6;
    size_t end = path.find('/', start);
    if (end != std::string_view::npos) {
      std::string_view dir = path.substr(start, end - start);
      size_t dash = dir.find('-');
      while (dash != std::string_view::npos && !is_version_start(dir, dash))
        dash = dir.find('-', dash + 1);
      if (dash != std::string_view::npos && dash > 0) return {start, dir.size()};
    }
    if (at == 0) break;
    at = path.rfind("/gems/", at - 1);
  }
  return {std::string_view::npos, 0};
}

// Libraries Debian packages: /usr/lib/ruby/vendor_ruby/rack/... (no version in the path).
constexpr std::string_view kVendor = "/lib/ruby/vendor_ruby/";

// memprof's own Ruby files, wherever it was loaded from (a build tree, RUBYLIB): memprof.rb
// and lib/memprof/*.rb. An installed gem's are found by its gem directory.
bool is_memprof_file(std::string_view path) {
  const size_t slash = path.rfind('/');
  const std::string_view name = path.substr(slash == std::string_view::npos ? 0 : slash + 1);
  if (name == "memprof.rb") return true;
  if (slash == std::string_view::npos || !name.ends_with(".rb")) return false;
  const std::string_view dir = path.substr(0, slash);
  return dir == "memprof" || dir.ends_with("/memprof");
}

}  // namespace

std::string gem_of_path(std::string_view path) {
  if (auto [start, length] = gem_dir(path); start != std::string_view::npos)
    return std::string(path.substr(start, length));
  if (path.starts_with("<internal:") || ruby_library_at(path) != std::string_view::npos)
    return "(ruby)";
  if (is_memprof_file(path)) return "memprof";
  if (size_t at = path.find(kVendor); at != std::string_view::npos) {
    std::string_view rest = path.substr(at + kVendor.size());
    rest = rest.substr(0, rest.find('/'));
    if (rest.ends_with(".rb")) rest.remove_suffix(3);
    if (!rest.empty()) return std::string(rest);
  }
  return "(app)";
}

std::string_view library_path(std::string_view path) {
  if (size_t start = gem_dir(path).first; start != std::string_view::npos)
    return path.substr(start);
  // "vendor_ruby/..." and "ruby/3.1.0/...": from after "/lib/ruby/" and "/lib/".
  if (size_t at = path.find(kVendor); at != std::string_view::npos)
    return path.substr(at + kLibRuby.size());
  if (size_t at = ruby_library_at(path); at != std::string_view::npos)
    return path.substr(at + std::string_view("/lib/").size());
  return path;
}

bool is_app_path(std::string_view path, std::string_view app_root) {
  if (gem_of_path(path) != "(app)") return false;
  while (app_root.size() > 1 && app_root.back() == '/') app_root.remove_suffix(1);
  if (app_root.empty() || path.empty() || (path[0] != '/' && path[0] != '<')) return true;
  return path.starts_with(app_root) &&
         (path.size() == app_root.size() || path[app_root.size()] == '/' || app_root == "/");
}

std::pair<std::string_view, std::string_view> split_gem(std::string_view gem) {
  for (size_t dash = gem.find('-'); dash != std::string_view::npos; dash = gem.find('-', dash + 1))
    if (dash > 0 && is_version_start(gem, dash)) return {gem.substr(0, dash), gem.substr(dash + 1)};
  return {gem, {}};
}

}  // namespace heapq
