// HeapGraph: the compact in-memory model of one heap dump that every analysis reads.
//
// Objects have dense ids 0..n-1 in dump order. Per-object fields are stored as parallel arrays
// (struct of arrays); references are a CSR edge list. GC roots hang off a virtual root, node n
// of the CSR (virtual_root()), whose references are the ROOT records' targets; roots() gives
// their categories. Class, site and string ids index the class, site and string tables.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "heapq/base/ids.h"
#include "heapq/model/packed_column.h"
#include "heapq/read/object_type.h"
#include "heapq/read/string_table.h"

namespace heapq {

// An allocation site: where an object was allocated (tracing fields of the dump).
struct Site {
  StringId file;
  uint32_t line = 0;  // 0: the dump gives none (allocated by C code); Ruby counts from 1
  StringId method;    // none when the dump has no method for the object
};

// How the name of a profiler's own objects ends ("ObjectTracing/allocation_info_tracer ...").
inline constexpr std::string_view kProfilerSuffix = " (profiler overhead)";

// Whether a class name is one made up for a class that has no name (yet): an anonymous class
// ("#<Class:0x...>", "#<Module:0x...>", a singleton class of one) or one the dump lacks
// ("(unknown class 0x...)").
bool is_made_up_class_name(std::string_view name);

// A class as objects refer to it. Pseudo classes (for objects that have none, such as IMEMO
// records) have address 0 and no object.
struct ClassInfo {
  uint64_t address = 0;
  ObjectId object;  // the CLASS/MODULE record, none when the dump lacks it
  StringId name;
  bool profiler = false;  // a profiler's own objects (the allocation tracer): not the program's
};

// One reference from the virtual root: a GC root category and the object it holds.
struct RootEdge {
  StringId category;  // "vm", "global_tbl", "machine_context", ...
  ObjectId target;
  StringId name;  // what holds it in the category, where the dump says (memprof: "finalizers of
                  // Foo", "$LOAD_PATH"); none otherwise
};

// A STRING's value (LoadOptions::values): the bytes as the dump has them, which memprof cuts
// at its strings: limit (then value.size() < bytesize, and hash identifies the whole value).
struct StringValue {
  ObjectId object;
  std::string_view value;  // held by the graph
  uint64_t bytesize = 0;
  uint64_t hash = 0;  // memprof's value_hash of a cut value; 0: none
  bool frozen = false;
  bool interned = false;  // an fstring: Ruby's table of deduplicated strings holds it
};

// Object ids by address over an address column: an open-addressing table of 4-byte cells, 5.3
// bytes an object when full (heap_graph.cc). The graph builder fills a graph's as objects come
// (a repeated address is found so), and frees it once every reference is resolved; the graph
// builds it again the first time it looks an address up. One that looks up many addresses once
// (matching the objects of two dumps) may build its own and free it with the rest of its state.
// The column is given to each call: it is the one the index was built over, which may have
// moved since with its graph.
class AddressIndex {
 public:
  AddressIndex() = default;
  // Over a whole column; of records that repeat an address, the first is the one found.
  explicit AddressIndex(const AddressColumn& addresses);
  // Appends to `addresses`, as the next objects, those of `fresh` the index does not have yet;
  // the positions in `fresh` of the others (an address already indexed or earlier in `fresh`)
  // go to `repeats`. A full table grows to about `expected` objects (0: unknown).
  void add_new(AddressColumn& addresses, std::span<const uint64_t> fresh, size_t expected,
               std::vector<uint32_t>& repeats);
  std::optional<ObjectId> find(const AddressColumn& addresses, uint64_t address) const;
  // Hints for a run of finds: ask for the cell of an address some finds ahead, then for its
  // object's address a few finds later, so that each find waits for memory no more.
  void prefetch_cell(uint64_t address) const;
  void prefetch_object(const AddressColumn& addresses, uint64_t address) const;

 private:
  // An empty table with room for `limit` objects, then the column's first `objects` put in.
  void rebuild(const AddressColumn& addresses, size_t objects, size_t limit);

  std::vector<uint32_t> cells_;
  size_t limit_ = 0;    // the most objects the table holds before it grows (3/4 of the cells)
  size_t objects_ = 0;  // in the table: ids 0 .. objects_ - 1
};

class HeapGraph {
 public:
  HeapGraph() = default;
  // Moved, never copied: a copy would share the address index's once-flag and not its table.
  HeapGraph(HeapGraph&&) = default;
  HeapGraph& operator=(HeapGraph&&) = default;
  HeapGraph(const HeapGraph&) = delete;
  HeapGraph& operator=(const HeapGraph&) = delete;

  size_t object_count() const { return address_.size(); }
  // Edges between objects and from the virtual root.
  size_t edge_count() const { return edge_target_.size(); }

  // The node above every GC root; not an object (no address, type, class or size).
  ObjectId virtual_root() const { return ObjectId(static_cast<uint32_t>(object_count())); }
  // The CSR arrays over object_count() + 1 nodes, the virtual root last, for algorithms.
  std::span<const uint32_t> edge_begin() const { return edge_begin_; }
  std::span<const uint32_t> edge_targets() const { return edge_target_; }

