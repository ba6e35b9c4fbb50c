#include "heapq/answer/ask/fleet.h"

#include "heapq/analyze/fleet.h"
#include "heapq/read/dump_time.h"
#include "heapq/store/store.h"

namespace heapq {

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
  std::optional<int64_t> since;
  if (!options.since.empty() && !(since = epoch_microseconds(options.since)))
    return usage_error(
        "--since takes an ISO 8601 time (2026-11-24T10:00:00Z, +00:00, or 10:00:00.5Z), not \"" +
        options.since + "\"");
  auto data = read_fleet(ref.file, options.app, since);
  if (!data) return data.error();
  return FleetAnswer{analyze_fleet(*data, options.top),
                     is_server_url(ref.file) ? redact_url(ref.file) : ref.file, options};
}

}  // namespace heapq
