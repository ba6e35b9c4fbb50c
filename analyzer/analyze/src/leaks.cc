#include "heapq/analyze/leaks.h"

#include <algorithm>
#include <functional>
#include <map>
#include <span>
#include <unordered_map>

#include "heapq/analyze/retainers.h"
#include "heapq/base/keyed_hash.h"
#include "heapq/base/saturating_add.h"

namespace heapq {

namespace {

// Disjoint sets of groups (union by size, halving paths): which growing groups are one leak.
class GroupSets {
 public:
  explicit GroupSets(size_t n) : parent_(n), size_(n, 1) {
    for (uint32_t i = 0; i < n; ++i) parent_[i] = i;
  }
  GroupId find(GroupId group) {
    uint32_t x = group.value();
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return GroupId(x);
  }
  void join(GroupId group_a, GroupId group_b) {
    uint32_t a = find(group_a).value();
    uint32_t b = find(group_b).value();
    if (a == b) return;
    if (size_[a] < size_[b]) std::swap(a, b);
    parent_[b] = a;
    size_[a] += size_[b];
  }

 private:
  std::vector<uint32_t> parent_, size_;
};

// Per group, the application line most of its objects were allocated from: votes counted one
// object at a time, the most common line (the lowest site id among equals) wins.
class AppLineVotes {
 public:
  void add(const HeapGraph& g, GroupId group, ObjectId o) {
    if (const SiteId s = g.app_site(o); s.valid())
      ++votes_[uint64_t(group.value()) << 32 | s.value()];
  }
  void give(std::vector<LeakGroup>& groups) const {
    for (auto [key, count] : votes_) {
      LeakGroup& lg = groups[key >> 32];
      const SiteId s(static_cast<uint32_t>(key));
      if (count > lg.app_count || (count == lg.app_count && s < lg.app_site)) {
        lg.app_site = s;
        lg.app_count = count;
      }
    }
  }

