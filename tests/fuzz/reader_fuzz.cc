// libFuzzer target: any bytes through the reader and every analysis, which must never crash,
// hang or read out of bounds. Build and run with tests/fuzz/run.sh (needs clang).
#include <cstdint>
#include <string>

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/retainers.h"
#include "heapq/analyze/sites.h"
#include "heapq/analyze/stats.h"
#include "heapq/model/load.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  for (bool strict : {false, true}) {
    heapq::LoadOptions options;
    options.strict = strict;
    options.threads = 1 + size % 2;
    options.chunk_bytes = 1 + size % 97;  // odd chunk sizes split lines everywhere
    auto input = heapq::memory_input(bytes, "fuzz.json");
    heapq::LoadReport report;
    auto graph = heapq::load_dump(*input, options, report);
    if (!graph) continue;
    const heapq::HeapGraph& g = *graph;
    heapq::HeapDominators dominators = heapq::HeapDominators::compute(g);
    heapq::compute_stats(g, heapq::SortKey::kBytes, &dominators, SIZE_MAX);
    heapq::compute_sites(g, heapq::SiteGrouping::kGem, heapq::SortKey::kCount, &dominators,
                         SIZE_MAX);
    heapq::ShortestPathTree tree = heapq::ShortestPathTree::compute(g);
    heapq::Referrers referrers = heapq::Referrers::build(g);
    for (uint32_t i = 0; i < g.object_count() && i < 8; ++i) {
      heapq::holder_paths(g, referrers, heapq::ObjectId(i), 3, 16);
      tree.path_to(g, heapq::ObjectId(i), 4);
      dominators.children(heapq::ObjectId(i));
    }
    std::vector<heapq::ObjectId> everything;
    for (uint32_t i = 0; i < g.object_count(); ++i) everything.push_back(heapq::ObjectId(i));
    heapq::merge_paths(g, tree, everything, 8);
  }
  return 0;
}
