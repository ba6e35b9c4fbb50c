// Asking for the answer of answer/sites.h: the options and the calls that make it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/sites.h"
#include "heapq/answer/inputs.h"
#include "heapq/answer/sites.h"
#include "heapq/base/result.h"

namespace heapq {

struct SitesOptions {
  SiteGrouping by = SiteGrouping::kSite;
  size_t top = 20;  // SIZE_MAX: every group
  SortKey sort = SortKey::kBytes;
  bool retained = false;
};

Result<SitesAnswer> answer_sites(const std::string& input, const SitesOptions& options,
                                 const InputOptions& inputs);
// The same for a dump already loaded (dominators: for retained sizes, or null).
SitesAnswer sites_answer(const LoadedDump& dump, const HeapDominators* dominators,
                         const SitesOptions& options);

}  // namespace heapq
