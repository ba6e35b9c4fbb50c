// Ruby bindings of the memprof extension (memprof_ext.so): Memprof.dump_all, _dump, _start,
// _stop, _stats and what lib/memprof.rb needs around fork. Everything that may raise happens
// outside the C++ scopes that own memory, so that a Ruby exception (a longjmp) never skips a
// destructor.
#include <ruby.h>
#include <ruby/io.h>
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "alloc_tracker.h"
#include "class_names.h"
#include "dump_file.h"
#include "heap_dumper.h"
#include "json_sink.h"
#include "ref_names.h"
#include "ruby_compat.h"
#include "vm_internals.h"

extern "C" void rb_objspace_each_objects(int (*callback)(void*, void*, size_t, void*), void* data);

namespace memprof {
namespace {

VALUE memprof_module = Qnil;
// Filled just before fork(2) when other threads run; the child inherits it, the parent clears it.
ParentRoots* parent_roots = nullptr;
// A child of fork: true dumps its parent's heap, and says so: META's pid is the parent's; it
// leaves the garbage out unless MEMPROF_GC=0.
long heap_owner_pid = 0;
bool reachable_only = false;

ID id_dump_all_in_child, id_dump_all_to_object, id_dump_all_via_open, id_dump_all_spooled;
ID dump_all_keywords[3];  // fork, strings, compress

long StringLimit(VALUE strings) {
  if (strings == Qfalse || strings == Qnil) return -1;
  if (RB_FIXNUM_P(strings) && FIX2LONG(strings) >= 0) return FIX2LONG(strings);
  if (RB_TYPE_P(strings, T_BIGNUM) && rb_big_sign(strings)) return LONG_MAX;
  rb_raise(rb_eArgError, "memprof: strings: must be a non-negative Integer or false");
}

// A write error or a JSON nesting error the sink met, as a failure; what names the target
// (nullptr: one object, in memory).
void CheckSink(const JsonSink& sink, Failure& failure, const char* what) {
  if (sink.Errno() != 0) {
    failure.Set(sink.Errno(), "memprof: writing %.900s", what != nullptr ? what : "a record");
  } else if (sink.GeneratorError() != 0 && what != nullptr) {
    failure.Set(0, "memprof: JSON nesting error %d while writing %.900s", sink.GeneratorError(),
                what);
  } else if (sink.GeneratorError() != 0) {
    failure.Set(0, "memprof: JSON nesting error %d", sink.GeneratorError());
  }
}

// Runs the whole dump (the caller disabled GC); fills `failure` on an error.
void DumpTo(int fd, const DumpOptions& options, Failure& failure, const char* what) {
  try {
    JsonSink sink(fd, options.gzip);
    HeapDumper dumper(sink, options, AllocTracker::Instance());
    dumper.Prepare();
    dumper.DumpAll();
    sink.Flush();
    CheckSink(sink, failure, what);
  } catch (const std::bad_alloc&) {
    failure.Set(0, "memprof: out of memory writing %.900s", what);
  }
}

// Other Ractors allocate and collect under their own locks while the walk reads objects and
// tables they change, so a dump is refused rather than risked (Ractors are experimental in
// 3.1). No Ractor can start meanwhile: only a thread of this Ractor could start one, and the
// dump holds this Ractor's lock until it is done.
// Where the VM's layout is unknown: the Ractor objects the heap holds, the main one's
// included (one that finished counts until the GC frees it). No Ruby code runs: Ractor.count
// is Ruby since 3.3, and the program's TracePoints would see it.
unsigned int CountRactorObjects() {
  unsigned int count = 0;
  rb_objspace_each_objects(
      [](void* start, void* end, size_t stride, void* data) {
        for (auto v = reinterpret_cast<uintptr_t>(start); v < reinterpret_cast<uintptr_t>(end);
             v += stride) {
          if (RBASIC(v)->flags == 0 || BUILTIN_TYPE(v) != T_DATA || !RTYPEDDATA_P(v)) continue;
          const char* name = RTYPEDDATA_TYPE(v)->wrap_struct_name;
          if (name != nullptr && std::strcmp(name, "ractor") == 0) ++*static_cast<unsigned*>(data);
        }
        return 0;
      },
      &count);
  return count;
}

void RefuseOtherRactors() {
  unsigned int count = memprof_ractor_count();
  if (count == 0) count = CountRactorObjects();
  if (count > 1) {
    rb_raise(rb_eRuntimeError,
             "memprof: cannot dump while other Ractors run (Ractor.count is %u); "
             "dump before starting Ractors or after they finish",
             count);
  }
}

[[noreturn]] void Raise(const Failure& failure) {
  if (failure.err != 0) rb_syserr_fail(failure.err, failure.message);
  rb_raise(rb_eRuntimeError, "%s", failure.message);
}

// The dump itself, with GC disabled and memprof's own allocations untracked. Calls no Ruby
// code and never raises (errors land in failure), so that GC, the tracker, the fd and any
// temporary file are always put back by the caller.
// The walk leaves heap addresses in the stack below the caller's frame, and Ruby's GC reads a
// thread's stack conservatively: a stale word there would keep alive an object the program
// dropped (and pin it in the next dump's machine_context roots). The walk uses about 6 KiB of
// stack (measured with a painted stack); this clears 16 KiB.
[[gnu::noinline]] void ClearStackBelow() {
  unsigned char area[16 << 10];
  explicit_bzero(area, sizeof(area));
}

void RunDump(int fd, const DumpOptions& options, Failure& failure, const char* what) {
  GcPause pause;
  DumpTo(fd, options, failure, what);
  ClearStackBelow();
}

VALUE DumpAllToPath(VALUE path, DumpOptions options) {
  Failure failure;
  DumpToPath(
      RSTRING_PTR(path),
      [](int fd, const char* what, Failure& failure, void* context) {
        RunDump(fd, *static_cast<DumpOptions*>(context), failure, what);
      },
      &options, failure);
  if (failure.failed()) Raise(failure);
  return path;
}

VALUE DumpAllToIo(VALUE io, const DumpOptions& options) {
  io = rb_io_get_io(io);
  rb_io_t* fptr = RFILE(io)->fptr;
  if (IoDescriptor(fptr) < 0) rb_raise(rb_eIOError, "memprof: cannot dump to a closed IO");
  rb_io_check_writable(fptr);
  rb_io_flush(io);
  Failure failure;
  RunDump(IoDescriptor(fptr), options, failure, "the given IO");
  if (failure.failed()) Raise(failure);
  return io;
}

// Memprof.dump_all(path_or_io, fork: false, strings: 1024, compress: nil). compress: gzip
// (nil: for a path ending in ".gz"; true or false: always or never). Paths and IO
// objects are dumped here without calling any Ruby method, so that the program (its
// TracePoints, its signal handlers) sees nothing of the dump; lib/memprof.rb handles forking
// and objects that are written through their own methods.
VALUE DumpAll(int argc, VALUE* argv, VALUE self) {
  VALUE target, options;
  rb_scan_args(argc, argv, "1:", &target, &options);
  VALUE values[3] = {Qundef, Qundef, Qundef};  // fork, strings, compress
  if (!NIL_P(options)) rb_get_kwargs(options, dump_all_keywords, 0, 3, values);
  VALUE fork = values[0] == Qundef ? Qfalse : values[0];
  VALUE strings = values[1] == Qundef ? INT2FIX(1024) : values[1];
  VALUE compress = values[2] == Qundef ? Qnil : values[2];
  DumpOptions dump_options;
  dump_options.string_limit = StringLimit(strings);
  dump_options.parent = parent_roots;
  dump_options.pid = heap_owner_pid;
  dump_options.reachable_only = reachable_only;
  if (RTEST(fork)) return rb_funcall(self, id_dump_all_in_child, 3, target, strings, compress);
  if (RB_TYPE_P(target, T_STRING)) {
    VALUE path = rb_get_path(target);
    // compress: nil means gzip for a ".gz" path.
    long length = RSTRING_LEN(path);
    bool gz_name = length >= 3 && std::memcmp(RSTRING_PTR(path) + length - 3, ".gz", 3) == 0;
    if (NIL_P(compress)) compress = gz_name ? Qtrue : Qfalse;
    dump_options.gzip = RTEST(compress);
    struct stat st;
    if (stat(RSTRING_PTR(path), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
      return rb_funcall(self, id_dump_all_via_open, 3, target, strings, compress);
    }
    RefuseOtherRactors();
    DumpAllToPath(path, dump_options);
    return target;
  }
  if (RB_TYPE_P(target, T_FILE)) {
    // A pipe or socket may need a reader of this process, or be non-blocking (Ruby's
    // default): written after the walk, by Ruby (see dump_all_spooled).
    rb_io_t* fptr = RFILE(target)->fptr;
    struct stat st;
    if (IoDescriptor(fptr) >= 0 && fstat(IoDescriptor(fptr), &st) == 0 &&
        (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
      return rb_funcall(self, id_dump_all_spooled, 3, target, strings, compress);
    }
    dump_options.gzip = RTEST(compress);
    RefuseOtherRactors();
    DumpAllToIo(target, dump_options);
    return target;
  }
  return rb_funcall(self, id_dump_all_to_object, 3, target, strings, compress);
}

// Memprof._dump(obj, strings): one object's record as a String (no trailing newline).
VALUE DumpOne(VALUE, VALUE obj, VALUE strings) {
  long limit = StringLimit(strings);
  if (SPECIAL_CONST_P(obj)) {
    rb_raise(rb_eArgError, "memprof: %" PRIsVALUE " is not a heap object", rb_inspect(obj));
  }
  RefuseOtherRactors();
  VALUE result = Qnil;
  Failure failure;
  {
    GcPause pause;
    try {
      JsonSink sink(-1);
      DumpOptions options;
      options.string_limit = limit;
      HeapDumper dumper(sink, options, AllocTracker::Instance());
      dumper.Prepare(obj);
      dumper.DumpObject(obj);
      CheckSink(sink, failure, nullptr);
      if (!failure.failed()) {
        std::string_view text = sink.Text();
        result = rb_utf8_str_new(text.data(), static_cast<long>(text.size()) - 1);
      }
    } catch (const std::bad_alloc&) {
      failure.Set(0, "memprof: out of memory");
    }
  }
  if (failure.failed()) Raise(failure);
  return result;
}

// Memprof._capture_roots(other_threads): the caller disabled GC and forks next.
VALUE CaptureParentRoots(VALUE, VALUE other_threads) {
  Check_Type(other_threads, T_ARRAY);
  bool failed = false;
  try {
    std::vector<VALUE> threads(RARRAY_CONST_PTR(other_threads),
                               RARRAY_CONST_PTR(other_threads) + RARRAY_LEN(other_threads));
    if (parent_roots == nullptr) parent_roots = new ParentRoots;
    parent_roots->other_threads = static_cast<unsigned>(threads.size());
    CaptureThreadRoots(threads, parent_roots->roots);
  } catch (const std::bad_alloc&) {
    failed = true;
  }
  if (failed) rb_raise(rb_eNoMemError, "memprof: out of memory capturing roots");
  RB_GC_GUARD(other_threads);
  return Qnil;
}

// Memprof._forget_roots: the parent after fork(2), or a child after its dump.
VALUE ForgetParentRoots(VALUE) {
  delete parent_roots;
  parent_roots = nullptr;
  return Qnil;
}

// Memprof._heap_of(pid, reachable_only): this process is a child of fork: true, dumping the
// heap of pid, without its garbage when reachable_only.
VALUE HeapOf(VALUE, VALUE pid, VALUE only_reachable) {
  heap_owner_pid = NUM2LONG(pid);
  reachable_only = RTEST(only_reachable);
  return Qnil;
}

VALUE IgnoreFile(VALUE, VALUE path) {
  AllocTracker::Instance().IgnoreFile(StringValue(path));
  return Qnil;
}

// Memprof._start(min_depth, max_depth, library_dirs, sample, seed)
VALUE Start(VALUE, VALUE min_depth, VALUE max_depth, VALUE library_dirs, VALUE sample_rate,
            VALUE random_seed) {
  const int min = NUM2INT(min_depth);
  const int max = NUM2INT(max_depth);
  const uint32_t sample = NUM2UINT(sample_rate);
  const uint64_t seed = NUM2ULL(random_seed);
  Check_Type(library_dirs, T_ARRAY);
  bool out_of_memory = false;
  try {
    std::vector<std::string> dirs;
    for (long i = 0; i < RARRAY_LEN(library_dirs); ++i) {
      VALUE dir = rb_ary_entry(library_dirs, i);
      if (RB_TYPE_P(dir, T_STRING))  // lib/memprof.rb passes Strings only
        dirs.emplace_back(RSTRING_PTR(dir), static_cast<size_t>(RSTRING_LEN(dir)));
    }
    AllocTracker::Instance().Start(min, max, std::move(dirs), sample, seed);
  } catch (const std::bad_alloc&) {
    out_of_memory = true;
  }
  if (out_of_memory) rb_raise(rb_eNoMemError, "memprof: out of memory starting to track");
  return Qnil;
}

VALUE Stop(VALUE) {
  AllocTracker::Instance().Stop();
  return Qnil;
}

VALUE Running(VALUE) {
  return AllocTracker::Instance().Running() ? Qtrue : Qfalse;
}

VALUE NextSeq(VALUE) {
  return ULL2NUM(AllocTracker::Instance().NextSeq());
}

// Memprof._stats(min_seq): [[ "file:line:Class", count, bytes ], ...], largest count first.
VALUE Stats(VALUE, VALUE min_seq) {
  uint64_t from = NUM2ULL(min_seq);
  std::vector<SiteStats>* stats = nullptr;
  {
    GcPause pause;  // a GC now would change the table under the reader
    try {
      stats = new std::vector<SiteStats>(AllocTracker::Instance().Stats(from));
    } catch (const std::bad_alloc&) {
      stats = nullptr;
    }
  }
  if (stats == nullptr) rb_raise(rb_eNoMemError, "memprof: out of memory collecting stats");
  // Build the Ruby array from a copy of the plain data; nothing here can raise but NoMemoryError.
  VALUE result = rb_ary_new_capa(static_cast<long>(stats->size()));
  for (const SiteStats& site : *stats) {
    rb_ary_push(result, rb_ary_new_from_args(
                            3, rb_utf8_str_new(site.key.data(), static_cast<long>(site.key.size())),
                            SIZET2NUM(site.count), SIZET2NUM(site.bytes)));
  }
  delete stats;
  return result;
}

// memprof reads flags and, for names, private layouts that change with each Ruby (ruby_compat.h,
// vm_internals): on a Ruby it has not been tested on it refuses to load, unless asked to try.
void RefuseUnknownRuby() {
  if (KnownRuby(RUBY_API_VERSION_MAJOR, RUBY_API_VERSION_MINOR)) return;
  const char* allow = getenv("MEMPROF_UNTESTED_RUBY");
  if (allow != nullptr && strcmp(allow, "1") == 0) return;
  rb_raise(rb_eLoadError,
           "memprof supports Ruby 3.1 to 3.4; this is Ruby %d.%d, whose internals it has not been "
           "tested on. MEMPROF_UNTESTED_RUBY=1 loads it anyway (names it cannot check go "
           "unnamed; a crash is possible)",
           RUBY_API_VERSION_MAJOR, RUBY_API_VERSION_MINOR);
}

}  // namespace
}  // namespace memprof

// The only symbol Ruby needs from the extension.
extern "C" __attribute__((visibility("default"))) void Init_memprof_ext() {
  using namespace memprof;
  RefuseUnknownRuby();
  compat::Init();
  ReferenceNamer::Init();
  HeapDumper::Init();
  AllocTracker::Init();
  memprof_vm_check();
  memprof_module = rb_define_module("Memprof");
  id_dump_all_in_child = rb_intern("dump_all_in_child");
  id_dump_all_to_object = rb_intern("dump_all_to_object");
  id_dump_all_via_open = rb_intern("dump_all_via_open");
  id_dump_all_spooled = rb_intern("dump_all_spooled");
  dump_all_keywords[0] = rb_intern("fork");
  dump_all_keywords[1] = rb_intern("strings");
  dump_all_keywords[2] = rb_intern("compress");
  rb_define_singleton_method(memprof_module, "dump_all", DumpAll, -1);
  rb_define_singleton_method(memprof_module, "_ignore_file", IgnoreFile, 1);
  rb_define_singleton_method(memprof_module, "_capture_roots", CaptureParentRoots, 1);
  rb_define_singleton_method(memprof_module, "_forget_roots", ForgetParentRoots, 0);
  rb_define_singleton_method(memprof_module, "_heap_of", HeapOf, 2);
  rb_define_singleton_method(memprof_module, "_dump", DumpOne, 2);
  rb_define_singleton_method(memprof_module, "_start", Start, 5);
  rb_define_singleton_method(memprof_module, "_stop", Stop, 0);
  rb_define_singleton_method(memprof_module, "running?", Running, 0);
  rb_define_singleton_method(memprof_module, "_next_seq", NextSeq, 0);
  rb_define_singleton_method(memprof_module, "_stats", Stats, 1);
  DefineProfileMethods(memprof_module);
}
