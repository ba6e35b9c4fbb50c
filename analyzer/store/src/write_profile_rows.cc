#include "write_profile_rows.h"

#include <algorithm>

#include "heapq/read/dump_time.h"
#include "write_dump_rows.h"

namespace heapq::store {

namespace {

int64_t clamped(uint64_t v) {
  return static_cast<int64_t>(std::min<uint64_t>(v, INT64_MAX));
}

}  // namespace

Status write_profile_rows(RowTarget& to, int64_t profile, const std::string& source,
                          const SampledProfile& p, const std::vector<FleetCount>& sites,
                          const DumpTags& tags) {
  uint64_t objects = 0, bytes = 0;
  HEAPQ_RETURN_IF_ERROR(write_table(to, "profile_sites", 7, [&](TableRows& rows) -> Status {
    for (const FleetCount& c : sites) {
      objects += c.count;
      bytes += c.bytes;
      rows.add(profile);
      rows.add_text(c.class_name);
      add_text_or_null(rows, c.file);
      rows.add(c.line == 0 ? std::nullopt : std::optional<int64_t>(c.line));
      add_text_or_null(rows, c.method);
      rows.add(clamped(c.count));
      rows.add(clamped(c.bytes));
      HEAPQ_RETURN_IF_ERROR(rows.end_row());
    }
    return Ok{};
  }));
  return write_table(to, "profiles", 14, [&](TableRows& rows) -> Status {
    rows.add(profile);
    rows.add_text(source);
    rows.add_text(utc_now());
    add_text_or_null(rows, tags.host.empty() ? p.host : tags.host);
    rows.add(p.pid == 0 ? std::nullopt : std::optional<int64_t>(clamped(p.pid)));
    add_text_or_null(rows, p.started);
    add_text_or_null(rows, iso_time_of_nanos(p.time_nanos));
    rows.add(std::max<int64_t>(p.duration_nanos, 0));
    rows.add(std::max<int64_t>(p.period, 1));
    rows.add(static_cast<int64_t>(p.samples.size()));
    rows.add(clamped(objects));
    rows.add(clamped(bytes));
    add_text_or_null(rows, tags.app);
    add_text_or_null(rows, labels_json(tags));
    return rows.end_row();
  });
}

}  // namespace heapq::store
