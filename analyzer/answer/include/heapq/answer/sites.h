// heapq sites: memory by allocation site (file:line and class), file, method, class or gem
// (schemas/sites.schema.json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/analyze/groupings.h"
#include "heapq/answer/common.h"

namespace heapq {

struct SitesAnswer {
  InputSummary input;
  SiteGrouping by = SiteGrouping::kSite;
  uint64_t objects_with_site = 0;
  uint64_t groups = 0;  // groups present; rows lists the first --top of them
  struct Row {
    std::optional<std::string> file;  // none: objects without an allocation site
    uint32_t line = 0;                // by site only; 0: none
    std::string method;               // by site and method
    std::string cls;                  // by site and class: "(no class)" without one
    bool has_class = false;
    std::string gem;  // by gem: "NAME-VERSION", "(ruby)", "(app)" or "(unknown)"
    std::string gem_name, gem_version;
    uint64_t count = 0, bytes = 0;
    std::optional<uint64_t> retained_bytes;  // with --retained
  };
  std::vector<Row> rows;
};

}  // namespace heapq
