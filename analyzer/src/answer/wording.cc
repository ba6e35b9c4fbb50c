#include "heapq/wording.h"

#include <cstdio>

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

std::string_view root_meaning(std::string_view category) {
  static constexpr std::pair<std::string_view, std::string_view> kMeanings[] = {
      {"finalizers", "the finalizer table (ObjectSpace.define_finalizer)"},
      {"global_tbl", "global variables"},
      {"global_list", "C globals (rb_gc_register_address)"},
      {"machine_context", "a thread's machine stack (C locals)"},
      {"vm", "the VM"},
      {"fork_parent", "the forking parent's other threads"},
  };
  for (auto [name, meaning] : kMeanings)
    if (name == category) return meaning;
  return {};
}

}  // namespace heapq
