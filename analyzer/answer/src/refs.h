// The parts answers share (answer/common.h), resolved from a loaded dump and its graph.
#pragma once

#include <optional>
#include <string>

#include "heapq/analyze/retainers.h"
#include "heapq/answer/common.h"
#include "heapq/answer/inputs.h"
#include "heapq/model/heap_graph.h"

namespace heapq {

InputSummary summarize(const LoadedDump& dump);

// Said when objects were matched by address (by_address) across dumps between which GC
// compaction ran (memprof's META compact_count): a moved object then counts as born and freed.
std::optional<std::string> compaction_warning(const DumpOrigin& before, const DumpOrigin& after,
                                              bool by_address);

ObjectRef object_ref(const HeapGraph& g, ObjectId o);
std::optional<SiteRef> site_ref(const HeapGraph& g, SiteId s);
PathRef path_ref(const HeapGraph& g, const RetentionPath& path);

}  // namespace heapq
