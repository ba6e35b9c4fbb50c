// GraphBuilder: the one way to make a HeapGraph. The dump loader (model/src/chunk_loader.h)
// and the store reader (store/src/read_dump.h) fill it with typed operations; it checks
// what it is given as it comes (ids in range, objects and references in id order), so that
// neither a damaged dump nor a store a stranger wrote can make an inconsistent graph. A call
// that fails returns what was wrong; the caller names the input and drops the builder.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "heapq/base/result.h"
#include "heapq/model/heap_graph.h"

namespace heapq {

// One object's fields, in the order add_objects takes objects: its id is its position.
struct ObjectFields {
  uint64_t address = 0;
  uint64_t memsize = 0;
  uint64_t seq = 0;  // memprof's allocation sequence number; 0: none
  ClassId class_id;  // a class added before
  SiteId site;       // a site added before; none: the dump gives none
  uint32_t generation = 0;
  uint32_t stack = 0;  // the id of a stack that add_stack defines (then or later); 0: none
  ObjectType type = ObjectType::kUnknown;
  bool has_seq = false;  // the dump has seq numbers, 0 among them (HeapGraph::has_seq)
};

// Every object's fields at once, a column each, packed as the graph keeps them (a store's
// graph_columns): object i's are the i-th values; stack is empty when no object has one.
struct ObjectColumns {
  AddressColumn address;
  std::vector<ObjectType> type;
  PackedIds<ClassId> class_of;  // classes added before
  PackedSizes memsize;
  PackedIds<SiteId> site;  // sites added before, or none
  PackedColumn generation;
  std::vector<uint32_t> stack;  // as ObjectFields::stack
};

// The references of consecutive objects: object first + k's are targets[begin[k] ..
// begin[k + 1]), object ids, with their names parallel to them (empty: none named);
// class_edges lists the k whose last reference is the class edge heapq added
// (HeapGraph::added_class_edge).
struct ReferenceBlock {
  ObjectId first = ObjectId(0);
  std::vector<uint32_t> begin{0};
  std::vector<uint32_t> targets;
  std::vector<StringId> names;
  std::vector<uint32_t> class_edges;
};

class GraphBuilder {
 public:
  // kUnique: addresses are indexed as objects come, and an object at an address an earlier one
  // has is left out (a dump's records); kAsGiven: kept as given (a store's rows), the index
  // built when the graph first looks an address up. app_root: LoadOptions::app_root, which
  // tells the stacks' application frames.
  enum class Addresses { kAsGiven, kUnique };
  explicit GraphBuilder(std::string_view app_root = {}, Addresses addresses = Addresses::kAsGiven);
  GraphBuilder(GraphBuilder&&) noexcept;
  GraphBuilder& operator=(GraphBuilder&&) noexcept;
  ~GraphBuilder();

  // The graph so far, to read while building: its tables and objects; its references once a
  // root is added; find() with kUnique, or once every object is in.
  const HeapGraph& graph() const;

  // Strings, classes and sites, at any time; ids from 0 in the order they are added.
  StringId intern(std::string_view s);
  ClassId add_class(const ClassInfo& info);  // its name and object are checked by build()
  Status set_class(ClassId c, const ClassInfo& info);
  Result<SiteId> add_site(const Site& site);
  // Every object of class c becomes one of class to[c] (a singleton class's, its real class's).
  Status move_objects_to_classes(const std::vector<ClassId>& to);

  // Objects, before any reference or root. With kUnique, the positions of those left out go to
  // repeats, and `expected` (how many objects the input holds, 0: unknown) sizes the index.
  void reserve(size_t objects);
  Status add_objects(std::span<const ObjectFields> objects,
                     std::vector<uint32_t>* repeats = nullptr, size_t expected = 0);
  // The same for every object at once, the columns taken whole (no copy): on a kAsGiven
  // builder that has no objects yet, checked as add_objects checks, their sizes equal.
  Status add_object_columns(ObjectColumns columns);

  // Objects' references, blocks in id order (objects between blocks have none), before the
  // roots. With name_references(), every reference has a name (none where the input gives
  // none), a root's its category; called before the first block.
  void name_references();
  void reserve_references(size_t edges);
  Status add_references(ReferenceBlock block);
  // The GC roots, the virtual root's references in order; the first closes the objects'.
  Status add_root(const RootEdge& root);
  // Takes the roots dead[i] marks out of roots() into dead_finalizers() (Arrays of finalizers
  // whose object is dead: garbage in waiting).
  Status drop_dead_finalizer_roots(const std::vector<bool>& dead);

  Status add_weak_holder(ObjectId o);
  Status add_record_name(ObjectId o, StringId name);  // the first name of o stays
  Status add_block_site(ObjectId o, SiteId site);     // the first site of o stays
  // An allocation stack, frames innermost first; the first definition of an id stays.
  Status add_stack(uint32_t id, std::span<const SiteId> frames);
  // STRING values: their bytes kept by the graph (returned as the graph holds them), then each
  // value (a view into bytes kept).
  std::string_view keep_value_bytes(std::vector<char> bytes);
  Status add_string_value(const StringValue& value);

  // Checks what is left to check (classes' names and objects), resolves the objects' stack ids
  // (an id no stack defines is none) and returns the graph; the builder is empty afterwards.
  Result<HeapGraph> build();

 private:
  class Graph;  // a HeapGraph whose columns it fills
  std::unique_ptr<Graph> g_;
};

}  // namespace heapq
