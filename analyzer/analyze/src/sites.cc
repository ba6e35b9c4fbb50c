#include "heapq/analyze/sites.h"

#include <algorithm>
#include <unordered_map>

#include "heapq/analyze/dominators.h"
#include "heapq/base/keyed_hash.h"
#include "heapq/base/saturating_add.h"
#include "heapq/read/address_hash.h"
#include "heapq/read/source_paths.h"
#include "ranking.h"

namespace heapq {

namespace {

struct GroupKey {
  uint32_t a = 0, b = 0, c = 0, d = 0;
  bool operator==(const GroupKey&) const = default;
};
struct GroupKeyHash {
  size_t operator()(const GroupKey& k) const {
    return address_hash((uint64_t(k.a) << 32 | k.b) ^ address_hash(uint64_t(k.c) << 32 | k.d));
  }
};

}  // namespace

SiteReport compute_sites(const HeapGraph& graph, SiteGrouping grouping, SortKey sort) {
  return compute_sites(graph, grouping, sort, nullptr, 0);
}

namespace {

// Each object's group key, and what the group it starts shows, as the grouping says. Gems are
// numbered as they are met: for kGem, the key's `a` is the gem's number.
class SiteKeys {
 public:
  SiteKeys(const HeapGraph& graph, SiteGrouping grouping) : graph_(graph), grouping_(grouping) {}
  GroupKey key(ObjectId o, SiteGroup& proto);
  const std::string& gem(uint32_t id) const { return gems_[id]; }

 private:
  uint32_t gem_id(StringId file) {
    auto [it, added] = gem_of_file_.try_emplace(file.value(), 0);
    if (added) {
      std::string gem = file.valid() ? gem_of_path(graph_.string(file)) : "(unknown)";
      auto [g, fresh] = gem_ids_.try_emplace(gem, static_cast<uint32_t>(gems_.size()));
      if (fresh) gems_.push_back(gem);
      it->second = g->second;
    }
    return it->second;
  }

  const HeapGraph& graph_;
  const SiteGrouping grouping_;
  std::vector<std::string> gems_;  // distinct gem labels
  std::unordered_map<uint32_t, uint32_t> gem_of_file_;
  std::unordered_map<std::string, uint32_t, KeyedHash> gem_ids_;
};

GroupKey SiteKeys::key(ObjectId o, SiteGroup& proto) {
  SiteId s = graph_.source_site(o);
  const Site none{};
  const Site& site = s.valid() ? graph_.site_info(s) : none;
  GroupKey key;
  switch (grouping_) {
    case SiteGrouping::kSite:
      key = {site.file.value(), site.line, site.method.value(), graph_.class_of(o).value()};
      proto.file = site.file, proto.line = site.line, proto.method = site.method;
      proto.cls = graph_.class_of(o);
      break;
    case SiteGrouping::kFile:
      key = {site.file.value()};
      proto.file = site.file;
      break;
    case SiteGrouping::kMethod:
      key = {site.file.value(), 0, site.method.value()};
      proto.file = site.file, proto.method = site.method;
      break;
    case SiteGrouping::kClass:
      key = {graph_.class_of(o).value()};
      proto.cls = graph_.class_of(o);
      break;
    case SiteGrouping::kGem:
      key = {gem_id(site.file)};
      break;
    case SiteGrouping::kApp: {
      const SiteId a = graph_.app_site(o);
      const Site& app = a.valid() ? graph_.site_info(a) : none;
      key = {app.file.value(), app.line, app.method.value()};
      proto.file = app.file, proto.line = app.line, proto.method = app.method;
      break;
    }
  }
  return key;
}

// The retained bytes of the first `rows` groups (group_of: by object, its group's index).
void add_retained(const HeapGraph& graph, const HeapDominators& dominators,
                  const std::vector<uint32_t>& group_of, size_t rows, SiteReport& report) {
  std::vector<uint32_t> wanted;
  for (size_t i = 0; i < report.groups.size() && i < rows; ++i)
    wanted.push_back(report.groups[i].index);
  std::vector<uint64_t> retained = dominators.retained_by(
      graph, report.groups.size(), [&](ObjectId o) { return group_of[o.value()]; }, wanted);
  for (size_t i = 0; i < wanted.size(); ++i) report.groups[i].retained_bytes = retained[wanted[i]];
}

}  // namespace

SiteReport compute_sites(const HeapGraph& graph, SiteGrouping grouping, SortKey sort,
                         const HeapDominators* dominators, size_t retained_rows) {
  SiteReport report;
  report.objects = graph.object_count();
  std::unordered_map<GroupKey, size_t, GroupKeyHash> index;
  SiteKeys keys(graph, grouping);
  std::vector<uint32_t> group_of;  // per object, for retained sizes
  if (dominators) group_of.resize(graph.object_count());
  for (uint32_t i = 0; i < graph.object_count(); ++i) {
    ObjectId o(i);
    if (graph.source_site(o).valid()) ++report.objects_with_site;
    SiteGroup proto;
    const GroupKey key = keys.key(o, proto);
    auto [it, added] = index.try_emplace(key, report.groups.size());
    if (added) {
      if (grouping == SiteGrouping::kGem) proto.gem = keys.gem(key.a);
      report.groups.push_back(std::move(proto));
    }
    SiteGroup& g = report.groups[it->second];
    if (dominators) group_of[i] = static_cast<uint32_t>(it->second);
    ++g.count;
    add_saturating(g.bytes, graph.memsize(o));
  }

  // Sorting moves the groups: remember each one's index into group_of's numbering.
  for (size_t i = 0; i < report.groups.size(); ++i)
    report.groups[i].index = static_cast<uint32_t>(i);
  auto label = [&](const SiteGroup& g) {
    return std::tuple(graph.string(g.file), g.line, graph.string(g.method), g.cls.value(),
                      std::string_view(g.gem));
  };
  sort_largest_first(report.groups, sort,
                     [&](const SiteGroup& a, const SiteGroup& b) { return label(a) < label(b); });
  if (dominators && !report.groups.empty())
    add_retained(graph, *dominators, group_of, retained_rows, report);
  return report;
}

}  // namespace heapq
