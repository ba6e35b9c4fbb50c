#include "heapq/answer/ask/stats.h"

#include <algorithm>

#include "heapq/analyze/dominators.h"
#include "refs.h"

namespace heapq {

Result<StatsAnswer> answer_stats(const std::string& input, const StatsOptions& options,
                                 const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(
      const LoadedDump dump,
      load_input(input, inputs, options.retained ? Needs::kGraph : Needs::kObjects));
  std::optional<HeapDominators> dominators;
  if (options.retained) dominators = HeapDominators::compute(dump.graph);
  return stats_answer(dump, dominators ? &*dominators : nullptr, options);
}

StatsAnswer stats_answer(const LoadedDump& dump, const HeapDominators* dominators,
                         const StatsOptions& options) {
  const HeapStats stats = compute_stats(dump.graph, options.sort, dominators, options.top);
  StatsAnswer a;
  a.input = summarize(dump);
  a.objects = stats.objects;
  a.bytes = stats.bytes;
  for (const TypeTotals& t : stats.by_type)
    a.by_type.push_back({std::string(object_type_name(t.type)), t.count, t.bytes});
  a.classes = stats.by_class.size();
  for (size_t i = 0; i < stats.by_class.size() && i < options.top; ++i) {
    const ClassTotals& c = stats.by_class[i];
    a.by_class.push_back(
        {std::string(dump.graph.class_name(c.cls)), c.count, c.bytes, c.retained_bytes});
  }
  return a;
}

}  // namespace heapq
