#include "heapq/answer/store_analyses.h"

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/retainers.h"

namespace heapq {

namespace {

class StoreAnalyses : public DumpAnalyses {
 public:
  explicit StoreAnalyses(const HeapGraph& g)
      : dom_(HeapDominators::compute(g)), paths_(ShortestPathTree::compute(g)) {}
  ObjectId idom(ObjectId o) const override { return dom_.idom(o); }
  uint64_t retained_bytes(ObjectId o) const override { return dom_.retained_bytes(o); }
  uint32_t retained_count(ObjectId o) const override { return dom_.retained_count(o); }
  uint32_t distance(ObjectId o) const override { return paths_.distance(o); }
  uint64_t unreachable_count() const override { return dom_.unreachable_count(); }
  uint64_t unreachable_bytes() const override { return dom_.unreachable_bytes(); }

 private:
  HeapDominators dom_;
  ShortestPathTree paths_;  // distance: fewest references from the roots
};

}  // namespace

PendingAnalyses analyses_for_store(const HeapGraph& graph) {
  return std::async(std::launch::async, [&graph]() -> std::unique_ptr<const DumpAnalyses> {
    return std::make_unique<StoreAnalyses>(graph);
  });
}

}  // namespace heapq
