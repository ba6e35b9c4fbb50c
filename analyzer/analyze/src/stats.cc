#include "heapq/analyze/stats.h"

#include <algorithm>

#include "heapq/analyze/dominators.h"
#include "heapq/base/saturating_add.h"
#include "ranking.h"

namespace heapq {

HeapStats compute_stats(const HeapGraph& graph, SortKey sort) {
  return compute_stats(graph, sort, nullptr, 0);
}

HeapStats compute_stats(const HeapGraph& graph, SortKey sort, const HeapDominators* dominators,
                        size_t retained_rows) {
  HeapStats stats;
  std::vector<TypeTotals> types(kObjectTypeCount);
  std::vector<ClassTotals> classes(graph.class_count());
  for (size_t i = 0; i < types.size(); ++i) types[i].type = static_cast<ObjectType>(i);
  for (size_t i = 0; i < classes.size(); ++i) classes[i].cls = ClassId(static_cast<uint32_t>(i));

  for (uint32_t i = 0; i < graph.object_count(); ++i) {
    ObjectId o(i);
    uint64_t size = graph.memsize(o);
    TypeTotals& t = types[static_cast<size_t>(graph.type(o))];
    ++t.count;
    add_saturating(t.bytes, size);
    ClassTotals& c = classes[graph.class_of(o).value()];
    ++c.count;
    add_saturating(c.bytes, size);
    add_saturating(stats.bytes, size);
  }
  stats.objects = graph.object_count();
  const size_t class_count = classes.size();

  std::erase_if(types, [](const TypeTotals& t) { return t.count == 0; });
  std::erase_if(classes, [](const ClassTotals& c) { return c.count == 0; });
  sort_largest_first(types, sort,
                     [](const TypeTotals& a, const TypeTotals& b) { return a.type < b.type; });
  sort_largest_first(classes, sort, [&](const ClassTotals& a, const ClassTotals& b) {
    return graph.class_name(a.cls) < graph.class_name(b.cls);
  });
  if (dominators && !classes.empty()) {
    std::vector<uint32_t> wanted;
    for (size_t i = 0; i < classes.size() && i < retained_rows; ++i)
      wanted.push_back(classes[i].cls.value());
    std::vector<uint64_t> retained = dominators->retained_by(
        graph, class_count, [&](ObjectId o) { return graph.class_of(o).value(); }, wanted);
    for (size_t i = 0; i < wanted.size(); ++i) classes[i].retained_bytes = retained[wanted[i]];
  }
  stats.by_type = std::move(types);
  stats.by_class = std::move(classes);
  return stats;
}

}  // namespace heapq
