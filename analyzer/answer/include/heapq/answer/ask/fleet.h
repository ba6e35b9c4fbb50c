// Asking for the answer of answer/fleet.h: the options and the calls that make it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/answer/fleet.h"
#include "heapq/answer/inputs.h"
#include "heapq/base/result.h"

namespace heapq {

Result<FleetAnswer> answer_fleet(const std::string& store, const FleetOptions& options);

}  // namespace heapq
