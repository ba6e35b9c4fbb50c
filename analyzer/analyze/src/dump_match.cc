#include "heapq/analyze/dump_match.h"

#include <algorithm>

#include "heapq/read/source_paths.h"

namespace heapq {

namespace {

bool traced(const HeapGraph& g) {
  for (uint32_t i = 0; i < g.object_count(); ++i)
    if (g.generation(ObjectId(i)) != 0 || g.site(ObjectId(i)).valid()) return true;
  return false;
}

// A class as both dumps know it: by its address, or by name for pseudo classes (IMEMO).
bool same_class(const HeapGraph& a, ObjectId x, const HeapGraph& b, ObjectId y) {
  const ClassId cx = a.class_of(x), cy = b.class_of(y);
  if (cx.valid() != cy.valid()) return false;
  if (!cx.valid()) return true;
  const uint64_t ax = a.class_info(cx).address, ay = b.class_info(cy).address;
  return ax != 0 || ay != 0 ? ax == ay : a.class_name(cx) == b.class_name(cy);
}

}  // namespace

const char* match_method_name(MatchMethod m) {
  switch (m) {
    case MatchMethod::kSeq:
      return "seq";
    case MatchMethod::kGeneration:
      return "generation";
    case MatchMethod::kAddress:
      return "address";
  }
  return "address";
}

ObjectMatcher::ObjectMatcher(const HeapGraph& before, const HeapGraph& after)
    : before_(before), after_(after) {
  bool& by_address = by_address_;
  if (before.has_seq() && after.has_seq()) {
    method_ = MatchMethod::kSeq;
    for (uint32_t i = 0; i < before.object_count(); ++i)
      if (uint64_t s = before.seq(ObjectId(i))) before_seqs_.push_back(s);
    std::sort(before_seqs_.begin(), before_seqs_.end());
    by_address = false;
    for (uint32_t i = 0; i < after.object_count() && !by_address; ++i)
      by_address = after.seq(ObjectId(i)) == 0;
  } else {
    method_ = traced(before) && traced(after) ? MatchMethod::kGeneration : MatchMethod::kAddress;
  }
  if (by_address) before_index_ = AddressIndex(before.addresses());
}

bool ObjectMatcher::existed_before(ObjectId o) const {
  if (method_ == MatchMethod::kSeq && after_.seq(o) != 0)
    return std::binary_search(before_seqs_.begin(), before_seqs_.end(), after_.seq(o));
  // An object without seq was allocated while tracking was off: before it started, or before it
  // was stopped and started again, when the earlier dump may have known it with a seq. It is
  // matched by address, type and class, and by GC generation where both dumps have it.
  // Callers go through the objects in id order: ask ahead for what later calls will read.
  constexpr uint32_t kCellAhead = 16, kObjectAhead = 8;
  if (o.value() + kCellAhead < after_.object_count())
    before_index_.prefetch_cell(after_.address(ObjectId(o.value() + kCellAhead)));
  if (o.value() + kObjectAhead < after_.object_count())
    before_index_.prefetch_object(before_.addresses(),
                                  after_.address(ObjectId(o.value() + kObjectAhead)));
  const std::optional<ObjectId> b = before_index_.find(before_.addresses(), after_.address(o));
  if (!b || before_.type(*b) != after_.type(o) || !same_class(before_, *b, after_, o)) return false;
  if (method_ == MatchMethod::kAddress) return true;
  const uint32_t was = before_.generation(*b), is = after_.generation(o);
  return method_ == MatchMethod::kGeneration ? was == is : was == 0 || is == 0 || was == is;
}

uint32_t GroupTable::key_of_class(std::string_view name, uint64_t address) {
  if (address != 0) {
    if (auto at = class_at_.find(address); at != class_at_.end()) {
      std::string& known = class_names_[at->second];
      if (known == name) return at->second;
      if (is_made_up_class_name(known)) {  // named since
        known = name;
        class_ids_.try_emplace(std::string(name), at->second);
        return at->second;
      }
    }
  }
  auto [it, added] =
      class_ids_.try_emplace(std::string(name), static_cast<uint32_t>(class_names_.size()));
  if (added) class_names_.emplace_back(name);
  if (address != 0) class_at_[address] = it->second;
  return it->second;
}

void GroupTable::map_graph(const HeapGraph& g, std::vector<uint32_t>& class_keys,
                           std::vector<uint32_t>& site_keys) {
  class_keys.clear();
  for (uint32_t c = 0; c < g.class_count(); ++c)
    class_keys.push_back(key_of_class(g.class_name(ClassId(c)), g.class_info(ClassId(c)).address));
  class_keys.push_back(key_of_class(g.class_name(ClassId::none()), 0));

  site_keys.clear();
  for (uint32_t s = 0; s < g.site_count(); ++s) {
    const Site& site = g.site_info(SiteId(s));
    Group parts;
    if (by_ == By::kGem) {
      parts.file = gem_of_path(g.string(site.file));
    } else {
      parts.file = g.string(site.file);
      parts.line = site.line;
      parts.method = g.string(site.method);
    }
    std::string key = parts.file + '\0' + std::to_string(parts.line) + '\0' + parts.method;
    auto [it, added] =
        site_ids_.try_emplace(std::move(key), static_cast<uint32_t>(site_parts_.size()));
    if (added) site_parts_.push_back(std::move(parts));
    site_keys.push_back(it->second);
  }
}

uint32_t GroupTable::group_for(uint32_t class_key, uint32_t site_key) {
  if (by_ == By::kClass) site_key = kNoGroup;
  if (by_ == By::kGem) class_key = kNoGroup;
  const uint64_t key = uint64_t(class_key) << 32 | site_key;
  auto [it, added] = index_.try_emplace(key, static_cast<uint32_t>(groups_.size()));
  if (added) {
    Group grp = site_key == kNoGroup ? Group() : site_parts_[site_key];
    if (by_ == By::kGem && site_key == kNoGroup) grp.file = "(unknown)";
    groups_.push_back(std::move(grp));
    group_class_.push_back(class_key);
  }
  return it->second;
}

ObjectGroup GroupTable::group(uint32_t id) const {
  Group grp = groups_[id];
  if (group_class_[id] != kNoGroup) grp.cls = class_names_[group_class_[id]];
  return grp;
}

}  // namespace heapq
