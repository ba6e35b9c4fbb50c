// The heap walk: META, ROOT records, one record per live object, END, written to a JsonSink.
#pragma once

#include <ruby.h>

#include <string>
#include <utility>
#include <vector>

#include "class_names.h"
#include "json_sink.h"
#include "reachable_set.h"
#include "ref_names.h"

namespace memprof {

class AllocTracker;

// An object type's name as a JSON string, quotes included ("\"STRING\"").
std::string_view QuotedTypeName(int type);

// GC roots as rb_objspace_reachable_objects_from_root reports them: (category, object).
using RootList = std::vector<std::pair<const char*, VALUE>>;

// What a forked child inherits from the parent that forked it (see lib/memprof.rb).
struct ParentRoots {
  RootList roots;              // what the parent's other threads held just before fork(2)
  unsigned other_threads = 0;  // threads of the parent that the child does not have
};

struct DumpOptions {
  long string_limit = 1024;             // most bytes of a String's value written; < 0: no values
  bool gzip = false;                    // the sink compresses (dump_all only)
  const ParentRoots* parent = nullptr;  // a child of fork: true, when the parent had threads
  long pid = 0;                         // META's: the process whose heap this is
  bool reachable_only = false;          // write only what the roots reach (a fork child)
};

// Ruby context, GC disabled: what the given Thread objects hold (stacks, locals), as
// "thread" roots.
void CaptureThreadRoots(const std::vector<VALUE>& threads, RootList& roots);

class HeapDumper {
 public:
  HeapDumper(JsonSink& sink, const DumpOptions& options, const AllocTracker& tracker);

  // Ruby context, GC disabled from here to the end of the dump: gathers what needs Ruby's
  // allocator (constant tables) so that the walk itself never calls it. Never raises but
  // NoMemoryError, never runs Ruby code.
  void Prepare(VALUE only = Qundef);
  void DumpAll();              // the whole heap; stops early on a write error
  void DumpObject(VALUE obj);  // one record

  static void Init();  // interns IDs; Ruby context

 private:
  static int OnPage(void* start, void* end, size_t stride, void* data);
  static void OnReference(VALUE ref, void* data);
  static void OnReferenceToName(VALUE ref, void* data);
  static void OnRoot(const char* category, VALUE ref, void* data);

  void CollectRoots();
  void WriteMeta();
  void WriteRoots();
  void WriteRootRecords(const RootList& roots, const char* prefix);
  using FinalizerOwners = std::vector<std::pair<VALUE, VALUE>>;  // (finalizers, their object)
  static FinalizerOwners FinalizerTableOwners();
  void WriteFinalizerOwners(const FinalizerOwners& owners, const RootList& roots, size_t first,
                            size_t end);
  void WriteRootNames(const char* category, const RootList& roots, size_t first, size_t end,
                      const FinalizerOwners& owners);
  void WriteTypeFields(VALUE obj, int type, VALUE klass);
  void WriteStringFields(VALUE obj);
  void WriteImemoFields(VALUE obj);
  void WriteSlotFields(VALUE obj);
  void WriteId(ID id);
  void WriteShapes();
  void WriteClassFields(VALUE obj, int type);
  void WriteReferences(VALUE obj, int type, VALUE klass);
  void WriteReferenceName(VALUE ref);
  void WriteAllocationSite(VALUE obj);
  void WriteStacks();
  void WriteFlags(VALUE obj);

  JsonSink& sink_;
  DumpOptions options_;
  const AllocTracker& tracker_;
  ClassNames class_names_;
  ConstantTable constants_;
  ReferenceNamer namer_;
  std::vector<VALUE> refs_;       // one record's, up to kHeldReferences
  bool streamed_ = false;         // the record's references went out as the GC reported them
  VALUE skip_once_ = 0;           // the class, which the GC reports among the references
  std::string name_;              // one reference's name
  bool stacks_ = false;           // the dump writes the stack table (DumpAll)
  std::vector<bool> stack_used_;  // by stack id: an object of the dump names it
  RootList roots_;
  ReachableSet reachable_;
  bool reachable_only_ = false;  // the walk skips what reachable_ lacks
  int64_t compact_count_ = -1;   // GC.stat(:compact_count) before the walk; -1: unknown
  size_t slot_size_ = 0;         // the walk's current page's; 0: ask Ruby (one object)
};

}  // namespace memprof
