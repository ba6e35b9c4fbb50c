#include "heapq/answer/ask/fleet.h"

#include "heapq/analyze/fleet.h"
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
  auto data = read_fleet(ref.file, options.app, options.since);
  if (!data) return data.error();
  return FleetAnswer{analyze_fleet(*data, options.top),
                     is_server_url(ref.file) ? redact_url(ref.file) : ref.file, options};
}

}  // namespace heapq
