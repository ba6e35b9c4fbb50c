#include "refs.h"

#include "heapq/answer/wording.h"

namespace heapq {

InputSummary summarize(const LoadedDump& dump) {
  return {dump.path, dump.name, dump.report, load_warnings(dump),
          lacks_referenced_objects(dump.report)};
}

std::optional<std::string> compaction_warning(const DumpOrigin& before, const DumpOrigin& after,
                                              bool by_address) {
  if (!by_address || before.compact_count < 0 || after.compact_count <= before.compact_count)
    return std::nullopt;
  const auto runs = static_cast<uint64_t>(after.compact_count - before.compact_count);
  return "GC compaction ran " + counted(runs, "time", "times") +
         " between the dumps: objects without an allocation seq are matched by address, and "
         "one that moved counts as a new object, so the counts of objects born (and freed) may "
         "be too high";
}

std::optional<SiteRef> site_ref(const HeapGraph& g, SiteId s) {
  if (!s.valid()) return std::nullopt;
  const Site& site = g.site_info(s);
  return SiteRef{std::string(g.string(site.file)), site.line, std::string(g.string(site.method))};
}

ObjectRef object_ref(const HeapGraph& g, ObjectId o) {
  return {g.address(o), describe(g, o), site_ref(g, g.site(o)), site_ref(g, g.block_site(o)),
          site_ref(g, g.app_site(o))};
}

PathRef path_ref(const HeapGraph& g, const RetentionPath& path) {
  PathRef out{std::string(g.string(path.root)),
              {},
              path.elided_after,
              path.elided,
              std::string(g.string(path.root_name))};
  out.steps.reserve(path.steps.size());
  for (const PathStep& s : path.steps)
    out.steps.push_back({object_ref(g, s.object), std::string(g.string(s.edge))});
  return out;
}

}  // namespace heapq
