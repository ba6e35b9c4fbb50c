#include "heapq/leaks.h"

#include <algorithm>
#include <functional>
#include <map>

#include "heapq/saturating_add.h"

namespace heapq {

namespace {

// Objects with the most of a key first, each key once, at most `top`.
std::vector<std::pair<GroupTable::Group, uint64_t>> top_groups(GroupTable& table,
                                                               const std::vector<uint32_t>& of,
                                                               const std::vector<ObjectId>& objects,
                                                               size_t top) {
  std::map<uint32_t, uint64_t> counts;
  for (ObjectId o : objects)
    if (of[o.value()] != GroupTable::kNoGroup) ++counts[of[o.value()]];
  std::vector<std::pair<uint32_t, uint64_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](auto& a, auto& b) { return a.second > b.second; });
  std::vector<std::pair<GroupTable::Group, uint64_t>> out;
  for (size_t i = 0; i < sorted.size() && i < top; ++i)
    out.push_back({table.group(sorted[i].first), sorted[i].second});
  return out;
}

}  // namespace

std::vector<std::pair<ObjectId, uint64_t>> find_holders(const HeapGraph& g,
                                                        const HeapDominators& dom,
                                                        const std::vector<uint32_t>& group_of,
                                                        size_t groups) {
  std::vector<std::pair<ObjectId, uint64_t>> out(groups, {ObjectId::none(), 0});
  const std::vector<HeapDominators::Majority> majority =
      dom.majority_dominators(g, groups, [&](ObjectId o) { return group_of[o.value()]; });
  std::vector<bool> by_references(groups, false);
  for (uint32_t k = 0; k < groups; ++k) {
    if (majority[k].node != g.virtual_root())
      out[k] = {majority[k].node, majority[k].members};
    else
      by_references[k] = majority[k].members > 0;
  }
  // No single dominator: the object that references the most members (the first, in object
  // order, of those that reference as many), every group in one pass over the references.
  std::vector<uint64_t> refs_to(groups, 0);
  std::vector<uint32_t> touched;
  const uint32_t n = static_cast<uint32_t>(g.object_count());
  for (uint32_t i = 0; i < n; ++i) {
    if (!g.retains_from(i) || !dom.reachable(ObjectId(i))) continue;
    for (ObjectId t : g.references(ObjectId(i))) {
      const uint32_t k = group_of[t.value()];
      if (k == UINT32_MAX || k == group_of[i] || !by_references[k]) continue;
      if (refs_to[k]++ == 0) touched.push_back(k);
    }
    for (uint32_t k : touched) {
      if (refs_to[k] > out[k].second) out[k] = {ObjectId(i), refs_to[k]};
      refs_to[k] = 0;
    }
    touched.clear();
  }
  return out;
}

std::pair<ObjectId, uint64_t> find_holder(const HeapGraph& g, const HeapDominators& dom,
                                          const std::vector<bool>& in_set) {
  std::vector<uint32_t> group_of(g.object_count(), UINT32_MAX);
  for (uint32_t i = 0; i < g.object_count(); ++i)
    if (in_set[i]) group_of[i] = 0;
  return find_holders(g, dom, group_of, 1)[0];
}