  uint64_t address(ObjectId o) const { return address_[o.value()]; }
  ObjectType type(ObjectId o) const { return type_[o.value()]; }
  ClassId class_of(ObjectId o) const { return class_of_[o.value()]; }
  uint64_t memsize(ObjectId o) const { return memsize_[o.value()]; }
  SiteId site(ObjectId o) const { return site_.empty() ? SiteId::none() : site_[o.value()]; }
  // memprof's Procs: where the block is written (a Proc's allocation site is where the block
  // became a Proc, often inside a library); none for other objects.
  SiteId block_site(ObjectId o) const {
    auto it = block_sites_.find(o.value());
    return it == block_sites_.end() ? SiteId::none() : it->second;
  }
  // Where the object's code is: a Proc's block when the dump has it and the block became a
  // Proc on another line (handed to a library's subscribe), else the allocation site, which for
  // `at_exit { }` or `lambda { }` names what made the Proc as ObjectSpace's dumps do. What sites
  // and leaks group by.
  SiteId source_site(ObjectId o) const {
    const SiteId b = block_sites_.empty() ? SiteId::none() : block_site(o);
    const SiteId s = site(o);
    if (!b.valid() || (s.valid() && site_info(s).file == site_info(b).file &&
                       site_info(s).line == site_info(b).line))
      return s;
    return b;
  }
  // memprof's allocation stacks: o's stack as sites, innermost (the allocation) first, frames
  // of Ruby code only; empty when the dump has none for o. has_stacks(): some object has one.
  std::span<const SiteId> stack(ObjectId o) const {
    if (stack_.empty() || stack_[o.value()] == 0) return {};
    const uint32_t s = stack_[o.value()];
    return {stack_sites_.data() + stack_begin_[s], stack_sites_.data() + stack_begin_[s + 1]};
  }
  bool has_stacks() const { return !stack_.empty(); }
  // The stacks by number, as the store keeps them: o's (0: none), how many (numbers
  // 1 .. stack_count() - 1), one's frames; and every Proc's block site, by object.
  uint32_t stack_number(ObjectId o) const { return stack_.empty() ? 0 : stack_[o.value()]; }
  uint32_t stack_count() const {
    return stack_begin_.empty() ? 0 : static_cast<uint32_t>(stack_begin_.size() - 1);
  }
  std::span<const SiteId> stack_frames(uint32_t s) const {
    return {stack_sites_.data() + stack_begin_[s], stack_sites_.data() + stack_begin_[s + 1]};
  }
  const std::unordered_map<uint32_t, SiteId>& block_sites() const { return block_sites_; }
  // The line of the application that made o: the innermost frame of its stack outside gems and
  // Ruby's library (the allocation site itself when that is the application's); none without a
  // stack, or when every frame is a library's.
  SiteId app_site(ObjectId o) const {
    return stack_.empty() ? SiteId::none() : stack_app_site_[stack_[o.value()]];
  }
  uint32_t generation(ObjectId o) const { return generation_.empty() ? 0 : generation_[o.value()]; }
  // memprof's allocation sequence number (unique within a process, increasing); 0 when the
  // object has none. has_seq(): some object of the dump has one.
  uint64_t seq(ObjectId o) const { return seq_.empty() ? 0 : seq_[o.value()]; }
  bool has_seq() const { return !seq_.empty(); }

  // What o references; o may be the virtual root.
  IdRange<ObjectId> references(ObjectId o) const {
    return {edge_target_.data() + edge_begin_[o.value()],
            edge_target_.data() + edge_begin_[o.value() + 1]};
  }
  // Name of the i-th reference of o ("@ivar", "[3]", ...); none when the dump has no name.
  StringId reference_name(ObjectId o, size_t i) const {
    return edge_name(static_cast<uint32_t>(edge_begin_[o.value()] + i));
  }
  bool has_reference_names() const { return !edge_name_.empty(); }
  // The name of a reference by its index into edge_targets(); none when the dump has no name.
  StringId edge_name(uint32_t edge) const {
    return edge_name_.empty() ? StringId::none() : edge_name_[edge];
  }

  // The virtual root's references with their categories, in the order of
  // references(virtual_root()).
  std::span<const RootEdge> roots() const { return roots_; }
  // The Arrays of finalizers whose object is dead (the loader took them out of the roots):
  // garbage in waiting; the next GC runs them.
  std::span<const ObjectId> dead_finalizers() const { return dead_finalizers_; }

  // Whether o's references do not keep their targets alive (ObjectSpace::WeakMap and its
  // kind: DATA objects whose struct is a weak map).
  bool holds_weakly(ObjectId o) const { return weak_holder_[o.value()]; }
  // Whether the references out of a node (an object's index, or the virtual root's) keep their
  // targets alive: those of every node but a weak holder.
  bool retains_from(uint32_t node) const {
    return node >= object_count() || !holds_weakly(ObjectId(node));
  }

