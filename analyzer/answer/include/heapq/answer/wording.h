// How heapq writes numbers in words, the same in text, JSON warnings, pictures and the report.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace heapq {

std::string format_count(uint64_t n);  // 1234567 -> "1,234,567"
// A count and its noun: counted(1, "object", "objects") -> "1 object", (2, ...) -> "2 objects".
std::string counted(uint64_t n, std::string_view one, std::string_view many);
// "process 1234", or "process 1234 on web-1" where the host is known (a pid alone repeats
// across hosts).
std::string process_name(uint64_t pid, std::string_view host);
std::string format_bytes(uint64_t n);       // 1536 -> "1.5 KiB"
std::string hex_address(uint64_t address);  // "0x7f3a9c0b1e28"
// What a GC root category of Ruby's (or memprof's "fork_parent:...") holds, for a reader:
// "finalizers" -> "the finalizer table (ObjectSpace.define_finalizer)"; empty for a category it
// does not know.
std::string root_meaning(std::string_view category);

}  // namespace heapq
