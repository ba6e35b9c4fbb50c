// Turns parsed chunks into a HeapGraph as they come, through a GraphBuilder: assigns ids,
// resolves addresses, names classes.
#pragma once

#include <memory>
#include <vector>

#include "heapq/model/graph_builder.h"
#include "heapq/read/load_report.h"
#include "heapq/read/parsed_chunk.h"

namespace heapq {

class ChunkLoader {
 public:
  // references: without them the graph has the objects and the roots only. app_root:
  // LoadOptions::app_root. input_bytes: the input's size where known (0: unknown), which with
  // the first chunk's size tells how many objects to make room for.
  ChunkLoader(unsigned threads, bool references, LoadReport& report, std::string_view app_root,
              uint64_t input_bytes = 0);
  ~ChunkLoader();

  // Takes in one chunk's records, chunks in dump order, as soon as each is parsed: the objects
  // join the graph and the chunk keeps nothing the graph needs, so that it can be freed at
  // once. A record at an address an earlier one has becomes a bad line of the chunk (the first
  // is the object). References are resolved in finish(), when every object is known.
  void add(ParsedChunk& chunk);

  // Resolves references and roots (on up to `threads` threads) and names classes. Reads
  // report.format (ObjectSpace dumps leave out the class edges, which are added). What the
  // builder refused, in add() or here, is the error.
  Result<HeapGraph> finish();

  // Exposed for class_names.cc, which completes the class table once objects are in place.
  static Status name_classes(GraphBuilder& builder, const std::vector<ClassRecord>& records,
                             const std::vector<ObjectLabel>& class_names);

  // A root reference to an Array of finalizers (its index in roots()) and the object it is
  // for, none when the dump does not have that object.
  struct FinalizerOwner {
    uint32_t root = 0;
    ObjectId owner;
  };
  // Exposed for finalizer_roots.cc: takes out of the roots the finalizers of objects the GC
  // would find dead (which the finalizer table holds only until they have run) and returns how
  // many (HeapGraph::dead_finalizers keeps them). Every root is in the builder.
  static Result<uint64_t> drop_dead_finalizers(GraphBuilder& builder,
                                               const std::vector<FinalizerOwner>& owners);

 private:
  class Loader;
  std::unique_ptr<Loader> loader_;
};

}  // namespace heapq
