#include "heapq/answer/wording.h"

#include <cstdio>

#include "heapq/read/source_paths.h"

namespace heapq {

std::string format_count(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string counted(uint64_t n, std::string_view one, std::string_view many) {
  return format_count(n) + " " + std::string(n == 1 ? one : many);
}

std::string format_bytes(uint64_t n) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (n < 1024) return std::to_string(n) + " B";
  double v = static_cast<double>(n);
  int unit = 0;
  while (v >= 1024 && unit < 4) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf,
                v < 10    ? "%.2f %s"
                : v < 100 ? "%.1f %s"
                          : "%.0f %s",
                v, kUnits[unit]);
  return buf;
}

std::string hex_address(uint64_t address) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(address));
  return buf;
}

std::string process_name(uint64_t pid, std::string_view host) {
  return "process " + std::to_string(pid) + (host.empty() ? "" : " on " + std::string(host));
}

std::string root_meaning(std::string_view category) {
  // Ruby's categories (gc.c's root walk), and memprof's for what its fork child's parent held.
  static constexpr std::pair<std::string_view, std::string_view> kMeanings[] = {
      {"vm", "the VM (its threads, ractors, and the objects C code registered)"},
      {"finalizers", "the finalizer table (ObjectSpace.define_finalizer)"},
      {"machine_context", "a thread's machine stack (C locals, scanned conservatively)"},
      {"global_list", "C globals (rb_gc_register_address)"},
      {"end_proc", "at_exit blocks (Kernel#at_exit, END { })"},
      {"global_tbl", "global variables"},
      {"object_id", "the object_id table"},
      {"objspace", "the garbage collector's own tables"},
      {"YJIT", "YJIT's compiled code"},
      {"finish", "what the garbage collector marks after the other roots"},
  };
  constexpr std::string_view kParent = "fork_parent:";
  if (category.starts_with(kParent)) {
    const std::string inner = root_meaning(category.substr(kParent.size()));
    return "in the forking parent (not the fork child that dumped): " +
           (inner.empty() ? std::string(category.substr(kParent.size())) : inner);
  }
  for (auto [name, meaning] : kMeanings)
    if (name == category) return std::string(meaning);
  return {};
}

std::string site_location(std::string_view file, uint32_t line) {
  return line ? std::string(file) + ":" + std::to_string(line) : std::string(file);
}

std::string site_string(const SiteRef& site) {
  std::string out = site_location(site.file, site.line);
  if (!site.method.empty()) out += " in " + site.method;
  return out;
}

std::string library_site_string(const SiteRef& site) {
  return site_string({std::string(library_path(site.file)), site.line, site.method});
}

bool other_line(const std::optional<SiteRef>& site, const std::optional<SiteRef>& app) {
  return app && (!site || site->file != app->file || site->line != app->line);
}

std::string site_and_app_string(const SiteRef& site, const std::optional<SiteRef>& app) {
  if (!other_line(site, app)) return site_string(site);
  return library_site_string(site) + ", from the app's line " + site_string(*app);
}

}  // namespace heapq
