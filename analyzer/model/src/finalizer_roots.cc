// The finalizer table as the GC treats it: it keeps every Array of finalizers alive but not
// the object each is for. Once that object dies, the next GC queues its finalizers and the
// table lets go of them: until then they are garbage in waiting, not what the program holds.
#include <algorithm>

#include "chunk_loader.h"

namespace heapq {

// One round of the GC: marks from every root, the finalizers included (as the GC does, so that
// a finalizer holding its own object keeps it alive, as it does in Ruby), then drops the entries
// whose object went unmarked, was left out of the dump (memprof writes only what the roots
// reach) or was swept already (a ZOMBIE). O(objects + references).
Result<uint64_t> ChunkLoader::drop_dead_finalizers(GraphBuilder& b,
                                                   const std::vector<FinalizerOwner>& owners) {
  if (owners.empty()) return uint64_t{0};
  const HeapGraph& g = b.graph();
  const std::vector<bool> alive = reachable_from_roots(g);
  std::vector<bool> dead(g.roots().size(), false);
  uint64_t count = 0;
  for (const FinalizerOwner& f : owners) {
    const bool gone =
        !f.owner.valid() || !alive[f.owner.value()] || g.type(f.owner) == ObjectType::kZombie;
    if (gone && !dead[f.root]) {
      dead[f.root] = true;
      ++count;
    }
  }
  if (count == 0) return uint64_t{0};
  HEAPQ_RETURN_IF_ERROR(b.drop_dead_finalizer_roots(dead));
  return count;
}

}  // namespace heapq