 private:
  std::unordered_map<uint64_t, uint64_t, KeyedHash> votes_;
};

// How many finalizers of dead objects refer to each object the roots reach, through what only
// they keep (their Procs and environments): the finalizer table lets go of them at the next
// GC, which runs them, and a finalizer undoes what its object did (ActionView's compiled
// template takes its method off the view class). Each object found once, for the first
// finalizer that reaches it. O(what the dead finalizers alone keep and its references).
std::unordered_map<uint32_t, uint64_t> dead_finalizer_refs(const HeapGraph& g,
                                                           const HeapDominators& dom) {
  std::unordered_map<uint32_t, uint64_t> refs;
  std::unordered_map<uint32_t, uint32_t> finalizer_of;  // what they keep -> the first to reach it
  std::vector<uint32_t> pending;
  std::vector<uint64_t> pairs;  // object the roots reach << 32 | finalizer
  const std::span<const ObjectId> dead = g.dead_finalizers();
  for (uint32_t f = 0; f < dead.size(); ++f)
    if (!dom.reachable(dead[f]) && finalizer_of.try_emplace(dead[f].value(), f).second)
      pending.push_back(dead[f].value());
  while (!pending.empty()) {
    const uint32_t o = pending.back();
    pending.pop_back();
    const uint32_t f = finalizer_of[o];
    for (ObjectId t : g.references(ObjectId(o))) {
      if (dom.reachable(t))
        pairs.push_back(uint64_t(t.value()) << 32 | f);
      else if (finalizer_of.try_emplace(t.value(), f).second)
        pending.push_back(t.value());
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  for (uint64_t p : pairs) ++refs[static_cast<uint32_t>(p >> 32)];
  return refs;
}

// By leak, how many finalizers of dead objects may undo it at the next GC (0 for most): where
// most of its objects are in groups that what such finalizers refer to reaches for the most
// part, through objects of growing groups alone, one finalizer or more for every two of the
// group's objects. ActionView's dead templates: each finalizer names the class its method is
// on; the class reaches the method entries, their iseqs and what those hold. The same class
// reaches more undefined methods than there are finalizers: they stay. O(what the objects the
// finalizers refer to reach of the growing groups, and its references).
std::vector<uint64_t> undone_by_finalizers(const HeapGraph& g, const HeapDominators& dom,
                                           const std::vector<LeakGroup>& growing,
                                           const IdsByObject<GroupId>& growing_of,
                                           const std::vector<LeakId>& leak_index, size_t leaks) {
  std::vector<uint64_t> finalizers(leaks, 0);
  if (g.dead_finalizers().empty()) return finalizers;
  // What the finalizers refer to, the most referred to first: each growing object reached is
  // counted for the most finalizers that reach it.
  std::vector<std::pair<uint64_t, uint32_t>> starts;
  for (auto [object, count] : dead_finalizer_refs(g, dom)) starts.emplace_back(count, object);
  std::sort(starts.begin(), starts.end(), std::greater<>());
  std::vector<bool> reached(g.object_count(), false);
  std::vector<uint64_t> reached_in(growing.size(), 0), by(growing.size(), 0);
  std::vector<uint32_t> pending;
  auto reach = [&](uint32_t o, uint64_t count) {
    const GroupId k = growing_of[ObjectId(o)];
    if (!k.valid() || reached[o]) return;
    reached[o] = true;
    ++reached_in[k.value()];
    by[k.value()] = std::max(by[k.value()], count);
    pending.push_back(o);
  };
  for (auto [count, object] : starts) {
    pending.push_back(object);
    while (!pending.empty()) {
      const uint32_t o = pending.back();
      pending.pop_back();
      for (ObjectId t : g.references(ObjectId(o))) reach(t.value(), count);
    }
  }
  std::vector<uint64_t> members(leaks, 0), undone(leaks, 0);
  for (uint32_t k = 0; k < growing.size(); ++k) {
    const uint32_t leak = leak_index[k].value();
    members[leak] += growing[k].count;
    if (reached_in[k] * 2 <= growing[k].count || by[k] * 2 < growing[k].count) continue;
    undone[leak] += growing[k].count;
    finalizers[leak] = std::max(finalizers[leak], by[k]);
  }
  for (size_t i = 0; i < leaks; ++i)
    if (undone[i] * 2 <= members[i]) finalizers[i] = 0;
  return finalizers;
}

// For the leaks a GC root holds: what in its category holds them, where the dump names root
// references (memprof names each finalizer table entry for its object's class, "finalizers of
// Foo").
void name_root_holders(const HeapGraph& g, const IdsByObject<LeakId>& leak_of,
                       std::vector<Leak>& leaks) {
  std::vector<std::unordered_map<std::string_view, uint64_t, KeyedHash>> names(leaks.size());
  for (const RootEdge& r : g.roots()) {
    const LeakId k = leak_of[r.target];
    if (!k.valid() || !r.name.valid() || leaks[k.value()].holder.valid() ||
        r.category != leaks[k.value()].holder_root)
      continue;
    ++names[k.value()][g.string(r.name)];
  }
  for (size_t k = 0; k < leaks.size(); ++k) {
    std::vector<std::pair<std::string, uint64_t>> top(names[k].begin(), names[k].end());
    std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (top.size() > 3) top.resize(3);
    leaks[k].holder_root_names = std::move(top);
  }
}

// The leaks' objects (leak_of: each object's leak), their holders and what they retain.
void resolve_leaks(const HeapGraph& g, const HeapDominators& dom,
                   const IdsByObject<LeakId>& leak_of, std::vector<Leak>& leaks) {
  for (Leak& leak : leaks) leak.members.clear();
  for (uint32_t i = 0; i < g.object_count(); ++i)
    if (const LeakId k = leak_of[ObjectId(i)]; k.valid())
      leaks[k.value()].members.push_back(ObjectId(i));
  std::vector<uint32_t> wanted(leaks.size());
  for (uint32_t k = 0; k < leaks.size(); ++k) wanted[k] = k;
  const std::vector<uint64_t> retained =
      leaks.empty() ? std::vector<uint64_t>()
                    : dom.retained_by_keys(g, leak_of.raw(), leaks.size(), wanted);
  const std::vector<std::pair<ObjectId, uint64_t>> holders =
      find_holders(g, dom, leak_of.raw(), leaks.size());
  // What GC roots hold directly, by leak and category: a VM table (the finalizer table, which
  // holds every finalizer given to ObjectSpace.define_finalizer) is no object of the dump.
  std::unordered_map<uint64_t, uint64_t, KeyedHash> by_root;  // leak << 32 | category -> members
  for (const RootEdge& r : g.roots())
    if (const LeakId k = leak_of[r.target]; k.valid())
      ++by_root[uint64_t(k.value()) << 32 | r.category.value()];
  for (uint32_t k = 0; k < leaks.size(); ++k) {
    leaks[k].retained_bytes = retained[k];
    if (leaks[k].holder.valid()) continue;  // the accumulation point, or nested holders' outer
    std::tie(leaks[k].holder, leaks[k].holder_share) = holders[k];
    for (auto [key, count] : by_root)
      if (key >> 32 == k && (count > leaks[k].holder_share ||
                             (leaks[k].holder_root.valid() && count == leaks[k].holder_share &&
                              StringId(uint32_t(key)) < leaks[k].holder_root))) {
        leaks[k].holder = ObjectId::none();
        leaks[k].holder_root = StringId(static_cast<uint32_t>(key));
        leaks[k].holder_share = count;
      }
  }
  name_root_holders(g, leak_of, leaks);
}

// What the profilers' own objects (ObjectSpace's tracer, memprof's tracker, memprof's modules)
// hold alone, at the top of their subtrees only: their bytes are counted once.
uint64_t top_owned_bytes(const HeapGraph& g, const HeapDominators& dom,
                         const std::vector<bool>& owned) {
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < g.object_count(); ++i)
    if (const ObjectId o(i);
        owned[i] && (dom.idom(o) == g.virtual_root() || !owned[dom.idom(o).value()]))
      add_saturating(bytes, dom.retained_bytes(o));
  return std::min(bytes, dom.retained_bytes(g.virtual_root()));
}

// For each group, the group whose holder is the nearest above its holder in the dominator tree
// (that holder dominates it), or none. Each object is climbed once: O(objects).
std::vector<GroupId> holder_above(const HeapGraph& g, const HeapDominators& dom,
                                  const std::vector<std::pair<ObjectId, uint64_t>>& holders) {
  const GroupId kUnknown(GroupId::kNoneValue - 1);
  std::unordered_map<uint32_t, GroupId> group_held_by;  // holder object -> its first group
  for (uint32_t k = 0; k < holders.size(); ++k)
    if (holders[k].first.valid() && holders[k].first != g.virtual_root())
      group_held_by.try_emplace(holders[k].first.value(), GroupId(k));
  std::vector<GroupId> above(g.object_count(), kUnknown);  // by object: the group held nearest
  std::vector<uint32_t> way;                               // at or above it
  std::vector<GroupId> out(holders.size());
  for (uint32_t k = 0; k < holders.size(); ++k) {
    const ObjectId h = holders[k].first;
    if (!h.valid() || h == g.virtual_root()) continue;
    const GroupId first = group_held_by.at(h.value());
    if (first != GroupId(k)) {  // computed for the first group with this holder
      out[k] = out[first.value()];
      continue;
    }
    GroupId answer;
    for (ObjectId o = dom.idom(h); o.valid() && o != g.virtual_root(); o = dom.idom(o)) {
      if (above[o.value()] != kUnknown) {
        answer = above[o.value()];
        break;
      }
      if (auto it = group_held_by.find(o.value()); it != group_held_by.end()) {
        answer = it->second;
        break;
      }
      way.push_back(o.value());
    }
    for (uint32_t w : way) above[w] = answer;
    way.clear();
    out[k] = answer;
  }
  return out;
}

// A chunk of Ruby's symbol table (512 Symbols' names) holds no leak: the table does, the names
// of the Symbols made since the first dump being spread over its chunks. Such a holder is
// lifted to the table, with the members its chunks hold. O(members + the table's size).
void lift_symbol_table_chunks(const HeapGraph& g, const HeapDominators& dom,
                              const std::vector<uint32_t>& group_of,
                              std::vector<std::pair<ObjectId, uint64_t>>& holders) {
  std::vector<ObjectId> table(holders.size(), ObjectId::none());
  bool any = false;
  for (size_t k = 0; k < holders.size(); ++k) {
    const ObjectId h = holders[k].first;
    if (!h.valid() || h == g.virtual_root()) continue;
    if (const ObjectId up = dom.idom(h);
        up.valid() && up != g.virtual_root() && is_symbol_table(g, up)) {
      table[k] = up;
      holders[k].second = 0;
      any = true;
    }
  }
  if (!any) return;
  // The members the table's chunks hold (a name some other object also holds included).
  std::vector<uint32_t> tables;
  for (ObjectId t : table)
    if (t.valid()) tables.push_back(t.value());
  std::sort(tables.begin(), tables.end());
  tables.erase(std::unique(tables.begin(), tables.end()), tables.end());
  for (uint32_t t : tables)
    for (ObjectId chunk : g.references(ObjectId(t)))
      for (ObjectId m : g.references(chunk))
        if (const uint32_t k = group_of[m.value()]; k != UINT32_MAX && table[k] == ObjectId(t))
          ++holders[k].second;
  for (size_t k = 0; k < holders.size(); ++k)
    if (table[k].valid()) holders[k].first = table[k];
}

// The objects of each group in each dump that its roots reach (the last dump's less the
// profilers' own), and the group of each object of the last dump.
struct GroupCounts {
  std::vector<std::vector<uint64_t>> by_dump;  // by dump, then by group of the table
  std::vector<uint32_t> of_last;               // by object (GroupTable::kNoGroup: none)
};

GroupCounts count_groups(GroupTable& table, const std::vector<const HeapGraph*>& dumps,
                         const HeapDominators& dom, const std::vector<bool>& owned,
                         const std::vector<const std::vector<bool>*>& reachable) {
  GroupCounts out;
  const HeapGraph& last = *dumps.back();
  for (size_t d = 0; d < dumps.size(); ++d) {
    const HeapGraph* g = dumps[d];
    const std::vector<bool>* known =
        g == &last ? nullptr : (d < reachable.size() ? reachable[d] : nullptr);
    if (known && known->size() != g->object_count()) known = nullptr;
    std::vector<uint32_t> of = table.assign(*g, [&](ObjectId o) {
      return g == &last ? dom.reachable(o) && !owned[o.value()] : !known || (*known)[o.value()];
    });
    std::vector<uint64_t>& c = out.by_dump.emplace_back();
    for (uint32_t grp : of)
      if (grp != GroupTable::kNoGroup) {
        if (grp >= c.size()) c.resize(grp + 1, 0);
        ++c[grp];
      }
    if (g == &last) out.of_last = std::move(of);
  }
  for (auto& c : out.by_dump) c.resize(table.size(), 0);
  return out;
}

// By group of the table, the objects of the last dump born after the first.
struct BornByGroup {
  std::vector<uint64_t> count, bytes;
  std::vector<ObjectId> example;  // the first of them
};

// Counts the born objects (garbage not yet swept aside) and takes the others out of group_of.
// The matcher's index of the first dump's addresses is freed once they are known.
BornByGroup count_born(const HeapGraph& first, const HeapGraph& last, const HeapDominators& dom,
                       const std::vector<bool>& owned, size_t groups,
                       std::vector<uint32_t>& group_of, LeakReport& report) {
  BornByGroup born{std::vector<uint64_t>(groups, 0), std::vector<uint64_t>(groups, 0),
                   std::vector<ObjectId>(groups)};
  const ObjectMatcher matcher(first, last);
  report.match = matcher.method();
  report.by_address = matcher.by_address();
  for (uint32_t i = 0; i < last.object_count(); ++i) {
    if (!dom.reachable(ObjectId(i)) || owned[i] || matcher.existed_before(ObjectId(i))) {
      group_of[i] = GroupTable::kNoGroup;
      continue;
    }
    const uint32_t grp = group_of[i];
    if (born.count[grp]++ == 0) born.example[grp] = ObjectId(i);
    add_saturating(born.bytes[grp], last.memsize(ObjectId(i)));
    ++report.born;
  }
  return born;
}

// The groups that gained min_growth objects from the first dump to the last, and had some born.
struct GrowingGroups {
  std::vector<LeakGroup> groups;
  std::vector<uint32_t> table_group;  // each one's group in the table
  std::vector<GroupId> of_table;      // by group of the table: its id here, or none
};

GrowingGroups select_growing(const GroupTable& table, const GroupCounts& counts,
                             const BornByGroup& born, const LeakOptions& options,
                             LeakReport& report) {
  GrowingGroups growing;
  growing.of_table.assign(table.size(), GroupId::none());
  const std::vector<std::vector<uint64_t>>& by_dump = counts.by_dump;
  for (uint32_t grp = 0; grp < table.size(); ++grp) {
    if (born.count[grp] == 0 ||
        by_dump.back()[grp] < by_dump.front()[grp] + std::max<uint64_t>(options.min_growth, 1))
      continue;
    LeakGroup lg;
    lg.group = table.group(grp);
    lg.count = born.count[grp];
    lg.bytes = born.bytes[grp];
    for (const auto& per_dump : by_dump) lg.growth.push_back(per_dump[grp]);
    lg.steady = true;
    for (size_t d = 1; d < by_dump.size(); ++d)
      lg.steady = lg.steady && by_dump[d][grp] > by_dump[d - 1][grp];
    lg.growing = by_dump[by_dump.size() - 1][grp] > by_dump[by_dump.size() - 2][grp];
    lg.example = born.example[grp];
    report.groups_growing += lg.growing;
    growing.of_table[grp] = GroupId(static_cast<uint32_t>(growing.groups.size()));
    growing.groups.push_back(std::move(lg));
    growing.table_group.push_back(grp);
  }
  report.groups = growing.groups.size();
  return growing;
}

// Each born object's growing group in place of its group of the table (the same array), the
// groups' application lines voted for on the way.
IdsByObject<GroupId> to_growing_groups(const HeapGraph& last, GrowingGroups& growing,
                                       std::vector<uint32_t> group_of) {
  static_assert(GroupTable::kNoGroup == GroupId::kNoneValue);
  AppLineVotes app_lines;
  for (uint32_t i = 0; i < group_of.size(); ++i)
    if (group_of[i] != GroupTable::kNoGroup) {
      const GroupId k = growing.of_table[group_of[i]];
      group_of[i] = k.value();
      if (k.valid() && last.has_stacks()) app_lines.add(last, k, ObjectId(i));
    }
  app_lines.give(growing.groups);
  return IdsByObject<GroupId>(std::move(group_of));
}

// Each group's example, one its holder holds itself (through a chunk, for the symbol table):
// what the leak is, not a stray member (a template's source beside the Symbols' names). One
// pass over each holder's references, whatever number of groups it holds.
void take_held_examples(const HeapGraph& last, const IdsByObject<GroupId>& growing_of,
                        const std::vector<std::pair<ObjectId, uint64_t>>& holders,
                        std::vector<LeakGroup>& growing) {
  std::vector<bool> holds_example(growing.size(), false);
  auto take = [&](ObjectId h, ObjectId t) {
    const GroupId k = growing_of[t];
    if (k.valid() && holders[k.value()].first == h && !holds_example[k.value()]) {
      holds_example[k.value()] = true;
      growing[k.value()].example = t;
    }
  };
  std::vector<uint32_t> seen_holders;
  for (const auto& [h, share] : holders)
    if (h.valid() && h != last.virtual_root()) seen_holders.push_back(h.value());
  std::sort(seen_holders.begin(), seen_holders.end());
  seen_holders.erase(std::unique(seen_holders.begin(), seen_holders.end()), seen_holders.end());
  for (uint32_t v : seen_holders) {
    const ObjectId h(v);
    const bool table = is_symbol_table(last, h);
    for (ObjectId t : last.references(h)) {
      take(h, t);
      if (table)
        for (ObjectId name : last.references(t)) take(h, name);
    }
  }
}

// The growing groups' holders: each group's (find_holders), those that dominate most of their
// group (a holder that merely references a member or two, a Proc its own environment, holds no
// leak: none), and for each group the group whose strong holder is the nearest above its own.
struct GroupHolders {
  std::vector<std::pair<ObjectId, uint64_t>> all, strong;
  std::vector<GroupId> above;  // holder_above over the strong ones
};

GroupHolders hold_groups(const HeapGraph& last, const HeapDominators& dom,
                         const IdsByObject<GroupId>& growing_of, std::vector<LeakGroup>& growing) {
  GroupHolders h;
  h.all = find_holders(last, dom, growing_of.raw(), growing.size());
  take_held_examples(last, growing_of, h.all, growing);
  h.strong = h.all;
  for (uint32_t k = 0; k < growing.size(); ++k)
    if (h.strong[k].second * 2 <= growing[k].count) h.strong[k].first = ObjectId::none();
  h.above = holder_above(last, dom, h.strong);
  return h;
}

// One leak: the groups one object holds, and those held by an object of another. A holder
// inside another's (the Hash of one query inside the query cache's Hash) holds part of the same
// leak: one answer, held by the outer one, each byte counted once.
void join_by_holders(const IdsByObject<GroupId>& growing_of, const GroupHolders& holders,
                     GroupSets& sets) {
  std::unordered_map<uint32_t, GroupId> by_holder;
  for (uint32_t i = 0; i < holders.all.size(); ++i) {
    const GroupId k(i);
    const ObjectId h = holders.all[i].first;
    if (!h.valid()) continue;
    if (auto [it, added] = by_holder.try_emplace(h.value(), k); !added) sets.join(k, it->second);
    if (growing_of[h].valid()) sets.join(k, growing_of[h]);
  }
  for (uint32_t i = 0; i < holders.above.size(); ++i)
    if (holders.above[i].valid()) sets.join(GroupId(i), holders.above[i]);
}

// And those whose objects another group's objects reference, one each (a Request captured by
// each finalizer's environment: no single object holds them, the environments do together).
void join_by_references(const HeapGraph& last, const IdsByObject<GroupId>& growing_of,
                        const std::vector<LeakGroup>& growing, const GroupHolders& holders,
                        GroupSets& sets) {
  std::unordered_map<uint64_t, uint64_t, KeyedHash>
      referenced;  // group k << 32 | group j -> references
  for (uint32_t i = 0; i < last.object_count(); ++i) {
    const GroupId j = growing_of[ObjectId(i)];
    if (!j.valid() || !last.retains_from(i)) continue;
    for (ObjectId t : last.references(ObjectId(i)))
      if (const GroupId k = growing_of[t]; k.valid() && k != j)
        ++referenced[uint64_t(k.value()) << 32 | j.value()];
  }
  for (auto [key, count] : referenced)
    if (const GroupId k(static_cast<uint32_t>(key >> 32));
        count * 2 > growing[k.value()].count && count > holders.all[k.value()].second)
      sets.join(k, GroupId(static_cast<uint32_t>(key)));
}

// The leaks, numbered in the order of their first group: each growing group's leak.
std::vector<LeakId> number_leaks(GroupSets& sets, size_t groups, size_t dumps,
                                 std::vector<Leak>& leaks) {
  std::vector<LeakId> leak_of_group(groups);
  for (uint32_t k = 0; k < groups; ++k) {
    LeakId& leak = leak_of_group[sets.find(GroupId(k)).value()];
    if (!leak.valid()) {
      leak = LeakId(static_cast<uint32_t>(leaks.size()));
      leaks.emplace_back().growth.assign(dumps, 0);
    }
    leak_of_group[k] = leak;
  }
  return leak_of_group;
}

// A leak of nested holders is held by its outermost holder: the one that holds (dominates) most
// of it, its inner holders' members counted as its own.
void hold_by_outermost(const GroupHolders& holders, const std::vector<LeakId>& leak_of_group,
                       std::vector<Leak>& leaks) {
  const std::vector<GroupId>& above = holders.above;
  const std::vector<std::pair<ObjectId, uint64_t>>& strong = holders.strong;
  std::vector<GroupId> outermost(above.size());
  std::vector<std::unordered_map<uint32_t, uint64_t>> outer_share(leaks.size());
  for (uint32_t k = 0; k < above.size(); ++k) {
    if (!above[k].valid()) continue;
    GroupId top = above[k];
    while (above[top.value()].valid() && !outermost[top.value()].valid()) top = above[top.value()];
    if (outermost[top.value()].valid()) top = outermost[top.value()];
    outermost[k] = top;
    outer_share[leak_of_group[k].value()][strong[top.value()].first.value()] += strong[k].second;
  }
  for (uint32_t k = 0; k < above.size(); ++k)
    if (auto& shares = outer_share[leak_of_group[k].value()];
        !shares.empty() && !outermost[k].valid() && strong[k].first.valid() &&
        shares.count(strong[k].first.value()))
      shares[strong[k].first.value()] += strong[k].second;
  for (uint32_t i = 0; i < leaks.size(); ++i)
    for (auto [object, share] : outer_share[i])
      if (share > leaks[i].holder_share ||
          (share == leaks[i].holder_share && ObjectId(object) < leaks[i].holder)) {
        leaks[i].holder = ObjectId(object);
        leaks[i].holder_share = share;
      }
}

// By leak, whether it is the program's: VM caches alone (IMEMO:callcache, IMEMO:constcache warm
// up as code runs) rank after the program's leaks, and so do those that the finalizers of dead
// objects may undo at the next GC (their count set on each leak).
std::vector<bool> program_leaks(const HeapGraph& last, const HeapDominators& dom,
                                const std::vector<LeakGroup>& growing,
                                const IdsByObject<GroupId>& growing_of,
                                const std::vector<LeakId>& leak_of_group,
                                std::vector<Leak>& leaks) {
  std::vector<bool> program(leaks.size(), false);
  for (uint32_t k = 0; k < growing.size(); ++k)
    if (!growing[k].group.cls.starts_with("IMEMO:")) program[leak_of_group[k].value()] = true;
  const std::vector<uint64_t> undone =
      undone_by_finalizers(last, dom, growing, growing_of, leak_of_group, leaks.size());
  for (size_t i = 0; i < leaks.size(); ++i) {
    leaks[i].pending_finalizers = undone[i];
    if (undone[i] > 0) program[i] = false;
  }
  return program;
}

// Moves the groups into their leaks, ranked: steady growth first, then the bytes the born
// objects hold (what single objects dominate: cheap for every group and every leak at once;
// the exact set size is computed for the leaks kept). A leak's rows: those that hold the most
// first (a Proc holding a client and its socket above the socket).
void add_ranked_groups(const HeapGraph& last, const HeapDominators& dom,
                       const IdsByObject<GroupId>& growing_of, GrowingGroups& growing,
                       const std::vector<LeakId>& leak_of_group, std::vector<Leak>& leaks) {
  std::vector<LeakGroup>& groups = growing.groups;
  const std::vector<uint64_t> held_by_group =
      dom.dominated_by_keys(last, growing_of.raw(), groups.size());
  std::vector<uint32_t> order(groups.size());
  for (uint32_t k = 0; k < groups.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const LeakGroup &x = groups[a], &y = groups[b];
    if (x.steady != y.steady) return x.steady;
    if (x.growing != y.growing) return x.growing;
    if (held_by_group[a] != held_by_group[b]) return held_by_group[a] > held_by_group[b];
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    return growing.table_group[a] < growing.table_group[b];
  });
  for (uint32_t k : order) {
    Leak& leak = leaks[leak_of_group[k].value()];
    LeakGroup& lg = groups[k];
    lg.retained_bytes = held_by_group[k];
    leak.count += lg.count;
    add_saturating(leak.bytes, lg.bytes);
    for (size_t d = 0; d < lg.growth.size(); ++d) leak.growth[d] += lg.growth[d];
    leak.steady = leak.steady || lg.steady;
    leak.growing = leak.growing || lg.growing;
    leak.groups.push_back(std::move(lg));
  }
  for (Leak& leak : leaks)
    std::stable_sort(
        leak.groups.begin(), leak.groups.end(), [](const LeakGroup& x, const LeakGroup& y) {
          return x.retained_bytes != y.retained_bytes ? x.retained_bytes > y.retained_bytes
                                                      : x.bytes > y.bytes;
        });
}

// The leaks most likely first, at most `top`: the program's, then steady growth, then what
// their objects dominate.
std::vector<LeakId> rank_leaks(const HeapGraph& last, const HeapDominators& dom,
                               const IdsByObject<LeakId>& leak_of, const std::vector<Leak>& leaks,
                               const std::vector<bool>& program, size_t top) {
  const std::vector<uint64_t> held = dom.dominated_by_keys(last, leak_of.raw(), leaks.size());
  std::vector<LeakId> rank(leaks.size());
  for (uint32_t k = 0; k < leaks.size(); ++k) rank[k] = LeakId(k);
  std::sort(rank.begin(), rank.end(), [&](LeakId leak_a, LeakId leak_b) {
    const uint32_t a = leak_a.value(), b = leak_b.value();
    const Leak &x = leaks[a], &y = leaks[b];
    if (program[a] != program[b]) return bool(program[a]);
    if (x.steady != y.steady) return x.steady;
    if (x.growing != y.growing) return x.growing;
    if (held[a] != held[b]) return held[a] > held[b];
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    return a < b;
  });
  if (rank.size() > top) rank.resize(top);
  return rank;
}

// A chain (a linked list: each node dominating the rest) starts at a when its biggest child in
// the dominator tree is of its class.
bool chain_starts(const HeapGraph& g, ObjectId a, const std::vector<ObjectId>& kids) {
  return !kids.empty() && g.class_of(kids[0]) == g.class_of(a);
}

// Objects that retain more than `least`, each followed down to where it accumulates, the
// biggest first. A chain is followed no further than its first node: what accumulates is the
// chain.
std::vector<ObjectId> accumulation_points(const HeapGraph& g, const HeapDominators& dom,
                                          const std::vector<bool>& owned, double dominant,
                                          uint64_t least) {
  auto big = [&](ObjectId o) {
    return dom.retained_bytes(o) >= least && dom.retained_bytes(o) > 0 && !owned[o.value()];
  };
  std::vector<ObjectId> pending, points;
  for (ObjectId c : dom.children(g.virtual_root()))
    if (big(c)) pending.push_back(c);
  while (!pending.empty()) {
    ObjectId a = pending.back();
    pending.pop_back();
    std::vector<ObjectId> kids = dom.children(a);
    while (!kids.empty() && !chain_starts(g, a, kids) &&
           static_cast<double>(dom.retained_bytes(kids[0])) >=
               dominant * static_cast<double>(dom.retained_bytes(a))) {
      a = kids[0];
      kids = dom.children(a);
    }
    // A container of a few big things is not where memory accumulates: each of them may be.
    uint64_t in_big = 0;
    size_t big_kids = 0;
    while (big_kids < kids.size() && big(kids[big_kids]))
      in_big += dom.retained_bytes(kids[big_kids++]);
    if (big_kids > 0 && in_big * 2 >= dom.retained_bytes(a) && !chain_starts(g, a, kids)) {
      pending.insert(pending.end(), kids.begin(), kids.begin() + static_cast<ptrdiff_t>(big_kids));
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
}

// Nothing retains the threshold: the biggest three all the same, from the roots' biggest
// children (the least of the three is the bar).
std::vector<ObjectId> biggest_points(const HeapGraph& g, const HeapDominators& dom,
                                     const std::vector<bool>& owned, double dominant) {
  std::vector<uint64_t> sizes;
  for (ObjectId c : dom.unordered_children(g.virtual_root()))
    if (!owned[c.value()] && dom.retained_bytes(c) > 0) sizes.push_back(dom.retained_bytes(c));
  if (sizes.empty()) return {};
  const size_t third = std::min<size_t>(3, sizes.size()) - 1;
  std::nth_element(sizes.begin(), sizes.begin() + static_cast<ptrdiff_t>(third), sizes.end(),
                   std::greater<>());
  std::vector<ObjectId> points = accumulation_points(g, dom, owned, dominant, sizes[third]);
  if (points.size() > 3) points.resize(3);
  return points;
}

// What an accumulation point holds: its children in the dominator tree, or the chain's nodes
// (then held by what holds its first one), or the object itself where its children hold less
// than it does (a big String, an Array of small Integers): the memory is its own.
std::vector<ObjectId> accumulated(const HeapGraph& g, const HeapDominators& dom, Leak& leak) {
  const ObjectId a = leak.holder;
  std::vector<ObjectId> kids = dom.children(a);
  if (chain_starts(g, a, kids)) {
    std::vector<ObjectId> chain{a};
    while (chain_starts(g, chain.back(), kids)) {
      chain.push_back(kids[0]);
      kids = dom.children(kids[0]);
    }
    kids = std::move(chain);
    if (dom.idom(a) != g.virtual_root()) leak.holder = dom.idom(a);
  }
  uint64_t in_kids = 0;
  for (ObjectId k : kids) add_saturating(in_kids, dom.retained_bytes(k));
  if (in_kids < g.memsize(a) && leak.holder == a) kids.assign(1, a);
  return kids;
}

// The leak's rows: what it holds by class and site, the groups retaining the most first (a
// child's retained set is its own: the sums are exact). Marks its objects in leak_of.
void group_accumulated(const HeapGraph& g, const HeapDominators& dom,
                       const std::vector<bool>& owned, const GroupTable& table,
                       const std::vector<uint32_t>& group_of, const std::vector<ObjectId>& kids,
                       LeakId index, Leak& leak, IdsByObject<LeakId>& leak_of) {
  std::unordered_map<uint32_t, size_t> row;
  std::vector<uint64_t> row_retained;
  AppLineVotes app_lines;
  for (ObjectId k : kids) {
    if (owned[k.value()]) continue;
    const uint32_t grp = group_of[k.value()];
    auto [it, added] = row.try_emplace(grp, leak.groups.size());
    if (added) {
      LeakGroup& lg = leak.groups.emplace_back();
      lg.group = table.group(grp);
      lg.example = k;
      row_retained.push_back(0);
    }
    LeakGroup& lg = leak.groups[it->second];
    ++lg.count;
    add_saturating(lg.bytes, g.memsize(k));
    add_saturating(row_retained[it->second], dom.retained_bytes(k));
    if (g.has_stacks()) app_lines.add(g, GroupId(static_cast<uint32_t>(it->second)), k);
    leak_of.set(k, index);
    ++leak.count;
    add_saturating(leak.bytes, g.memsize(k));
  }
  if (leak.groups.empty()) return;
  app_lines.give(leak.groups);
  std::vector<size_t> order(leak.groups.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    if (row_retained[x] != row_retained[y]) return row_retained[x] > row_retained[y];
    if (leak.groups[x].count != leak.groups[y].count)
      return leak.groups[x].count > leak.groups[y].count;
    return x < y;
  });
  std::vector<LeakGroup> sorted;
  for (size_t i : order) {
    sorted.push_back(std::move(leak.groups[i]));
    sorted.back().growth = {sorted.back().count};
    sorted.back().retained_bytes = row_retained[i];
  }
  leak.groups = std::move(sorted);
}

}  // namespace

std::vector<bool> profiler_owned(const HeapGraph& g, const HeapDominators& dom) {
  const uint32_t n = static_cast<uint32_t>(g.object_count());
  auto own = [&](ObjectId o) {
    if (g.class_of(o).valid() && g.class_info(g.class_of(o)).profiler) return true;
    const std::string_view name = g.string(g.own_name(o));
    return name == "Memprof" || name.starts_with("Memprof::");
  };
  std::vector<bool> seed(n, false);
  bool any = false;
  for (uint32_t i = 0; i < n; ++i)
    if (own(ObjectId(i))) seed[i] = any = true;
  if (!any) return seed;
  // What the durable roots reach without going through a profiler's object, and what the
  // profiler's objects reach: a profiler's is in the second and not in the first. A thread's
  // stack (a Thread's frames, the forking parent's, where memprof's own code ran) owns
  // nothing, nor do the VM's caches (is_vm_cache_class).
  std::vector<bool> owns_nothing(g.class_count(), false);
  for (uint32_t c = 0; c < g.class_count(); ++c)
    owns_nothing[c] =
        is_vm_cache_class(g.class_name(ClassId(c))) || g.class_name(ClassId(c)) == "Thread";
  std::vector<bool> not_through(n, false);
  std::vector<uint32_t> durable, seeds;
  for (uint32_t i = 0; i < n; ++i) {
    const ClassId c = g.class_of(ObjectId(i));
    not_through[i] = seed[i] || (c.valid() && owns_nothing[c.value()]);
    if (seed[i]) seeds.push_back(i);
  }
  for (const RootEdge& r : g.roots())
    if (!is_transient_root(g.string(r.category))) durable.push_back(r.target.value());
  const std::vector<bool> program = reachable_from(g, std::move(durable), not_through);
  std::vector<bool> out = reachable_from(g, std::move(seeds), {});
  for (uint32_t i = 0; i < n; ++i)
    out[i] = out[i] && dom.reachable(ObjectId(i)) && (seed[i] || !program[i]);
  return out;
}

std::vector<std::pair<ObjectId, uint64_t>> find_holders(const HeapGraph& g,
                                                        const HeapDominators& dom,
                                                        const std::vector<uint32_t>& group_of,
                                                        size_t groups) {
  std::vector<std::pair<ObjectId, uint64_t>> out(groups, {ObjectId::none(), 0});
  const std::vector<HeapDominators::Majority> majority =
      dom.majority_dominators_keys(g, group_of, groups);
  std::vector<bool> by_references(groups, false);
  for (uint32_t k = 0; k < groups; ++k) {
    if (majority[k].node != g.virtual_root())
      out[k] = {majority[k].node, majority[k].members};
    else
      by_references[k] = majority[k].members > 0;
  }
  lift_symbol_table_chunks(g, dom, group_of, out);
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
                              const LeakOptions& options,
                              const std::vector<const std::vector<bool>*>& reachable) {
  LeakReport report;
  const HeapGraph& first = *dumps.front();
  const HeapGraph& last = *dumps.back();
  // The profilers' own objects are neither the program's leaks nor its heap.
  const std::vector<bool> owned = profiler_owned(last, dom);
  report.profiler_bytes = top_owned_bytes(last, dom, owned);
  report.heap_bytes = dom.retained_bytes(last.virtual_root()) - report.profiler_bytes;

  // One array of the last dump's objects goes through the steps below: each object's group of
  // the table, its group while born since the first dump, its growing group, its leak.
  GroupTable table;
  GroupCounts counts = count_groups(table, dumps, dom, owned, reachable);
  std::vector<uint32_t>& born_group = counts.of_last;
  const BornByGroup born = count_born(first, last, dom, owned, table.size(), born_group, report);
  GrowingGroups growing = select_growing(table, counts, born, options, report);
  // The born objects of growing groups.
  IdsByObject<GroupId> growing_of = to_growing_groups(last, growing, std::move(counts.of_last));
  const GroupHolders holders = hold_groups(last, dom, growing_of, growing.groups);

  GroupSets sets(growing.groups.size());
  join_by_holders(growing_of, holders, sets);
  join_by_references(last, growing_of, growing.groups, holders, sets);
  std::vector<Leak> leaks;
  const std::vector<LeakId> leak_of_group =
      number_leaks(sets, growing.groups.size(), dumps.size(), leaks);
  report.found = leaks.size();
  hold_by_outermost(holders, leak_of_group, leaks);
  const std::vector<bool> program =
      program_leaks(last, dom, growing.groups, growing_of, leak_of_group, leaks);
  add_ranked_groups(last, dom, growing_of, growing, leak_of_group, leaks);
  IdsByObject<LeakId> leak_of =
      std::move(growing_of).map<LeakId>([&](GroupId k) { return leak_of_group[k.value()]; });
  const std::vector<LeakId> rank = rank_leaks(last, dom, leak_of, leaks, program, options.top);

  // The leaks kept, each with its members, holder and retained size: linear in the heap
  // however many there are (--top 0).
  std::vector<LeakId> kept(leaks.size());
  for (uint32_t r = 0; r < rank.size(); ++r) {
    kept[rank[r].value()] = LeakId(r);
    report.leaks.push_back(std::move(leaks[rank[r].value()]));
  }
  leak_of = std::move(leak_of).map<LeakId>([&](LeakId k) { return kept[k.value()]; });
  resolve_leaks(last, dom, leak_of, report.leaks);
  return report;
}

LeakReport find_accumulations(const HeapGraph& g, const HeapDominators& dom,
                              const LeakOptions& options) {
  LeakReport report;
  // The profilers' own objects (the allocation tracer's table, memprof's tracker) are not the
  // program's memory: neither suspects nor part of the heap the threshold is a share of.
  const std::vector<bool> owned = profiler_owned(g, dom);
  report.profiler_bytes = top_owned_bytes(g, dom, owned);
  report.heap_bytes = dom.retained_bytes(g.virtual_root()) - report.profiler_bytes;
  const auto threshold =
      static_cast<uint64_t>(options.threshold * static_cast<double>(report.heap_bytes));
  std::vector<ObjectId> points = accumulation_points(g, dom, owned, options.dominant, threshold);
  if (points.empty() && options.top > 0) {
    points = biggest_points(g, dom, owned, options.dominant);
    report.below_threshold = !points.empty();  // marked as below it
  }
  report.found = points.size();
  if (points.size() > options.top) points.resize(options.top);

  GroupTable table;
  const std::vector<uint32_t> group_of = table.assign(g, [](ObjectId) { return true; });
  IdsByObject<LeakId> leak_of(g.object_count());
  for (ObjectId a : points) {
    Leak& leak = report.leaks.emplace_back();
    leak.holder = a;
    const std::vector<ObjectId> kids = accumulated(g, dom, leak);
    const LeakId index(static_cast<uint32_t>(report.leaks.size() - 1));
    group_accumulated(g, dom, owned, table, group_of, kids, index, leak, leak_of);
    if (leak.groups.empty()) {  // the profiler's alone
      report.leaks.pop_back();
      continue;
    }
    leak.growth = {leak.count};
    leak.holder_share = leak.count;
  }
  resolve_leaks(g, dom, leak_of, report.leaks);
  return report;
}

}  // namespace heapq
