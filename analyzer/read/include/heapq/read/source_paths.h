// What a dump's source paths say: the gem a file belongs to, a library's file from its
// directory on, whether a file is the application's. The graph, the stores and the analyses
// all ask.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace heapq {

// The gem a source path belongs to: ".../gems/rack-2.2.3/lib/rack.rb" -> "rack-2.2.3";
// Ruby's own library and internal files -> "(ruby)"; a library Debian packages
// (".../lib/ruby/vendor_ruby/rack/...") -> "rack"; memprof's own files (memprof.rb,
// memprof/*.rb) -> "memprof"; anything else -> "(app)".
std::string gem_of_path(std::string_view path);
// A gem's or Ruby's source path from its library's directory on, where a reader knows it:
// ".../gems/rack-2.2.3/lib/rack.rb" -> "rack-2.2.3/lib/rack.rb", "/usr/lib/ruby/3.1.0/set.rb"
// -> "ruby/3.1.0/set.rb", ".../lib/ruby/vendor_ruby/rack.rb" -> "vendor_ruby/rack.rb";
// the application's paths as they are.
std::string_view library_path(std::string_view path);
// Whether a source path is the application's: gem_of_path(path) is "(app)", and with an
// app_root (--app-root), the path is under it or relative.
bool is_app_path(std::string_view path, std::string_view app_root = {});

// "rack-2.2.3" -> {"rack", "2.2.3"}; a label without a version -> {label, ""}.
std::pair<std::string_view, std::string_view> split_gem(std::string_view gem);

}  // namespace heapq