LeakReport find_growing_leaks(const std::vector<const HeapGraph*>& dumps, const HeapDominators& dom,
                              const LeakOptions& options) {
  LeakReport report;
  const HeapGraph& first = *dumps.front();
  const HeapGraph& last = *dumps.back();
  report.heap_bytes = dom.retained_bytes(last.virtual_root());

  // The objects of each group in each dump, as heapq stats counts them.
  GroupTable table;
  std::vector<std::vector<uint64_t>> counts;
  std::vector<uint32_t> group_of;  // of the last dump's objects
  for (const HeapGraph* g : dumps) {
    std::vector<uint32_t> of = table.assign(*g, [](ObjectId) { return true; });
    std::vector<uint64_t>& c = counts.emplace_back();
    for (uint32_t grp : of)
      if (grp != GroupTable::kNoGroup) {
        if (grp >= c.size()) c.resize(grp + 1, 0);
        ++c[grp];
      }
    if (g == &last) group_of = std::move(of);
  }
  for (auto& c : counts) c.resize(table.size(), 0);

  // Objects of the last dump born after the first, by group (garbage not yet swept aside).
  const ObjectMatcher matcher(first, last);
  report.match = matcher.method();
  const uint32_t n = static_cast<uint32_t>(last.object_count());
  std::vector<uint32_t> born_group(n, GroupTable::kNoGroup);
  std::vector<uint64_t> born_count(table.size(), 0), born_bytes(table.size(), 0);
  for (uint32_t i = 0; i < n; ++i) {
    if (!dom.reachable(ObjectId(i)) || matcher.existed_before(ObjectId(i))) continue;
    born_group[i] = group_of[i];
    ++born_count[group_of[i]];
    add_saturating(born_bytes[group_of[i]], last.memsize(ObjectId(i)));
    ++report.born;
  }

  // Rank: steady growth first, then the bytes the born objects hold (what single objects of a
  // group dominate: cheap for every group at once; the exact set size is computed for the top).
  const std::vector<uint64_t> held =
      dom.dominated_by(last, table.size(), [&](ObjectId o) { return born_group[o.value()]; });
  struct Candidate {
    uint32_t group;
    bool growing, steady;
  };
  std::vector<Candidate> candidates;
  for (uint32_t grp = 0; grp < table.size(); ++grp) {
    if (born_count[grp] == 0 ||
        counts.back()[grp] < counts.front()[grp] + std::max<uint64_t>(options.min_growth, 1))
      continue;
    bool steady = true;
    for (size_t d = 1; d < counts.size(); ++d)
      steady = steady && counts[d][grp] > counts[d - 1][grp];
    const bool growing = counts[counts.size() - 1][grp] > counts[counts.size() - 2][grp];
    candidates.push_back({grp, growing, steady});
    report.groups_growing += growing;
  }
  std::sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.steady != b.steady) return a.steady;
    if (a.growing != b.growing) return a.growing;
    if (held[a.group] != held[b.group]) return held[a.group] > held[b.group];
    if (born_bytes[a.group] != born_bytes[b.group])
      return born_bytes[a.group] > born_bytes[b.group];
    return a.group < b.group;
  });
  if (candidates.size() > options.top) candidates.resize(options.top);

  // What each suspect needs, for all of them at once: the work is linear in the heap however
  // many there are (--top 0), and each group's retained set is walked once.
  std::vector<uint32_t> slot(table.size(), UINT32_MAX), wanted;
  for (const Candidate& c : candidates) {
    slot[c.group] = static_cast<uint32_t>(wanted.size());
    wanted.push_back(c.group);
  }
  std::vector<std::vector<ObjectId>> members(candidates.size());
  for (uint32_t i = 0; i < n; ++i)
    if (born_group[i] != GroupTable::kNoGroup && slot[born_group[i]] != UINT32_MAX)
      members[slot[born_group[i]]].push_back(ObjectId(i));
  const std::vector<uint64_t> retained =
      wanted.empty()
          ? std::vector<uint64_t>()
          : dom.retained_by(
                last, table.size(), [&](ObjectId o) { return born_group[o.value()]; }, wanted);
  const std::vector<std::pair<ObjectId, uint64_t>> holders =
      find_holders(last, dom, born_group, table.size());

  for (size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    LeakSuspect s;
    s.group = table.group(c.group);
    s.count = born_count[c.group];
    s.bytes = born_bytes[c.group];
    for (const auto& per_dump : counts) s.growth.push_back(per_dump[c.group]);
    s.growing = c.growing;
    s.steady = c.steady;
    s.members = std::move(members[i]);
    s.example = s.members.front();
    s.retained_bytes = retained[c.group];
    std::tie(s.holder, s.holder_share) = holders[c.group];
    report.suspects.push_back(std::move(s));
  }
  return report;
}

