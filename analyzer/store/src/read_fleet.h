// What heapq fleet reads of a store: its dumps (and the sampled profiles of processes no dump
// is of), with what the roots reach by class and site in each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "heapq/base/result.h"
#include "heapq/model/fleet_data.h"
#include "row_source.h"

namespace heapq::store {

// read_fleet (heapq/store/store.h) on a connection already open.
Result<FleetData> read_fleet(RowSource& db, const std::string& app, std::optional<int64_t> since);

}  // namespace heapq::store
