#include "heapq/analyze/diff.h"

#include <algorithm>
#include <tuple>

#include "heapq/base/saturating_add.h"

namespace heapq {

DumpDiff::DumpDiff(const HeapGraph& before, const HeapGraph& after)
    : before_(before), after_(after) {
  const ObjectMatcher matcher(before, after);
  match_ = matcher.method();
  by_address_ = matcher.by_address();
  born_in_after_.assign(after.object_count(), false);
  for (uint32_t i = 0; i < after.object_count(); ++i)
    if (!matcher.existed_before(ObjectId(i))) {
      born_in_after_[i] = true;
      ++born_;
    }
  // Every object of `after` not born is one of `before`: the rest of `before` was freed.
  const uint64_t kept = after.object_count() - born_;
  freed_ = before.object_count() > kept ? before.object_count() - kept : 0;
}

std::vector<DiffRow> DumpDiff::by(GroupBy grouping) const {
  GroupTable table(grouping);
  auto all = [](ObjectId) { return true; };
  const std::vector<uint32_t> of_before = table.assign(before_, all);
  const std::vector<uint32_t> of_after = table.assign(after_, all);
  std::vector<DiffRow> rows(table.size());
  for (uint32_t i = 0; i < of_before.size(); ++i) {
    DiffRow& r = rows[of_before[i]];
    ++r.before_count;
    add_saturating(r.before_bytes, before_.memsize(ObjectId(i)));
  }
  std::vector<uint64_t> kept(table.size(), 0);
  for (uint32_t i = 0; i < of_after.size(); ++i) {
    DiffRow& r = rows[of_after[i]];
    ++r.after_count;
    add_saturating(r.after_bytes, after_.memsize(ObjectId(i)));
    if (born_in_after_[i])
      ++r.born;
    else
      ++kept[of_after[i]];
  }
  for (uint32_t g = 0; g < rows.size(); ++g) {
    rows[g].group = table.group(g);
    // A kept object is in the same group in both dumps (its class and site do not change).
    rows[g].freed = rows[g].before_count > kept[g] ? rows[g].before_count - kept[g] : 0;
  }
  std::erase_if(rows, [](const DiffRow& r) {
    return r.count_change() == 0 && r.bytes_change() == 0 && r.born == 0 && r.freed == 0;
  });
  std::sort(rows.begin(), rows.end(), [](const DiffRow& a, const DiffRow& b) {
    if (a.bytes_change() != b.bytes_change()) return a.bytes_change() > b.bytes_change();
    if (a.count_change() != b.count_change()) return a.count_change() > b.count_change();
    return std::tie(a.group.cls, a.group.file, a.group.line, a.group.method) <
           std::tie(b.group.cls, b.group.file, b.group.line, b.group.method);
  });
  return rows;
}

}  // namespace heapq
