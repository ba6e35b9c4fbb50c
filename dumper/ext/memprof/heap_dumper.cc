// The heap walk: META, ROOT records, one record per live object, the allocation stacks, END.
#include "heap_dumper.h"

#include <ruby/debug.h>
#include <ruby/version.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "alloc_tracker.h"
#include "process_identity.h"
#include "ruby_compat.h"
#include "vm_internals.h"

namespace memprof {
namespace {

// References a record holds before writing them (512 KiB); an object with more writes them
// as the GC reports them.
constexpr size_t kHeldReferences = 1 << 16;

struct GcFlagName {
  std::string_view name;
  ID id;
};
GcFlagName gc_flag_names[] = {{"wb_protected", 0}, {"old", 0},    {"uncollectible", 0},
                              {"marking", 0},      {"marked", 0}, {"pinned", 0}};
constexpr int kGcFlagCount = sizeof(gc_flag_names) / sizeof(gc_flag_names[0]);
// {"flag":true,...} for every combination of the known flags, rendered once.
std::string gc_flags_json[1 << kGcFlagCount];

VALUE sym_compact_count = Qnil;  // a static Symbol: never freed, never moved

}  // namespace

void HeapDumper::Init() {
  for (auto& flag : gc_flag_names)
    flag.id = rb_intern2(flag.name.data(), static_cast<long>(flag.name.size()));
  ID ids[8];
  rb_obj_gc_flags(rb_cObject, ids, 8);  // its first call interns Ruby's own IDs
  // GC.stat's first call interns its keys: done here, when memprof is loaded, so that a dump
  // adds no Symbol to the program's heap.
  sym_compact_count = ID2SYM(rb_intern("compact_count"));
  rb_gc_stat(sym_compact_count);
  for (int mask = 0; mask < (1 << kGcFlagCount); ++mask) {
    std::string& json = gc_flags_json[mask];
    json = "{";
    for (int k = 0; k < kGcFlagCount; ++k) {
      if ((mask & (1 << k)) == 0) continue;
      if (json.size() > 1) json += ',';
      json += '"';
      json += gc_flag_names[k].name;
      json += "\":true";
    }
    json += '}';
  }
}

HeapDumper::HeapDumper(JsonSink& sink, const DumpOptions& options, const AllocTracker& tracker)
    : sink_(sink), options_(options), tracker_(tracker), namer_(constants_, class_names_) {}

// Calls no Ruby method and reads no global variable: a getter ($FILENAME, $@, a C
// extension's) would run the program's code in the middle of the dump (see dumper/README.md).
void HeapDumper::Prepare(VALUE only) {
  constants_.Build(only);
  // Compactions move objects: heapq then knows that an address may have changed owner.
  compact_count_ = static_cast<int64_t>(rb_gc_stat(sym_compact_count));
  if (only == Qundef) memprof_find_vm_tables();
}

void HeapDumper::DumpAll() {
  CollectRoots();
  // Garbage left out as a full GC would free it, though without sweeping: no finalizer or
  // free function of the program runs. Out of memory for the marks, everything is written.
  reachable_only_ = options_.reachable_only && reachable_.MarkFrom(roots_) &&
                    (options_.parent == nullptr || reachable_.MarkFrom(options_.parent->roots));
  WriteMeta();
  WriteRoots();
  WriteShapes();
  stacks_ = true;
  stack_used_.assign(tracker_.Stacks().Count(), false);
  rb_objspace_each_objects(&HeapDumper::OnPage, this);
  if (sink_.Errno() == 0) WriteStacks();
  sink_.BeginRecord();
  sink_.Key("type");
  sink_.String("END");
  sink_.Key("records");
  sink_.Unsigned(sink_.Records());
  sink_.EndRecord();
}

int HeapDumper::OnPage(void* start, void* end, size_t stride, void* data) {
  auto* self = static_cast<HeapDumper*>(data);
  for (auto v = reinterpret_cast<uintptr_t>(start); v < reinterpret_cast<uintptr_t>(end);
       v += stride) {
    if (RBASIC(v)->flags == 0) continue;  // a free slot
    self->slot_size_ = stride;
    if (self->reachable_only_ && !self->reachable_.Contains(v)) continue;
    self->DumpObject(v);
  }
  return self->sink_.Errno() != 0;  // non-zero stops the walk
}

void HeapDumper::WriteMeta() {
  // To the microsecond: dumps taken within a second are ordered, and rates over them measured.
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  struct tm utc;
  gmtime_r(&now.tv_sec, &utc);
  char seconds[32], when[64];
  strftime(seconds, sizeof(seconds), "%Y-%m-%dT%H:%M:%S", &utc);
  snprintf(when, sizeof(when), "%s.%06ld+00:00", seconds, static_cast<long>(now.tv_nsec / 1000));
  sink_.BeginRecord();
  sink_.Key("type");
  sink_.String("META");
  sink_.Key("format");
  sink_.String("memprof");
  sink_.Key("version");
  sink_.Unsigned(1);
  sink_.Key("ruby_version");
  sink_.String(ruby_version);  // not the constant RUBY_VERSION, which can be removed or replaced
  const pid_t pid = options_.pid != 0 ? options_.pid : getpid();
  sink_.Key("pid");
  sink_.Unsigned(static_cast<uint64_t>(pid));
  // Which process this is across a fleet: its machine and start (a pid is reused).
  if (const std::string host = HostName(); !host.empty()) {
    sink_.Key("host");
    sink_.String(host);
  }
  if (const std::string started = ProcessStarted(pid); !started.empty()) {
    sink_.Key("started");
    sink_.String(started);
  }
  sink_.Key("time");
  sink_.String(when);
  sink_.Key("gc_count");
  sink_.Unsigned(rb_gc_count());
  if (compact_count_ >= 0) {
    sink_.Key("compact_count");
    sink_.Unsigned(static_cast<uint64_t>(compact_count_));
  }
  sink_.Key("strings");
  if (options_.string_limit < 0) {
    sink_.Bool(false);
  } else {
    sink_.Unsigned(static_cast<uint64_t>(options_.string_limit));
  }
  // What this Ruby's layouts did not let memprof name (an unknown Ruby, a failed check).
  if (memprof_vm_unnamed(0) != nullptr) {
    sink_.Key("unnamed");
    sink_.ArrayOpen();
    for (int i = 0; const char* part = memprof_vm_unnamed(i); ++i) sink_.String(part);
    sink_.ArrayClose();
  }
  if (reachable_only_) {
    sink_.Key("reachable_only");
    sink_.Bool(true);
  }
  if (options_.parent != nullptr) {
    // Ruby's fork keeps only the forking thread: what other threads' stacks held comes from
    // the parent's roots, written as "fork_parent:" ROOT records.
    sink_.Key("fork_parent");
    sink_.MapOpen();
    sink_.Key("other_threads");
    sink_.Unsigned(options_.parent->other_threads);
    sink_.Key("roots");
    sink_.Unsigned(options_.parent->roots.size());
    sink_.MapClose();
  }
  sink_.EndRecord();
}

void HeapDumper::OnRoot(const char* category, VALUE ref, void* data) {
  static_cast<HeapDumper*>(data)->roots_.emplace_back(category, ref);
}

void HeapDumper::CollectRoots() {
  roots_.clear();
  rb_objspace_reachable_objects_from_root(&HeapDumper::OnRoot, this);
  // 3.4's walk leaves out the objspace's own roots, among them the finalizer table, which the
  // GC marks all the same: they are the "finalizers" root they were before.
  static const char* const kFinalizers = "finalizers";
  for (const auto& [category, ref] : roots_) {
    if (std::strcmp(category, kFinalizers) == 0 || std::strcmp(category, "objspace") == 0) return;
  }
  memprof_finalizer_table_each(
      [](void* data, memprof_value finalizers, memprof_value) {
        static_cast<RootList*>(data)->emplace_back(kFinalizers, finalizers);
      },
      &roots_);
}

void HeapDumper::WriteRoots() {
  WriteRootRecords(roots_, "");
  if (options_.parent != nullptr) WriteRootRecords(options_.parent->roots, "fork_parent:");
}

// One record per run of the same category, as ObjectSpace writes them.
void HeapDumper::WriteRootRecords(const RootList& roots, const char* prefix) {
  std::string name;
  for (size_t i = 0; i < roots.size();) {
    const char* category = roots[i].first;
    sink_.BeginRecord();
    sink_.Key("type");
    sink_.String("ROOT");
    sink_.Key("root");
    name.assign(prefix);
    name += category;
    sink_.String(name);
    size_t first = i;
    while (i < roots.size() && roots[i].first == category) ++i;
    sink_.Key("references");
    sink_.ArrayOpen();
    for (size_t k = first; k < i; ++k) sink_.Address(roots[k].second);
    sink_.ArrayClose();
    if (*prefix == '\0') {
      const FinalizerOwners owners =
          std::strcmp(category, "finalizers") == 0 ? FinalizerTableOwners() : FinalizerOwners();
      WriteFinalizerOwners(owners, roots, first, i);
      WriteRootNames(category, roots, first, i, owners);
    }
    sink_.EndRecord();
  }
}

// The finalizer table's (hidden Array of finalizers, the object they are for) pairs, sorted:
// 16 bytes an entry of the table, which may hold millions.
HeapDumper::FinalizerOwners HeapDumper::FinalizerTableOwners() {
  FinalizerOwners owners;
  memprof_finalizer_table_each(
      [](void* data, memprof_value table, memprof_value owner) {
        static_cast<FinalizerOwners*>(data)->emplace_back(table, owner);
      },
      &owners);
  std::sort(owners.begin(), owners.end());
  return owners;
}

// The object each finalizers reference is for: the table does not keep it alive, so its Array
// waits only for the object's death (heapq then counts the entry as no root). null where the
// table has no such Array.
void HeapDumper::WriteFinalizerOwners(const FinalizerOwners& owners, const RootList& roots,
                                      size_t first, size_t end) {
  if (owners.empty()) return;
  sink_.Key("owners");
  sink_.ArrayOpen();
  for (size_t k = first; k < end; ++k) {
    const VALUE ref = roots[k].second;
    const auto owner = std::lower_bound(owners.begin(), owners.end(), std::pair(ref, VALUE(0)));
    owner != owners.end() && owner->first == ref ? sink_.Address(owner->second) : sink_.Null();
  }
  sink_.ArrayClose();
}

// Names for what three root categories hold, which no reference of the dump says. vm: the VM's
// own fields ("$LOAD_PATH", "main", "trap handler of SIGUSR2", the symbol table) and what C
// code registered. global_tbl: the global variables holding each value ("$cache").
// finalizers: the finalizer table's values, hidden Arrays of an object's finalizers, each named
// for the class of the object it is for ("finalizers of Rack::ServerStatus"; its address is in
// "owners"): by class, names are few however big the table. Nothing is written where no
// reference has a name.
void HeapDumper::WriteRootNames(const char* category, const RootList& roots, size_t first,
                                size_t end, const FinalizerOwners& owners) {
  const bool vm = std::strcmp(category, "vm") == 0;
  const bool finalizers = !owners.empty();
  const bool globals = std::strcmp(category, "global_tbl") == 0;
  if (!vm && !finalizers && !globals) return;
  std::unordered_set<VALUE> registered;  // a few thousand objects
  if (vm)
    memprof_vm_registered_each(
        [](void* data, memprof_value value) {
          static_cast<std::unordered_set<VALUE>*>(data)->insert(value);
        },
        &registered);
  // (value, a global variable's name), sorted; an alias ($> of $stdout) shares its variable.
  struct GlobalName {
    VALUE value;
    const char* name;
    bool by_getter;
    bool operator<(const GlobalName& o) const {
      return value != o.value ? value < o.value : std::strcmp(name, o.name) < 0;
    }
  };
  std::vector<GlobalName> global_names;
  if (globals) {
    memprof_global_each(
        [](void* data, memprof_value value, memprof_value id, int by_getter) {
          if (const char* name = rb_id2name(id))
            static_cast<std::vector<GlobalName>*>(data)->push_back({value, name, by_getter != 0});
        },
        &global_names);
    std::sort(global_names.begin(), global_names.end());
  }
  // The name of a reference into name_; false when it has none.
  auto name_of = [&](VALUE ref) {
    char buf[128];
    if (vm && memprof_vm_root_name(ref, buf, sizeof buf)) {
      name_.assign(buf);
      return true;
    }
    if (registered.contains(ref)) {
      const char* name = memprof_vm_registered_name(ref);
      if (name != nullptr) name_.assign(name);
      return name != nullptr;
    }
    if (globals) {
      auto it =
          std::lower_bound(global_names.begin(), global_names.end(), GlobalName{ref, "", false});
      name_.clear();
      bool by_getter = false;
      for (int shown = 0; it != global_names.end() && it->value == ref; ++it, ++shown) {
        by_getter = by_getter || it->by_getter;
        if (shown == 3) {
          name_ += ", ...";
          break;
        }
        if (shown > 0) name_ += ", ";
        name_ += it->name;
      }
      // ARGF behind $* (which gives ARGV): what the variables' getters read, not their value.
      if (by_getter) name_ += " (what their getter reads)";
      return !name_.empty();
    }
    const auto owner = std::lower_bound(owners.begin(), owners.end(), std::pair(ref, VALUE(0)));
    if (owner == owners.end() || owner->first != ref) return false;
    const VALUE klass = RBASIC(owner->second)->klass;
    if (klass == 0 || !ClassNames::IsClassLike(klass)) return false;
    name_.assign("finalizers of ");
    name_ += class_names_.Of(klass);
    return true;
  };
  // A first pass finds whether any has a name, the second writes them: no list of names is
  // kept, however many references the root holds.
  size_t named = first;
  while (named < end && !name_of(roots[named].second)) ++named;
  if (named == end) return;
  sink_.Key("reference_names");
  sink_.ArrayOpen();
  for (size_t k = first; k < end; ++k)
    name_of(roots[k].second) ? sink_.String(name_) : sink_.Null();
  sink_.ArrayClose();
}

// Ruby context, GC disabled: what each of threads holds (its VM stack, its machine stack read
// conservatively, its locals), as the GC marks a Thread.
void CaptureThreadRoots(const std::vector<VALUE>& threads, RootList& roots) {
  roots.clear();
  for (VALUE thread : threads) {
    rb_objspace_reachable_objects_from(
        thread,
        [](VALUE ref, void* data) { static_cast<RootList*>(data)->emplace_back("thread", ref); },
        &roots);
  }
}

void HeapDumper::DumpObject(VALUE obj) {
  int type = BUILTIN_TYPE(obj);
  VALUE klass = RBASIC(obj)->klass;
  sink_.BeginRecord();
  sink_.Key("address");
  sink_.Address(obj);
  sink_.Key("type");
  sink_.JsonText(QuotedTypeName(type));
  WriteSlotFields(obj);
  if (type == T_ZOMBIE && klass != 0) {
    // Swept, its finalizer not run yet: the class it had, as an address only (as ObjectSpace
    // writes it), for the class may have been swept with it.
    sink_.Key("class");
    sink_.Address(klass);
  }
  if (type == T_ZOMBIE || type == T_MOVED || type == T_NONE) {
    sink_.EndRecord();  // no references: the slot holds no live object any more
    return;
  }
  if (type != T_IMEMO && ClassNames::IsClassLike(klass)) {
    sink_.Fields(class_names_.ClassFieldsOf(klass));  // rendered once per class
  } else if (klass != 0 && type != T_IMEMO) {         // an imemo's klass word holds no class
    sink_.Key("class");
    sink_.Address(klass);
  }
  if (OBJ_FROZEN_RAW(obj)) {
    sink_.Key("frozen");
    sink_.Bool(true);
  }
  WriteTypeFields(obj, type, klass);
  WriteReferences(obj, type, klass);
  WriteAllocationSite(obj);
  sink_.Key("memsize");
  sink_.Unsigned(rb_obj_memsize_of(obj));
  WriteFlags(obj);
  sink_.EndRecord();
}

void HeapDumper::OnReference(VALUE ref, void* data) {
  auto* self = static_cast<HeapDumper*>(data);
  if (ref == self->skip_once_) {  // the class edge, written first
    self->skip_once_ = 0;
    return;
  }
  if (self->refs_.size() < kHeldReferences) {
    self->refs_.push_back(ref);
    return;
  }
  JsonSink& sink = self->sink_;
  if (!self->streamed_) {  // a big container: its references go out as the GC reports them
    self->streamed_ = true;
    sink.Key("references");
    sink.ArrayOpen();
    for (VALUE held : self->refs_) sink.Address(held);
  }
  sink.Address(ref);
}

void HeapDumper::OnReferenceToName(VALUE ref, void* data) {
  auto* self = static_cast<HeapDumper*>(data);
  if (ref == self->skip_once_) {
    self->skip_once_ = 0;
    return;
  }
  self->WriteReferenceName(ref);
}

void HeapDumper::WriteReferenceName(VALUE ref) {
  name_.clear();
  if (!namer_.Name(ref, name_)) {
    sink_.Null();
  } else if (name_ == "(class)") {
    sink_.JsonText("\"(class)\"");  // nearly every record has it: skip the escaping
  } else {
    sink_.String(name_);
  }
}

// In memory that does not grow with the object: up to kHeldReferences are held, then written
// as the GC reports them and named in a second walk of the same references.
void HeapDumper::WriteReferences(VALUE obj, int type, VALUE klass) {
  refs_.clear();
  streamed_ = false;
  // memprof lists the class edge first; ObjectSpace leaves it out. The marker reports the
  // class too: one edge to it is kept.
  const bool class_edge = type != T_IMEMO && ClassNames::IsClassLike(klass);
  if (class_edge) refs_.push_back(klass);
  skip_once_ = class_edge ? klass : 0;
  if (IsLiveHeapObject(obj)) {
    rb_objspace_reachable_objects_from(obj, &HeapDumper::OnReference, this);
  }
  if (streamed_) {
    sink_.ArrayClose();
  } else {
    if (refs_.empty()) return;
    if (class_edge && refs_.size() == 1) {  // most Strings, Floats, ...: rendered once per class
      sink_.Fields(class_names_.ClassOnlyReferencesOf(klass));
      return;
    }
    sink_.Key("references");
    sink_.ArrayOpen();
    for (VALUE ref : refs_) sink_.Address(ref);
    sink_.ArrayClose();
  }
  namer_.Begin(obj, type, klass);
  sink_.Key("reference_names");
  sink_.ArrayOpen();
  if (streamed_) {
    if (class_edge) WriteReferenceName(klass);
    skip_once_ = class_edge ? klass : 0;
    rb_objspace_reachable_objects_from(obj, &HeapDumper::OnReferenceToName, this);
  } else {
    for (VALUE ref : refs_) WriteReferenceName(ref);
  }
  sink_.ArrayClose();
}

void HeapDumper::WriteAllocationSite(VALUE obj) {
  const AllocationSite* site = tracker_.Find(obj);
  if (site == nullptr) return;
  if (site->path != 0) {
    sink_.Key("file");
    sink_.String(tracker_.Path(site->path));
    if (site->line != 0) {  // none while a C extension loads: as ObjectSpace, no line at all
      sink_.Key("line");
      sink_.Unsigned(site->line);
    }
  }
  if (site->method != 0) {
    if (const char* method = rb_id2name(site->method)) {
      sink_.Key("method");
      sink_.String(method);
    }
  }
  sink_.Key("generation");
  sink_.Unsigned(site->generation);
  sink_.Key("seq");
  sink_.Unsigned(site->seq);
  if (stacks_ && site->stack != 0 && site->stack < stack_used_.size()) {
    sink_.Key("stack");
    sink_.Unsigned(site->stack);
    stack_used_[site->stack] = true;
  }
}

// The stacks the dump's objects name, each frame of Ruby code once (a frame is a frame table's
// entry and a line). The names are the tracker's copies: no Ruby object is read.
void HeapDumper::WriteStacks() {
  const StackTable& stacks = tracker_.Stacks();
  const FrameTable& names = tracker_.Frames();
  std::unordered_map<uint64_t, uint32_t> frame_ids;  // (frame, line) -> FRAME id
  std::vector<uint32_t> frames;
  for (uint32_t id = 1; id < stack_used_.size() && sink_.Errno() == 0; ++id) {
    if (!stack_used_[id]) continue;
    frames.clear();
    const auto f = stacks.Frames(id);
    const auto l = stacks.Lines(id);
    for (size_t i = 0; i < f.size(); ++i) {
      if (f[i] == FrameTable::kCFrame) continue;
      const auto [it, added] =
          frame_ids.try_emplace(uint64_t{f[i]} << 32 | static_cast<uint32_t>(l[i]),
                                static_cast<uint32_t>(frame_ids.size() + 1));
      if (added) {
        sink_.BeginRecord();
        sink_.Key("type");
        sink_.String("FRAME");
        sink_.Key("id");
        sink_.Unsigned(it->second);
        sink_.Key("file");
        sink_.String(names.Path(f[i]));
        sink_.Key("line");
        sink_.Unsigned(l[i] > 0 ? static_cast<uint64_t>(l[i]) : 0);
        if (names.HasMethod(f[i])) {
          sink_.Key("method");
          sink_.String(names.Method(f[i]));
        }
        sink_.EndRecord();
      }
      frames.push_back(it->second);
    }
    sink_.BeginRecord();
    sink_.Key("type");
    sink_.String("STACK");
    sink_.Key("id");
    sink_.Unsigned(id);
    sink_.Key("frames");
    sink_.ArrayOpen();
    for (uint32_t frame : frames) sink_.Unsigned(frame);
    sink_.ArrayClose();
    sink_.EndRecord();
  }
}

void HeapDumper::WriteFlags(VALUE obj) {
  ID ids[8];
  size_t count = rb_obj_gc_flags(obj, ids, 8);
  if (count == 0) return;
  // Ruby reports the flags in the table's order: one pass matches them.
  int mask = 0;
  int k = 0;
  for (size_t i = 0; i < count && mask >= 0; ++i) {
    while (k < kGcFlagCount && gc_flag_names[k].id != ids[i]) ++k;
    if (k == kGcFlagCount) {
      mask = -1;  // a flag this build does not know, or out of order: written one by one
    } else {
      mask |= 1 << k++;
    }
  }
  sink_.Key("flags");
  if (mask >= 0) {
    sink_.JsonText(gc_flags_json[mask]);
    return;
  }
  sink_.MapOpen();
  for (size_t i = 0; i < count; ++i) {
    const char* name = rb_id2name(ids[i]);
    sink_.Key(std::string_view(name != nullptr ? name : "?"));
    sink_.Bool(true);
  }
  sink_.MapClose();
}

}  // namespace memprof
