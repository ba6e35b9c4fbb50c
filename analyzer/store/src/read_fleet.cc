// read_fleet: per dump of a store, what the roots reach by class and allocation site; per
// sampled profile of a process no dump is of, its live estimates likewise.
#include "read_fleet.h"

#include <algorithm>
#include <map>

#include "heapq/read/dump_time.h"
#include "heapq/store/store.h"

namespace heapq {

namespace {

uint64_t non_negative(int64_t v) {
  return static_cast<uint64_t>(std::max<int64_t>(0, v));
}

// Which rows a fleet keeps: of the app given (empty: all), taken at or after `since`.
struct Choice {
  const std::string& app;
  std::optional<int64_t> since;
  bool keeps(const FleetDump& d) const {
    if (!app.empty() && d.app != app) return false;
    // When it was taken (its META, the profile's time), else loaded.
    return !since || epoch_microseconds(d.origin.time).value_or(INT64_MIN) >= *since;
  }
};

// Each row of the query (id, host, pid, started, time, app, objects, bytes, and a last column
// `last` reads) as a FleetDump, those `choice` keeps.
template <typename Last>
Status read_rows(store::RowSource& db, const char* sql, const Choice& choice, Last last,
                 std::vector<FleetDump>& out) {
  return store::each_row(db, sql, {}, [&](const store::RowCursor& r) {
    FleetDump d;
    d.id = r.int64(0);
    d.origin.host = std::string(r.text(1));
    d.origin.pid = r.is_null(2) ? 0 : non_negative(r.int64(2));
    d.origin.started = std::string(r.text(3));
    d.origin.time = std::string(r.text(4));
    d.app = std::string(r.text(5));
    d.objects = non_negative(r.int64(6));
    d.bytes = non_negative(r.int64(7));
    last(r, d);
    if (choice.keeps(d)) out.push_back(std::move(d));
  });
}

constexpr const char* kDumps =
    "SELECT id, host, pid, started_at, coalesce(dumped_at, loaded_at), app,"
    " objects - unreachable_objects, reachable_bytes, gc_count FROM dumps ORDER BY id";
constexpr const char* kProfiles =
    "SELECT id, host, pid, started_at, coalesce(taken_at, loaded_at), app, objects, bytes,"
    " period FROM profiles ORDER BY id";

// What the roots reach in a dump, by class and site.
constexpr const char* kDumpCounts =
    "SELECT cn.value, sf.value, s.line, sm.value, count(*), CAST(sum(o.memsize) AS BIGINT) "
    "FROM objects o"
    " LEFT JOIN classes c ON c.dump_id = o.dump_id AND c.id = o.class_id"
    " LEFT JOIN strings cn ON cn.dump_id = c.dump_id AND cn.id = c.name_id"
    " LEFT JOIN sites s ON s.dump_id = o.dump_id AND s.id = o.site_id"
    " LEFT JOIN strings sf ON sf.dump_id = s.dump_id AND sf.id = s.file_id"
    " LEFT JOIN strings sm ON sm.dump_id = s.dump_id AND sm.id = s.method_id"
    " WHERE o.dump_id = ? AND o.distance IS NOT NULL GROUP BY 1, 2, 3, 4";
// A profile's live estimates by class and site.
constexpr const char* kProfileCounts =
    "SELECT NULLIF(class, ''), file, line, method, objects, bytes FROM profile_sites"
    " WHERE profile_id = ?";

// The counts (class, file, line, method, count, bytes) of dump or profile `id`.
Status read_counts(store::RowSource& db, const char* sql, int64_t id,
                   std::vector<FleetCount>& counts) {
  return store::each_row(db, sql, {id}, [&](const store::RowCursor& r) {
    FleetCount c;
    c.class_name = r.is_null(0) ? "(no class)" : std::string(r.text(0));
    c.file = std::string(r.text(1));
    c.line = r.is_null(2)
                 ? 0
                 : static_cast<uint32_t>(std::min<uint64_t>(non_negative(r.int64(2)), UINT32_MAX));
    c.method = std::string(r.text(3));
    c.count = non_negative(r.int64(4));
    c.bytes = non_negative(r.int64(5));
    counts.push_back(std::move(c));
  });
}

}  // namespace

namespace store {

Result<FleetData> read_fleet(RowSource& db, const std::string& app, std::optional<int64_t> since) {
  const Choice choice{app, since};
  FleetData data;
  HEAPQ_RETURN_IF_ERROR(read_rows(
      db, kDumps, choice,
      [](const store::RowCursor& r, FleetDump& d) {
        d.origin.gc_count = r.is_null(8) ? -1 : std::max<int64_t>(-1, r.int64(8));
      },
      data.dumps));
  // Processes of no dump kept come from their sampled profiles: a process that has dumps is
  // seen through them, which count what profiles estimate.
  std::map<ProcessKey, int> dumps_of;
  for (const FleetDump& d : data.dumps) ++dumps_of[process_of(d.origin)];
  std::vector<FleetDump> profiles;
  HEAPQ_RETURN_IF_ERROR(read_rows(
      db, kProfiles, choice,
      [](const store::RowCursor& r, FleetDump& d) {
        d.period = std::max<uint64_t>(1, non_negative(r.int64(8)));
      },
      profiles));
  for (FleetDump& p : profiles)
    if (!dumps_of.contains(process_of(p.origin))) data.dumps.push_back(std::move(p));
  std::map<ProcessKey, int> rows_of;
  for (const FleetDump& d : data.dumps) ++rows_of[process_of(d.origin)];
  // Only processes of two dumps (or profiles) or more can grow: the others need no counting.
  for (const FleetDump& d : data.dumps) {
    std::vector<FleetCount>& counts = data.counts.emplace_back();
    if (d.origin.pid == 0 || rows_of[process_of(d.origin)] < 2) continue;
    HEAPQ_RETURN_IF_ERROR(read_counts(db, d.period ? kProfileCounts : kDumpCounts, d.id, counts));
  }
  return data;
}

}  // namespace store
}  // namespace heapq
