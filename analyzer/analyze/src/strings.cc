#include "heapq/analyze/strings.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <span>
#include <tuple>
#include <unordered_map>

#include "heapq/base/keyed_hash.h"
#include "heapq/base/saturating_add.h"
#include "heapq/read/address_hash.h"

namespace heapq {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

struct Group {
  std::string_view value;
  uint64_t bytesize = 0, hash = 0;
  bool cut = false;
  uint64_t count = 0, bytes = 0, smallest = UINT64_MAX, frozen = 0, interned = 0;
};

// By copy, its value's first copy; by first copy, how many copies its value has.
struct FirstCopies {
  std::vector<uint32_t> first, copies;
};

// Copies of one value agree on all the dump says of it: the bytes written, the byte size (a
// binary "\xFF\xFE" is written as the UTF-8 "\u00ff\u00fe") and, for a cut one, the hash
// of the whole. Each copy finds its value's first copy in an open-addressing table of copies'
// indexes: a few bytes a copy, most values being unique. Counts the distinct values in r.
FirstCopies find_first_copies(std::span<const StringValue> values, StringReport& r) {
  const uint32_t m = static_cast<uint32_t>(values.size());
  auto same = [&](const StringValue& a, const StringValue& b) {
    return a.hash == b.hash && a.bytesize == b.bytesize && a.value == b.value;
  };
  auto hash_of = [](const StringValue& v) -> uint64_t {
    return v.hash ? address_hash(v.hash ^ v.bytesize * 0x9e3779b97f4a7c15ull)
                  : string_hash(v.value);
  };
  FirstCopies out{std::vector<uint32_t>(m), std::vector<uint32_t>(m, 0)};
  std::vector<uint32_t>&first = out.first, &copies = out.copies;
  std::vector<uint32_t> table(std::bit_ceil(std::max<size_t>(16, size_t(m) * 2)), kNone);
  const size_t mask = table.size() - 1;
  for (uint32_t i = 0; i < m; ++i) {
    for (size_t slot = hash_of(values[i]) & mask;; slot = (slot + 1) & mask) {
      if (table[slot] == kNone) {
        table[slot] = first[i] = i;
        ++r.distinct;
        break;
      }
      if (same(values[table[slot]], values[i])) {
        first[i] = table[slot];
        break;
      }
    }
    ++copies[first[i]];
  }
  return out;
}

// A group for each value held twice or more, in the order of their first copies, with its
// copies counted. Leaves in `found.first` each copy's group (kNone: its value's only copy) and
// frees `found.copies`.
std::vector<Group> group_copies(const HeapGraph& g, std::span<const StringValue> values,
                                FirstCopies& found) {
  const uint32_t m = static_cast<uint32_t>(values.size());
  std::vector<uint32_t>& first = found.first;
  std::vector<Group> groups;
  std::vector<uint32_t>& group_at = found.copies;  // by first copy: its group, or kNone
  for (uint32_t i = 0; i < m; ++i) {
    if (first[i] != i) continue;
    if (group_at[i] < 2) {
      group_at[i] = kNone;
      continue;
    }
    group_at[i] = static_cast<uint32_t>(groups.size());
    Group& fresh = groups.emplace_back();
    fresh.value = values[i].value;
    // As the dump says (the binary "\xFF\xFE" is 2 bytes, written in 4), else as written.
    fresh.bytesize = values[i].bytesize ? values[i].bytesize : values[i].value.size();
    fresh.hash = values[i].hash;
    fresh.cut = values[i].value.size() < values[i].bytesize;
  }
  std::vector<uint32_t>& group_of = first;  // by copy, from here on: its group, or kNone
  for (uint32_t i = 0; i < m; ++i) {
    group_of[i] = group_at[first[i]];
    if (group_of[i] == kNone) continue;
    Group& gr = groups[group_of[i]];
    const uint64_t memsize = g.memsize(values[i].object);
    ++gr.count;
    add_saturating(gr.bytes, memsize);
    gr.smallest = std::min(gr.smallest, memsize);
    gr.frozen += values[i].frozen;
    gr.interned += values[i].interned;
  }
  std::vector<uint32_t>().swap(group_at);
  return groups;
}

// Copies by (value, site): group << 32 | site -> count, bytes.
using BySite = std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>, KeyedHash>;

BySite count_by_site(const HeapGraph& g, std::span<const StringValue> values,
                     const std::vector<uint32_t>& group_of) {
  BySite by_site;
  for (size_t i = 0; i < group_of.size(); ++i) {
    if (group_of[i] == kNone) continue;
    const ObjectId o = values[i].object;
    auto& [count, bytes] = by_site[uint64_t(group_of[i]) << 32 | g.source_site(o).value()];
    ++count;
    add_saturating(bytes, g.memsize(o));
  }
  return by_site;
}

// The totals over every duplicated value, and the `top` values that waste the most as rows of
// r.duplicates. Returns each group's row (kNone: not shown).
std::vector<uint32_t> show_most_wasted(const std::vector<Group>& groups, size_t top,
                                       StringReport& r) {
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < groups.size(); ++i) {
    ++r.duplicated;
    r.copies += groups[i].count;
    add_saturating(r.wasted_bytes, groups[i].bytes - groups[i].smallest);
    order.push_back(i);
  }
  auto wasted = [&](uint32_t i) { return groups[i].bytes - groups[i].smallest; };
  auto more_wasted = [&](uint32_t a, uint32_t b) {
    if (wasted(a) != wasted(b)) return wasted(a) > wasted(b);
    if (groups[a].count != groups[b].count) return groups[a].count > groups[b].count;
    return std::tie(groups[a].value, groups[a].bytesize, groups[a].hash) <
           std::tie(groups[b].value, groups[b].bytesize, groups[b].hash);
  };
  const size_t shown = std::min(top, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<ptrdiff_t>(shown), order.end(),
                    more_wasted);
  order.resize(shown);
  std::vector<uint32_t> row_of(groups.size(), kNone);
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
  return row_of;
}

// Each shown value's sites, and the `top` lines that make the most copies of one value.
void add_sites(const BySite& by_site, const std::vector<Group>& groups,
               const std::vector<uint32_t>& row_of, size_t top, size_t sites_per_value,
               StringReport& r) {
  for (const auto& [key, cb] : by_site) {
    const uint32_t group = static_cast<uint32_t>(key >> 32);
    const SiteId site(static_cast<uint32_t>(key));
    if (row_of[group] != kNone) r.duplicates[row_of[group]].sites.emplace_back(site, cb.first);
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
}

}  // namespace

StringReport compute_duplicate_strings(const HeapGraph& g, size_t top, size_t sites_per_value) {
  StringReport r;
  for (uint32_t o = 0; o < g.object_count(); ++o)
    r.strings += g.type(ObjectId(o)) == ObjectType::kString;
  // Groups are made for the values held twice or more only.
  const std::span<const StringValue> values = g.string_values();
  FirstCopies found = find_first_copies(values, r);
  r.with_value = values.size();
  const std::vector<Group> groups = group_copies(g, values, found);
  const std::vector<uint32_t>& group_of = found.first;
  const BySite by_site = count_by_site(g, values, group_of);
  const std::vector<uint32_t> row_of = show_most_wasted(groups, top, r);
  add_sites(by_site, groups, row_of, top, sites_per_value, r);
  return r;
}

}  // namespace heapq
