#include "heapq/strings.h"

#include <algorithm>
#include <unordered_map>

#include "heapq/saturating_add.h"
#include "model/address_hash.h"

namespace heapq {

namespace {

// A cut value's identity: memprof's hash of the whole value, and its length.
struct HashKey {
  uint64_t hash = 0, bytesize = 0;
  bool operator==(const HashKey&) const = default;
};
struct HashKeyHash {
  size_t operator()(const HashKey& k) const {
    return address_hash(k.hash ^ k.bytesize * 0x9e3779b97f4a7c15ull);
  }
};
struct U64Hash {
  size_t operator()(uint64_t k) const { return address_hash(k); }
};

struct Group {
  std::string_view value;
  uint64_t bytesize = 0, hash = 0;
  bool cut = false;
  uint64_t count = 0, bytes = 0, smallest = UINT64_MAX, frozen = 0, interned = 0;
};

}  // namespace

StringReport compute_duplicate_strings(const HeapGraph& g, size_t top, size_t sites_per_value) {
  StringReport r;
  for (uint32_t o = 0; o < g.object_count(); ++o)
    r.strings += g.type(ObjectId(o)) == ObjectType::kString;
  // A value is its bytes; a cut one, its hash (cut values never equal whole ones: a value is
  // cut only when longer than the limit that cut it).
  std::unordered_map<std::string_view, uint32_t> by_value;
  std::unordered_map<HashKey, uint32_t, HashKeyHash> by_hash;
  std::vector<Group> groups;
  std::vector<uint32_t> group_of;  // by string value, in order
  group_of.reserve(g.string_values().size());
  for (const StringValue& v : g.string_values()) {
    const uint32_t next = static_cast<uint32_t>(groups.size());
    uint32_t group = next;
    if (v.hash)
      group = by_hash.try_emplace({v.hash, v.bytesize}, next).first->second;
    else
      group = by_value.try_emplace(v.value, next).first->second;
    if (group == next) {
      Group fresh;
      fresh.value = v.value;
      fresh.bytesize = std::max<uint64_t>(v.bytesize, v.value.size());
      fresh.hash = v.hash;
      fresh.cut = v.value.size() < v.bytesize;
      groups.push_back(fresh);
    }
    Group& gr = groups[group];
    const uint64_t memsize = g.memsize(v.object);
    ++gr.count;
    add_saturating(gr.bytes, memsize);
    gr.smallest = std::min(gr.smallest, memsize);
    gr.frozen += v.frozen;
    gr.interned += v.interned;
    group_of.push_back(group);
  }
  r.with_value = g.string_values().size();
  r.distinct = groups.size();

  // Copies by (value, site).
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>, U64Hash> by_site;  // count, bytes
  for (size_t i = 0; i < group_of.size(); ++i) {
    if (groups[group_of[i]].count < 2) continue;
    const ObjectId o = g.string_values()[i].object;
    auto& [count, bytes] = by_site[uint64_t(group_of[i]) << 32 | g.source_site(o).value()];
    ++count;
    add_saturating(bytes, g.memsize(o));
  }

  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < groups.size(); ++i) {
    if (groups[i].count < 2) continue;
    ++r.duplicated;
    r.copies += groups[i].count;
    add_saturating(r.wasted_bytes, groups[i].bytes - groups[i].smallest);
    order.push_back(i);
  }
  auto wasted = [&](uint32_t i) { return groups[i].bytes - groups[i].smallest; };
  auto more_wasted = [&](uint32_t a, uint32_t b) {
    if (wasted(a) != wasted(b)) return wasted(a) > wasted(b);
    if (groups[a].count != groups[b].count) return groups[a].count > groups[b].count;
    if (groups[a].value != groups[b].value) return groups[a].value < groups[b].value;
    return groups[a].hash < groups[b].hash;
  };
  const size_t shown = std::min(top, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<ptrdiff_t>(shown), order.end(),
                    more_wasted);
  order.resize(shown);
  std::vector<uint32_t> row_of(groups.size(), UINT32_MAX);
  for (uint32_t row = 0; row < order.size(); ++row) {
    const Group& gr = groups[order[row]];
    row_of[order[row]] = row;
    r.duplicates.push_back({gr.value,
                            gr.bytesize,
                            gr.cut,
                            gr.hash,
                            gr.count,
                            gr.bytes,
                            gr.bytes - gr.smallest,
                            gr.frozen,
                            gr.interned,
                            {}});
  }

  // Each shown value's sites, and the lines that make the most copies of one value.
  for (const auto& [key, cb] : by_site) {
    const uint32_t group = static_cast<uint32_t>(key >> 32);
    const SiteId site(static_cast<uint32_t>(key));
    if (row_of[group] != UINT32_MAX) r.duplicates[row_of[group]].sites.emplace_back(site, cb.first);
    const Group& gr = groups[group];
    if (site.valid() && cb.first >= 2)
      r.copying_sites.push_back({site, gr.value, gr.bytesize, gr.cut, cb.first, cb.second});
  }
  for (DuplicateString& d : r.duplicates) {
    std::sort(d.sites.begin(), d.sites.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (d.sites.size() > sites_per_value) d.sites.resize(sites_per_value);
  }
  auto more_copies = [&](const CopyingSite& a, const CopyingSite& b) {
    if (a.count != b.count) return a.count > b.count;
    if (a.site != b.site) return a.site < b.site;
    return a.value != b.value ? a.value < b.value : a.bytesize < b.bytesize;
  };
  std::vector<CopyingSite>& copying = r.copying_sites;
  const size_t sites_shown = std::min(top, copying.size());
  std::partial_sort(copying.begin(), copying.begin() + static_cast<ptrdiff_t>(sites_shown),
                    copying.end(), more_copies);
  copying.resize(sites_shown);
  return r;
}

}  // namespace heapq
