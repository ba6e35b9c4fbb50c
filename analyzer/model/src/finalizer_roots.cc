// The finalizer table as the GC treats it: it keeps every Array of finalizers alive but not
// the object each is for. Once that object dies, the next GC queues its finalizers and the
// table lets go of them: until then they are garbage in waiting, not what the program holds.
#include <algorithm>

#include "graph_builder.h"

namespace heapq {

// One round of the GC: marks from every root, the finalizers included (as the GC does, so that
// a finalizer holding its own object keeps it alive, as it does in Ruby), then drops the entries
// whose object went unmarked, was left out of the dump (memprof writes only what the roots
// reach) or was swept already (a ZOMBIE). O(objects + references).
uint64_t GraphBuilder::drop_dead_finalizers(HeapGraph& g,
                                            const std::vector<FinalizerOwner>& owners) {
  if (owners.empty()) return 0;
  const std::vector<bool> alive = reachable_from_roots(g);
  std::vector<bool> dead(g.roots_.size(), false);
  uint64_t count = 0;
  for (const FinalizerOwner& f : owners) {
    const bool gone =
        !f.owner.valid() || !alive[f.owner.value()] || g.type(f.owner) == ObjectType::kZombie;
    if (gone && !dead[f.root]) {
      dead[f.root] = true;
      ++count;
    }
  }
  if (count == 0) return 0;
  // The virtual root's references are the last of the CSR, in the order of roots().
  const size_t first = g.edge_begin_[g.object_count()];
  size_t out = 0;
  for (size_t i = 0; i < g.roots_.size(); ++i) {
    if (dead[i]) {
      g.dead_finalizers_.emplace_back(g.edge_target_[first + i]);
      continue;
    }
    g.roots_[out] = g.roots_[i];
    g.edge_target_[first + out] = g.edge_target_[first + i];
    if (!g.edge_name_.empty()) g.edge_name_[first + out] = g.edge_name_[first + i];
    ++out;
  }
  g.roots_.resize(out);
  g.edge_target_.resize(first + out);
  if (!g.edge_name_.empty()) g.edge_name_.resize(first + out);
  g.edge_begin_.back() = static_cast<uint32_t>(first + out);
  return count;
}

}  // namespace heapq
