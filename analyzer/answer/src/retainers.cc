#include "heapq/answer/ask/retainers.h"

#include <algorithm>
#include <compare>
#include <map>

#include "heapq/analyze/retainers.h"
#include "heapq/answer/targets.h"
#include "heapq/base/saturating_add.h"
#include "refs.h"

namespace heapq {

namespace {

using ReferrerGroup = RetainersAnswer::ReferrerGroup;

// Referrers grouped by the referrer's class and the reference's name (indexes generalized).
std::vector<ReferrerGroup> grouped_referrers(const HeapGraph& g, const Referrers& r,
                                             const std::vector<ObjectId>& targets) {
  struct Key {
    std::string cls, block, edge;
    auto operator<=>(const Key&) const = default;
  };
  std::map<Key, uint64_t> groups;
  for (ObjectId t : targets) {
    IdRange<ObjectId> sources = r.of(t);
    for (size_t i = 0; i < sources.size(); ++i) {
      if (sources[i] == g.virtual_root()) {
        ++groups[{"ROOT", "", ""}];
        continue;
      }
      std::string block;
      if (SiteId b = g.block_site(sources[i]); b.valid()) {
        const Site& site = g.site_info(b);
        block = std::string(g.string(site.file));
        if (site.line) block += ":" + std::to_string(site.line);
      }
      std::string edge(generalized_edge(g.string(reference_label(g, r.edges_of(t)[i]))));
      ++groups[{describe(g, sources[i]), std::move(block), std::move(edge)}];
    }
  }
  std::vector<ReferrerGroup> out;
  for (auto& [key, count] : groups) out.push_back({key.cls, key.block, key.edge, count});
  return out;
}

void object_target(const HeapGraph& g, ObjectId o, const RetainersOptions& options,
                   RetainersAnswer& a) {
  const Referrers referrers = Referrers::build(g);
  a.object = object_ref(g, o);
  a.bytes = g.memsize(o);
  for (const RetentionPath& p : holder_paths(g, referrers, o, options.paths, options.max_depth))
    a.paths.push_back(path_ref(g, p));
  if (!options.referrers) return;
  IdRange<ObjectId> sources = referrers.of(o);
  for (size_t i = 0; i < sources.size(); ++i) {
    // The reference's name; from the virtual root, its GC root category.
    std::string edge(g.string(reference_label(g, referrers.edges_of(o)[i])));
    if (sources[i] == g.virtual_root())
      a.referrers.push_back({std::nullopt, std::move(edge)});
    else
      a.referrers.push_back({object_ref(g, sources[i]), std::move(edge)});
  }
}

void class_target(const HeapGraph& g, const std::vector<ObjectId>& instances,
                  const RetainersOptions& options, RetainersAnswer& a) {
  a.instances = instances.size();
  for (ObjectId o : instances) add_saturating(a.bytes, g.memsize(o));
  const ShortestPathTree tree = ShortestPathTree::compute(g);
  const MergedPaths merged = merge_paths(g, tree, instances, options.max_depth);
  const size_t shown = std::min(merged.groups.size(), options.paths);
  for (size_t i = 0; i < shown; ++i) {
    const ShapeNode& node = merged.nodes[merged.groups[i]];
    a.groups.push_back({node.count, node.bytes, node.repeats, node.deeper,
                        path_ref(g, tree.path_to(g, node.nearest_target, options.max_depth))});
  }
  a.more_groups = merged.groups.size() - shown;
  a.unreachable = merged.unreachable;
  if (options.referrers) a.referrer_groups = grouped_referrers(g, Referrers::build(g), instances);
}

}  // namespace

Result<RetainersAnswer> answer_retainers(const std::string& input, const std::string& target,
                                         const RetainersOptions& options,
                                         const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(const LoadedDump dump, load_input(input, inputs));
  return retainers_answer(dump, target, options);
}

Result<RetainersAnswer> retainers_answer(const LoadedDump& dump, const std::string& target,
                                         const RetainersOptions& options) {
  HEAPQ_ASSIGN_OR_RETURN(const Target found,
                         find_target(dump.graph, target, dump.path, options.site));
  RetainersAnswer a;
  a.input = summarize(dump);
  a.max_depth = options.max_depth;
  a.referrers_asked = options.referrers;
  if (found.object) {
    object_target(dump.graph, *found.object, options, a);
  } else {
    a.cls = found.label;
    class_target(dump.graph, found.instances, options, a);
  }
  return a;
}

}  // namespace heapq