LeakReport find_accumulations(const HeapGraph& g, const HeapDominators& dom,
                              const LeakOptions& options) {
  LeakReport report;
  const ObjectId root = g.virtual_root();
  // A profiler's own objects (the allocation tracer's table) are not the program's memory:
  // neither suspects nor part of the heap the threshold is a share of.
  auto profiler = [&](ObjectId o) {
    return g.class_of(o).valid() && g.class_info(g.class_of(o)).profiler;
  };
  uint64_t overhead = 0;
  for (uint32_t i = 0; i < g.object_count(); ++i)
    if (const ObjectId o(i);
        profiler(o) && dom.reachable(o) && (dom.idom(o) == root || !profiler(dom.idom(o))))
      add_saturating(overhead, dom.retained_bytes(o));
  report.profiler_bytes = std::min(overhead, dom.retained_bytes(root));
  report.heap_bytes = dom.retained_bytes(root) - report.profiler_bytes;
  const auto threshold =
      static_cast<uint64_t>(options.threshold * static_cast<double>(report.heap_bytes));
  // Objects that retain more than `least`, each followed down to where it accumulates. A chain
  // (a linked list: each node dominating the rest) is followed no further than its first node:
  // what accumulates is the chain.
  auto chain_starts = [&](ObjectId a, const std::vector<ObjectId>& kids) {
    return !kids.empty() && g.class_of(kids[0]) == g.class_of(a);
  };
  auto accumulation_points = [&](uint64_t least) {
    auto big = [&](ObjectId o) {
      return dom.retained_bytes(o) >= least && dom.retained_bytes(o) > 0 && !profiler(o);
    };
    std::vector<ObjectId> pending, points;
    for (ObjectId c : dom.children(root))
      if (big(c)) pending.push_back(c);
    while (!pending.empty()) {
      ObjectId a = pending.back();
      pending.pop_back();
      std::vector<ObjectId> kids = dom.children(a);
      while (!kids.empty() && !chain_starts(a, kids) &&
             static_cast<double>(dom.retained_bytes(kids[0])) >=
                 options.dominant * static_cast<double>(dom.retained_bytes(a))) {
        a = kids[0];
        kids = dom.children(a);
      }
      // A container of a few big things is not where memory accumulates: each of them may be.
      uint64_t in_big = 0;
      size_t big_kids = 0;
      while (big_kids < kids.size() && big(kids[big_kids]))
        in_big += dom.retained_bytes(kids[big_kids++]);
      if (big_kids > 0 && in_big * 2 >= dom.retained_bytes(a) && !chain_starts(a, kids)) {
        pending.insert(pending.end(), kids.begin(),
                       kids.begin() + static_cast<ptrdiff_t>(big_kids));
        continue;
      }
      points.push_back(a);
    }
    std::sort(points.begin(), points.end(), [&](ObjectId x, ObjectId y) {
      return dom.retained_bytes(x) != dom.retained_bytes(y)
                 ? dom.retained_bytes(x) > dom.retained_bytes(y)
                 : x < y;
    });
    return points;
  };
  std::vector<ObjectId> points = accumulation_points(threshold);
  if (points.empty() && options.top > 0) {
    // Nothing retains the threshold: the biggest three all the same, from the roots' biggest
    // children (the least of the three is the bar), marked as below it.
    std::vector<uint64_t> sizes;
    for (ObjectId c : dom.unordered_children(root))
      if (!profiler(c) && dom.retained_bytes(c) > 0) sizes.push_back(dom.retained_bytes(c));
    if (!sizes.empty()) {
      const size_t third = std::min<size_t>(3, sizes.size()) - 1;
      std::nth_element(sizes.begin(), sizes.begin() + static_cast<ptrdiff_t>(third), sizes.end(),
                       std::greater<>());
      points = accumulation_points(sizes[third]);
      if (points.size() > 3) points.resize(3);
      report.below_threshold = !points.empty();
    }
  }
  if (points.size() > options.top) points.resize(options.top);

  GroupTable classes(GroupTable::By::kClass), sites;
  const std::vector<uint32_t> class_of = classes.assign(g, [](ObjectId) { return true; });
  const std::vector<uint32_t> site_of =
      sites.assign(g, [&](ObjectId o) { return g.source_site(o).valid(); });
  for (ObjectId a : points) {
    LeakSuspect s;
    s.holder = a;
    std::vector<ObjectId> kids = dom.children(a);
    if (chain_starts(a, kids)) {
      // The chain's nodes, held by what holds its first one.
      std::vector<ObjectId> chain{a};
      while (chain_starts(chain.back(), kids)) {
        chain.push_back(kids[0]);
        kids = dom.children(kids[0]);
      }
      kids = std::move(chain);
      if (dom.idom(a) != root) s.holder = dom.idom(a);
    }
    // Where the children hold less than the object itself (a big String, an Array of small
    // Integers), the memory is the object's own.
    uint64_t in_kids = 0;
    for (ObjectId k : kids) add_saturating(in_kids, dom.retained_bytes(k));
    if (in_kids < g.memsize(a) && s.holder == a) kids.assign(1, a);
    // The children's class that retains the most.
    std::map<uint32_t, uint64_t> retained;
    for (ObjectId k : kids) retained[class_of[k.value()]] += dom.retained_bytes(k);
    const uint32_t cls = std::max_element(retained.begin(), retained.end(), [](auto& x, auto& y) {
                           return x.second < y.second;
                         })->first;
    std::vector<bool> in_set(g.object_count(), false);
    for (ObjectId k : kids)
      if (class_of[k.value()] == cls) {
        s.members.push_back(k);
        in_set[k.value()] = true;
        add_saturating(s.bytes, g.memsize(k));
      }
    s.count = s.members.size();
    s.growth = {s.count};
    s.holder_share = s.count;
    s.example = s.members.front();
    const uint32_t wanted[] = {0};
    s.retained_bytes = dom.retained_by(
        g, 1, [&](ObjectId o) { return in_set[o.value()] ? 0u : UINT32_MAX; }, wanted)[0];
    s.sites = top_groups(sites, site_of, s.members, 3);
    s.group = s.sites.empty() ? GroupTable::Group() : s.sites.front().first;
    s.group.cls = classes.group(cls).cls;
    report.suspects.push_back(std::move(s));
  }
  return report;
}

}  // namespace heapq
