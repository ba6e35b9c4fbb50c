#include "heapq/answer/targets.h"

#include <charconv>
#include <optional>
#include <string_view>

namespace heapq {

namespace {

struct SiteSpec {
  std::string file;
  uint32_t line = 0;
};

Result<SiteSpec> parse_site(const std::string& site) {
  const size_t colon = site.rfind(':');
  SiteSpec out;
  if (colon == std::string::npos || colon == 0) return usage_error("--site expects FILE:LINE");
  out.file = site.substr(0, colon);
  const char* first = site.data() + colon + 1;
  const char* last = site.data() + site.size();
  auto [end, ec] = std::from_chars(first, last, out.line);
  if (first == last || ec != std::errc() || end != last || out.line == 0)
    return usage_error("--site expects FILE:LINE, LINE a number from 1 (not \"" +
                       site.substr(colon + 1) + "\")");
  return out;
}

// The file as the dump names it is `file`, or ends with "/" + file.
bool same_file(std::string_view in_dump, std::string_view file) {
  return in_dump == file || (in_dump.size() > file.size() && in_dump.ends_with(file) &&
                             in_dump[in_dump.size() - file.size() - 1] == '/');
}

}  // namespace

Result<Target> find_target(const HeapGraph& g, const std::string& spec, const std::string& path,
                           const std::string& site) {
  Target t;
  t.label = site.empty() ? spec : spec + " allocated at " + site;
  if (spec.starts_with("0x") || spec.starts_with("0X")) {
    if (!site.empty()) return usage_error("--site narrows a class TARGET, not an address");
    uint64_t address = 0;
    const char* first = spec.data() + 2;
    const char* last = spec.data() + spec.size();
    auto [end, ec] = std::from_chars(first, last, address, 16);
    if (first == last || ec != std::errc() || end != last)
      return usage_error("\"" + spec + "\" is not a hex address");
    auto o = g.find(address);
    if (!o) return usage_error("no object at " + spec + " in " + path);
    t.object = *o;
    return t;
  }
  std::optional<SiteSpec> at;
  if (!site.empty()) {
    HEAPQ_ASSIGN_OR_RETURN(at, parse_site(site));
  }
  uint64_t of_class = 0;
  for (uint32_t i = 0; i < g.object_count(); ++i) {
    const ObjectId o(i);
    if (g.class_name(g.class_of(o)) != spec) continue;
    ++of_class;
    if (at) {
      const SiteId s = g.source_site(o);
      if (!s.valid() || g.site_info(s).line != at->line ||
          !same_file(g.string(g.site_info(s).file), at->file))
        continue;
    }
    t.instances.push_back(o);
  }
  if (of_class == 0)
    return usage_error("no instances of " + spec + " in " + path +
                       " (TARGET is an address 0x... or a class name as heapq stats shows it)");
  if (t.instances.empty())
    return usage_error("no instance of " + spec + " in " + path + " was allocated at " + site +
                       " (heapq sites shows where its " + std::to_string(of_class) +
                       " instances were)");
  return t;
}

}  // namespace heapq
