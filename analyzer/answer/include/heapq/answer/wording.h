// How heapq writes numbers and sites in words, alike in text, JSON, pictures and the report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "heapq/model/site_ref.h"

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

// "samples/app.rb:12", or the file alone when the site has no line (0: allocated by C code).
std::string site_location(std::string_view file, uint32_t line);
// "samples/app.rb:12 in fetch"
std::string site_string(const SiteRef& site);
// site_string with a gem's or Ruby's file from its library's directory on (library_path):
// "rack-2.2.3/lib/rack/lint.rb:12 in call", where the app's line is shown beside it.
std::string library_site_string(const SiteRef& site);
// An application line worth showing beside an allocation site: one the site is not.
bool other_line(const std::optional<SiteRef>& site, const std::optional<SiteRef>& app);
// Where an object was allocated, on one line: the site, or where a gem's line made it
// "rack-2.2.3/lib/rack/lint.rb:12 in call, from the app's line app/cart.rb:8 in add".
std::string site_and_app_string(const SiteRef& site, const std::optional<SiteRef>& app);

}  // namespace heapq
