// Loading a heap dump (Ruby's ObjectSpace.dump_all or memprof JSONL) into a HeapGraph: the
// reader parses, the model builds.
#pragma once

#include "heapq/base/result.h"
#include "heapq/model/heap_graph.h"
#include "heapq/read/byte_source.h"
#include "heapq/read/load_report.h"

namespace heapq {

// Reads a whole dump. Fails (exit status 2 or 3) on unreadable input, or in strict mode on the
// first problem, with a message "NAME:LINE: what was wrong".
Result<HeapGraph> load_dump(ByteSource& input, const LoadOptions& options, LoadReport& report);

}  // namespace heapq
