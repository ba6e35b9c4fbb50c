// What grows in one process, read from its sampled-heap profiles over time (no dump): the
// allocation sites whose live objects never fell and grew in all, the sign of a leak whose
// holder a dump then names. Linear in the profiles' samples.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heapq/analyze/site_growth.h"
#include "heapq/base/result.h"
#include "heapq/model/fleet_data.h"
#include "heapq/read/sampled_profile.h"

namespace heapq {

// One profile's live estimates by site and class, in the order first met: the site is the
// application's innermost frame that allocated (heapq's rule of what is the app's, is_app_path),
// else the innermost frame with a file; none (file empty) when no frame has one. What a store
// keeps of a profile, and what growth compares.
std::vector<FleetCount> profile_site_counts(const SampledProfile& p);

// profiles: one process's (the same host, pid and start), in any order; at least two, at distinct
// times. A site grows when its live objects never fell from one profile to the next and rose
// by at least two sampled objects (twice the period) in all: a sample of objects never freed
// only grows, where a site whose objects come and go rises and falls. top: the most sites
// (0: all).
Result<ProcessGrowth> process_growth(const std::vector<const SampledProfile*>& profiles,
                                     size_t top);

}  // namespace heapq
