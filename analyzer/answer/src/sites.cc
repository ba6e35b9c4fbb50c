#include "heapq/answer/ask/sites.h"

#include <optional>

#include "heapq/read/source_paths.h"
#include "refs.h"

namespace heapq {

SitesAnswer sites_answer(const LoadedDump& dump, const HeapDominators* dominators,
                         const SitesOptions& options) {
  const HeapGraph& g = dump.graph;
  const SiteReport r = compute_sites(g, options.by, options.sort, dominators, options.top);
  SitesAnswer a;
  a.input = summarize(dump);
  a.by = options.by;
  a.objects_with_site = r.objects_with_site;
  a.groups = r.groups.size();
  for (size_t i = 0; i < r.groups.size() && i < options.top; ++i) {
    const SiteGroup& s = r.groups[i];
    SitesAnswer::Row row;
    if (s.file.valid()) row.file = std::string(g.string(s.file));
    const bool lines = options.by == SiteGrouping::kSite || options.by == SiteGrouping::kApp;
    row.line = lines && s.file.valid() ? s.line : 0;
    row.method = std::string(g.string(s.method));
    row.cls = std::string(g.class_name(s.cls));
    row.has_class = s.cls.valid();
    row.gem = s.gem;
    if (options.by == SiteGrouping::kGem) {
      auto [name, version] = split_gem(s.gem);
      row.gem_name = std::string(name);
      row.gem_version = std::string(version);
    }
    row.count = s.count;
    row.bytes = s.bytes;
    row.retained_bytes = s.retained_bytes;
    a.rows.push_back(std::move(row));
  }
  return a;
}

Result<SitesAnswer> answer_sites(const std::string& input, const SitesOptions& options,
                                 const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(
      const LoadedDump dump,
      load_input(input, inputs, options.retained ? Needs::kGraph : Needs::kObjects));
  std::optional<HeapDominators> dominators;
  if (options.retained) dominators = HeapDominators::compute(dump.graph);
  return sites_answer(dump, dominators ? &*dominators : nullptr, options);
}

}  // namespace heapq
