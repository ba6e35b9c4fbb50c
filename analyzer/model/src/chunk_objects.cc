#include "chunk_objects.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace heapq {

namespace {

std::string repeat_message(uint64_t address) {
  char hex[24];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(address));
  return std::string("a second record at address ") + hex + " (an earlier record has it)";
}

// The first few bad lines of the chunk and its repeats, in line order.
void add_issues(ParsedChunk& c, const std::vector<uint32_t>& repeats) {
  std::vector<LineIssue>& issues = c.first_bad_lines;
  for (size_t i = 0; i < repeats.size() && i < LoadReport::kIssuesKept; ++i)
    issues.push_back({c.record_line[repeats[i]], repeat_message(c.address[repeats[i]])});
  std::stable_sort(issues.begin(), issues.end(),
                   [](const LineIssue& a, const LineIssue& b) { return a.line < b.line; });
  if (issues.size() > LoadReport::kIssuesKept) issues.resize(LoadReport::kIssuesKept);
  c.bad_lines += repeats.size();
}

}  // namespace

uint64_t drop_repeated_objects(ParsedChunk& chunk, const std::vector<uint32_t>& repeats) {
  if (repeats.empty()) return 0;
  add_issues(chunk, repeats);
  drop_objects(chunk, repeats);
  return repeats.size();
}

}  // namespace heapq
