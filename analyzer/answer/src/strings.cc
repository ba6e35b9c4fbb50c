#include "heapq/answer/ask/strings.h"

#include "heapq/analyze/strings.h"
#include "refs.h"

namespace heapq {

namespace {

constexpr size_t kSitesPerValue = 3;

StringsAnswer::Value value_of(std::string_view value, uint64_t bytesize, bool cut, uint64_t hash) {
  StringsAnswer::Value v{std::string(value), cut, bytesize, std::nullopt};
  if (hash) v.hash = hash;
  return v;
}

}  // namespace

Result<StringsAnswer> answer_strings(const std::string& input, const StringsOptions& options,
                                     const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(const LoadedDump dump, load_input(input, inputs, Needs::kValues));
  StringsAnswer a = strings_answer(dump, options);
  if (a.strings > 0 && a.with_value == 0)
    return bad_input(dump.path +
                     ": the dump holds no string values (memprof: dump with strings: N, not "
                     "strings: false)");
  return a;
}

StringsAnswer strings_answer(const LoadedDump& dump, const StringsOptions& options) {
  const HeapGraph& g = dump.graph;
  const StringReport r = compute_duplicate_strings(g, options.top, kSitesPerValue);
  StringsAnswer a;
  a.input = summarize(dump);
  a.strings = r.strings;
  a.with_value = r.with_value;
  a.distinct = r.distinct;
  a.duplicated = r.duplicated;
  a.copies = r.copies;
  a.wasted_bytes = r.wasted_bytes;
  for (const DuplicateString& d : r.duplicates) {
    StringsAnswer::Row row;
    row.value = value_of(d.value, d.bytesize, d.cut, d.hash);
    row.count = d.count;
    row.bytes = d.bytes;
    row.wasted_bytes = d.wasted_bytes;
    row.frozen = d.frozen;
    row.interned = d.interned;
    for (const auto& [site, count] : d.sites) row.sites.push_back({site_ref(g, site), count});
    a.rows.push_back(std::move(row));
  }
  a.more_rows = r.duplicated - r.duplicates.size();
  for (const CopyingSite& c : r.copying_sites)
    a.copying_sites.push_back(
        {*site_ref(g, c.site), value_of(c.value, c.bytesize, c.cut, 0), c.count, c.bytes});
  return a;
}

}  // namespace heapq
