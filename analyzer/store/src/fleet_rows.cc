// read_fleet: per dump of a store, what the roots reach by class and allocation site.
#include <algorithm>
#include <map>
#include <tuple>

#include "heapq/read/dump_time.h"
#include "heapq/store/store.h"
#include "row_source.h"

namespace heapq {

Result<FleetData> read_fleet(const std::string& store, const std::string& app,
                             const std::string& since_time) {
  // list_stored_dumps checks that it is a store, of this version.
  if (auto listed = list_stored_dumps(store); !listed) return listed.error();
  auto db = store::open_row_source(store);
  if (!db) return db.error();
  std::optional<int64_t> since;
  if (!since_time.empty()) {
    since = epoch_microseconds(since_time);
    if (!since)
      return usage_error(
          "--since takes an ISO 8601 time (2026-11-24T10:00:00Z, +00:00, or 10:00:00.5Z), not \"" +
          since_time + "\"");
  }
  FleetData data;
  auto dumps = (*db)->query(
      "SELECT id, host, pid, started_at, coalesce(dumped_at, loaded_at), app,"
      " objects - unreachable_objects, reachable_bytes, gc_count FROM dumps ORDER BY id",
      {});
  if (!dumps) return dumps.error();
  for (;;) {
    auto more = (*dumps)->next();
    if (!more) return more.error();
    if (!*more) break;
    const store::RowCursor& r = **dumps;
    FleetDump d;
    d.id = r.int64(0);
    d.origin.host = std::string(r.text(1));
    d.origin.pid = r.is_null(2) || r.int64(2) < 0 ? 0 : static_cast<uint64_t>(r.int64(2));
    d.origin.started = std::string(r.text(3));
    d.origin.time = std::string(r.text(4));
    d.app = std::string(r.text(5));
    d.objects = static_cast<uint64_t>(std::max<int64_t>(0, r.int64(6)));
    d.bytes = static_cast<uint64_t>(std::max<int64_t>(0, r.int64(7)));
    d.origin.gc_count = r.is_null(8) ? -1 : std::max<int64_t>(-1, r.int64(8));
    if (!app.empty() && d.app != app) continue;
    // When it was taken (its META), else loaded.
    if (since && epoch_microseconds(d.origin.time).value_or(INT64_MIN) < *since) continue;
    data.dumps.push_back(std::move(d));
  }
  dumps->reset();
  // Only processes of two dumps or more can grow: the others' dumps need no counting.
  std::map<std::tuple<std::string, uint64_t, std::string>, int> dumps_of;
  for (const FleetDump& d : data.dumps) ++dumps_of[{d.origin.host, d.origin.pid, d.origin.started}];
  for (const FleetDump& d : data.dumps) {
    std::vector<FleetCount>& counts = data.counts.emplace_back();
    if (d.origin.pid == 0 || dumps_of[{d.origin.host, d.origin.pid, d.origin.started}] < 2)
      continue;
    auto rows = (*db)->query(
        "SELECT cn.value, sf.value, s.line, sm.value, count(*), CAST(sum(o.memsize) AS BIGINT) "
        "FROM objects o"
        " LEFT JOIN classes c ON c.dump_id = o.dump_id AND c.id = o.class_id"
        " LEFT JOIN strings cn ON cn.dump_id = c.dump_id AND cn.id = c.name_id"
        " LEFT JOIN sites s ON s.dump_id = o.dump_id AND s.id = o.site_id"
        " LEFT JOIN strings sf ON sf.dump_id = s.dump_id AND sf.id = s.file_id"
        " LEFT JOIN strings sm ON sm.dump_id = s.dump_id AND sm.id = s.method_id"
        " WHERE o.dump_id = ? AND o.distance IS NOT NULL GROUP BY 1, 2, 3, 4",
        {d.id});
    if (!rows) return rows.error();
    for (;;) {
      auto more = (*rows)->next();
      if (!more) return more.error();
      if (!*more) break;
      const store::RowCursor& r = **rows;
      FleetCount c;
      c.class_name = r.is_null(0) ? "(no class)" : std::string(r.text(0));
      c.file = std::string(r.text(1));
      c.line = r.is_null(2) || r.int64(2) < 0 ? 0 : static_cast<uint32_t>(r.int64(2));
      c.method = std::string(r.text(3));
      c.count = static_cast<uint64_t>(std::max<int64_t>(0, r.int64(4)));
      c.bytes = static_cast<uint64_t>(std::max<int64_t>(0, r.int64(5)));
      counts.push_back(std::move(c));
    }
  }
  return data;
}

}  // namespace heapq
