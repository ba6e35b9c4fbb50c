// Comparing dumps of one process taken over time: which objects of a later dump were already
// in an earlier one, and groups of objects (class and allocation site) named the same in all.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "heapq/analyze/groupings.h"
#include "heapq/base/keyed_hash.h"
#include "heapq/model/heap_graph.h"

namespace heapq {

// The objects of `after` that were already in `before`. Building it is O(objects of both).
class ObjectMatcher {
 public:
  ObjectMatcher(const HeapGraph& before, const HeapGraph& after);
  MatchMethod method() const { return method_; }
  // Whether object o of `after` is one that `before` has (false: born since). Calls in id order
  // go fastest: each asks ahead for what later ones read.
  bool existed_before(ObjectId o) const;
  // Whether some objects are matched by their address (all but kSeq, and objects without seq):
  // after a GC compaction, one that moved is taken for born.
  bool by_address() const { return by_address_; }

 private:
  const HeapGraph& before_;
  const HeapGraph& after_;
  MatchMethod method_;
  bool by_address_ = true;
  std::vector<uint64_t> before_seqs_;  // sorted, with kSeq
  // before_'s objects by address: the matcher's own, freed with it, rather than one the graph
  // would keep for as long as it lives.
  AddressIndex before_index_;
};

// Groups of objects by class and allocation site (file, line, method; for a Proc, where its
// block is written when the dump says: HeapGraph::source_site), numbered the same across every
// dump given to it. A class is known by its name, and by its address while its name is one
// Ruby makes up for an anonymous class: assigned to a constant since, it is the same class under
// its new name, the name of the last dump given.
class GroupTable {
 public:
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  using Group = ObjectGroup;  // groupings.h
  using By = GroupBy;

  explicit GroupTable(By by = By::kClassAndSite) : by_(by) {}
  // The group of each object of g; objects for which counted(o) is false get kNoGroup.
  template <typename Counted>
  std::vector<uint32_t> assign(const HeapGraph& g, Counted counted);
  size_t size() const { return groups_.size(); }
  Group group(uint32_t id) const;

 private:
  // Per graph: each ClassId's (then "no class"'s) and SiteId's group key parts.
  void map_graph(const HeapGraph& g, std::vector<uint32_t>& class_keys,
                 std::vector<uint32_t>& site_keys);
  uint32_t group_for(uint32_t class_key, uint32_t site_key);

  uint32_t key_of_class(std::string_view name, uint64_t address);

  By by_;
  std::unordered_map<std::string, uint32_t, KeyedHash> class_ids_, site_ids_;
  std::unordered_map<uint64_t, uint32_t, KeyedHash> class_at_;  // class key by the class's address
  std::vector<std::string> class_names_;
  std::vector<Group> site_parts_;  // file, line, method (or the gem as file) per site key
  std::unordered_map<uint64_t, uint32_t, KeyedHash> index_;
  std::vector<Group> groups_;          // without the class name, which may change
  std::vector<uint32_t> group_class_;  // class key of each group, or kNoGroup
};

template <typename Counted>
std::vector<uint32_t> GroupTable::assign(const HeapGraph& g, Counted counted) {
  std::vector<uint32_t> class_keys, site_keys;
  map_graph(g, class_keys, site_keys);
  // (class, site) pairs of this graph -> group, so the string-keyed table is asked once a pair.
  std::unordered_map<uint64_t, uint32_t, KeyedHash> local;
  std::vector<uint32_t> out(g.object_count(), kNoGroup);
  for (uint32_t i = 0; i < g.object_count(); ++i) {
    const ObjectId o(i);
    if (!counted(o)) continue;
    const SiteId site = g.source_site(o);
    const uint64_t pair = uint64_t(g.class_of(o).value()) << 32 | site.value();
    auto [it, added] = local.try_emplace(pair, 0);
    if (added) {
      const uint32_t c =
          class_keys[g.class_of(o).valid() ? g.class_of(o).value() : g.class_count()];
      const uint32_t s = site.valid() ? site_keys[site.value()] : kNoGroup;
      it->second = group_for(c, s);
    }
    out[i] = it->second;
  }
  return out;
}

}  // namespace heapq
