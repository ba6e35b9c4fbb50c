#include "heapq/answer/ask/fleet.h"

#include "heapq/analyze/fleet.h"
#include "heapq/read/dump_time.h"
#include "heapq/store/store.h"

namespace heapq {
namespace {

// --since as microseconds since 1970; none when not given.
Result<std::optional<int64_t>> since_of(const FleetOptions& options) {
  if (options.since.empty()) return std::optional<int64_t>();
  if (auto since = epoch_microseconds(options.since)) return since;
  return usage_error(
      "--since takes an ISO 8601 time (2026-11-24T10:00:00Z, +00:00, or 10:00:00.5Z), not \"" +
      options.since + "\"");
}

Result<FleetAnswer> fleet_since(StoreConnection& store, const FleetOptions& options,
                                std::optional<int64_t> since) {
  HEAPQ_ASSIGN_OR_RETURN(const FleetData data, store.fleet(options.app, since));
  return FleetAnswer{analyze_fleet(data, options.top), store.name(), options};
}

}  // namespace

Result<FleetAnswer> answer_fleet(const std::string& store, const FleetOptions& options) {
  const StoreRef ref = parse_store_ref(store);
  if (ref.dump != 0)
    return usage_error(
        "fleet reads every dump of a store: give it without #N (--app and "
        "--since choose)");
  if (!is_store(ref))
    return usage_error(store +
                       ": not a store (a server's postgresql:// URL, or a file heapq "
                       "load made)");
  // A bad --since is told before the store is opened.
  HEAPQ_ASSIGN_OR_RETURN(const std::optional<int64_t> since, since_of(options));
  HEAPQ_ASSIGN_OR_RETURN(StoreConnection db, StoreConnection::open(ref.file));
  return fleet_since(db, options, since);
}

Result<FleetAnswer> fleet_answer(StoreConnection& store, const FleetOptions& options) {
  HEAPQ_ASSIGN_OR_RETURN(const std::optional<int64_t> since, since_of(options));
  return fleet_since(store, options, since);
}

}  // namespace heapq
