// The rows one sampled profile makes in a store, in either backend: its row in profiles and its
// live estimates by site and class in profile_sites (schemas/store.sql).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heapq/model/fleet_data.h"
#include "heapq/read/sampled_profile.h"
#include "heapq/store/store.h"
#include "table_rows.h"

namespace heapq::store {

// Writes the profile's rows under id `profile`: its sites' rows first, its profiles row last.
Status write_profile_rows(RowTarget& to, int64_t profile, const std::string& source,
                          const SampledProfile& p, const std::vector<FleetCount>& sites,
                          const DumpTags& tags);

}  // namespace heapq::store
