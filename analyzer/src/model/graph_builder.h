// Turns parsed chunks into a HeapGraph: assigns ids, resolves addresses, names classes.
#pragma once

#include <memory>
#include <vector>

#include "heapq/heap_graph.h"
#include "heapq/load.h"
#include "read/parsed_chunk.h"

namespace heapq {

class GraphBuilder {
 public:
  // Consumes the chunks (their memory is released as the graph fills) in dump order, on up to
  // `threads` threads. Without references the graph has the objects and the roots only.
  // app_root: LoadOptions::app_root.
  static HeapGraph build(std::vector<std::unique_ptr<ParsedChunk>>& chunks, unsigned threads,
                         bool references, LoadReport& report, std::string_view app_root = {});

  // Exposed for class_names.cc, which completes the class table once objects are in place.
  static void name_classes(HeapGraph& graph, const std::vector<ClassRecord>& records,
                           const std::vector<ObjectLabel>& class_names);

 private:
  class Builder;  // the stages of build(); a member so that it may fill HeapGraph's arrays
};

}  // namespace heapq