  // Whether o's last reference is its class, added by heapq: ObjectSpace dumps leave out the
  // reference from an object to its class, which keeps the class alive all the same.
  bool added_class_edge(ObjectId o) const { return added_class_edge_[o.value()]; }
  bool has_weak_holders() const { return weak_holders_ > 0; }

  const ClassInfo& class_info(ClassId c) const { return classes_[c.value()]; }
  size_t class_count() const { return classes_.size(); }
  std::string_view class_name(ClassId c) const {
    return c.valid() ? strings_[classes_[c.value()].name] : std::string_view("(no class)");
  }

  // The name of a CLASS or MODULE record as a class ("Foo", "#<Class:Foo>"); none for other
  // objects. A class without instances has a name too, though no ClassId.
  StringId own_name(ObjectId o) const {
    auto it = record_names_.find(o.value());
    return it == record_names_.end() ? StringId::none() : it->second;
  }

  const Site& site_info(SiteId s) const { return sites_[s.value()]; }
  size_t site_count() const { return sites_.size(); }

  // STRING values, when loaded with LoadOptions::values: by object, in dump order.
  std::span<const StringValue> string_values() const { return string_values_; }

  const StringTable& strings() const { return strings_; }
  std::string_view string(StringId s) const { return s.valid() ? strings_[s] : std::string_view(); }

  // The object at this address, if the dump has one. The address index is built on the first
  // call (commands such as stats never need it); calls from several threads are safe.
  std::optional<ObjectId> find(uint64_t address) const;
  // Every object's address, in id order (for an AddressIndex of one's own).
  const AddressColumn& addresses() const { return address_; }
  // AddressIndex's hints for a run of finds; both build the index first if need be, as find
  // does.
  void prefetch_cell(uint64_t address) const;
  void prefetch_object(uint64_t address) const;

  // Frees the references (every object's and the roots' edges; roots() stays): an older dump
  // that is compared by its objects alone, its reachability taken first.
  void drop_references();

 protected:
  // Filled by GraphBuilder (heapq/model/graph_builder.h) alone, through a class of its own
  // derived from this one: nothing else derives from HeapGraph (scripts/lint).

  // Per object fields in as few bytes as their values need (packed_column.h); site_ and
  // generation_ are empty when no object has one (a dump without allocation tracing).
  AddressColumn address_;
  std::vector<ObjectType> type_;
  PackedIds<ClassId> class_of_;
  PackedSizes memsize_;
  PackedIds<SiteId> site_;
  PackedColumn generation_;
  // Drops site_ and generation_ when they hold nothing.
  void drop_empty_fields();
  std::vector<uint64_t> seq_;  // empty when the dump has no seq
  // Allocation stacks: per object an index into the stacks (0: none), empty without stacks;
  // stack s's frames are stack_sites_[stack_begin_[s] .. stack_begin_[s + 1]).
  std::vector<uint32_t> stack_;
  std::vector<uint32_t> stack_begin_;
  std::vector<SiteId> stack_sites_;
  std::vector<SiteId> stack_app_site_;  // per stack

  std::vector<uint32_t> edge_begin_;   // object_count() + 2 offsets (the virtual root last)
  std::vector<uint32_t> edge_target_;  // ObjectId values
  std::vector<StringId> edge_name_;    // parallel to edge_target_, empty without names
  std::vector<bool> weak_holder_;
  size_t weak_holders_ = 0;
  std::vector<bool> added_class_edge_;

  std::vector<RootEdge> roots_;
  std::vector<ObjectId> dead_finalizers_;
  std::vector<ClassInfo> classes_;
  std::vector<Site> sites_;
  std::unordered_map<uint32_t, StringId> record_names_;
  std::unordered_map<uint32_t, SiteId> block_sites_;  // by object (memprof Procs)
  StringTable strings_;
  std::vector<StringValue> string_values_;
  std::deque<std::vector<char>> value_bytes_;  // their bytes, a block a chunk; never repaired

  // Builds the address index now, unless built (or filled by the builder) already.
  void build_address_index() const;
  // The builder filled the index as objects came: it is built.
  void address_index_built() {
    std::call_once(*index_once_, [] {});
  }
  // Frees the index once the load has resolved every address: most analyses never look an
  // address up, and those that do (matching dumps, an address target) build it again. Only
  // while no other thread uses the graph.
  void drop_address_index();

  mutable AddressIndex address_index_;
  mutable std::shared_ptr<std::once_flag> index_once_ = std::make_shared<std::once_flag>();
};

// The objects the roots reach (references held by weak maps do not count), by object id.
// O(objects + references).
std::vector<bool> reachable_from_roots(const HeapGraph& graph);
// The same from the nodes `starts` (the virtual root among them, or not), reaching but never
// going through the objects not_through marks (by object; empty: none).
std::vector<bool> reachable_from(const HeapGraph& graph, std::vector<uint32_t> starts,
                                 const std::vector<bool>& not_through);

}  // namespace heapq
