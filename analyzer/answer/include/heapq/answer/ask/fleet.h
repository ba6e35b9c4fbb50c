// Asking for the answer of answer/fleet.h: the options and the calls that make it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/answer/fleet.h"
#include "heapq/answer/inputs.h"
#include "heapq/base/result.h"
#include "heapq/store/store.h"

namespace heapq {

Result<FleetAnswer> answer_fleet(const std::string& store, const FleetOptions& options);
// The same on a store already open (heapq report of a server's dumps).
Result<FleetAnswer> fleet_answer(StoreConnection& store, const FleetOptions& options);

}  // namespace heapq
