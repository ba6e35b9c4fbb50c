// Ruby bindings of the memprof extension (memprof_ext.so): Memprof._dump_all, _dump, start, stop,
// _stats. Everything that may raise happens outside the C++ scopes that own memory, so that a Ruby
// exception (a longjmp) never skips a destructor.
#include <errno.h>
#include <fcntl.h>
#include <ruby.h>
#include <ruby/io.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "alloc_tracker.h"
#include "class_names.h"
#include "heap_dumper.h"
#include "json_sink.h"
#include "ref_names.h"
#include "vm_internals.h"

namespace memprof {
namespace {

VALUE memprof_module = Qnil;
std::atomic<unsigned> temp_counter{0};

// What failed, written into a fixed buffer so that nothing needs freeing before raising.
struct Failure {
  int err = 0;              // errno, or 0
  char message[1024] = "";  // empty: success
};

long StringLimit(VALUE strings) {
  if (strings == Qfalse || strings == Qnil) return -1;
  long limit = NUM2LONG(strings);
  if (limit < 0) rb_raise(rb_eArgError, "memprof: strings: must be >= 0 or false");
  return limit;
}

// Runs the whole dump (the caller disabled GC); fills `failure` on an error.
void DumpTo(int fd, long limit, Failure& failure, const char* what) {
  try {
    JsonSink sink(fd);
    DumpOptions options;
    options.string_limit = limit;
    HeapDumper dumper(sink, options, AllocTracker::Instance());
    dumper.Prepare();
    dumper.DumpAll();
    sink.Flush();
    if (sink.Errno() != 0) {
      failure.err = sink.Errno();
      std::snprintf(failure.message, sizeof(failure.message), "memprof: writing %.900s", what);
    } else if (sink.GeneratorError() != 0) {
      std::snprintf(failure.message, sizeof(failure.message),
                    "memprof: JSON nesting error %d while writing %.900s", sink.GeneratorError(),
                    what);
    }
  } catch (const std::bad_alloc&) {
    std::snprintf(failure.message, sizeof(failure.message), "memprof: out of memory writing %.900s",
                  what);
  }
}

// Other Ractors allocate and collect under their own locks while the walk reads objects and
// tables they change, so a dump is refused rather than risked (Ractors are experimental in
// 3.1). No Ractor can start meanwhile: only a thread of this Ractor could start one, and the
// dump holds this Ractor's lock until it is done.
void RefuseOtherRactors() {
  unsigned int count = memprof_ractor_count();
  if (count == 0 && rb_const_defined(rb_cObject, rb_intern("Ractor"))) {
    VALUE ractor = rb_const_get(rb_cObject, rb_intern("Ractor"));
    count = NUM2UINT(rb_funcall(ractor, rb_intern("count"), 0));  // no VM internals here
  }
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

struct GcPause {
  GcPause() : was_disabled(rb_gc_disable() == Qtrue) {}
  ~GcPause() {
    if (!was_disabled) rb_gc_enable();
  }
  bool was_disabled;
};

VALUE DumpAllToPath(VALUE path, long limit) {
  const char* final_path = RSTRING_PTR(path);
  Failure failure;
  struct stat st;
  bool special = stat(final_path, &st) == 0 && !S_ISREG(st.st_mode);
  char temp_path[4096];
  int fd;
  if (special) {
    // A device or FIFO (/dev/null, /dev/full, a pipe) is written in place: nothing to rename.
    temp_path[0] = '\0';
    fd = open(final_path, O_WRONLY | O_CLOEXEC);
  } else {
    std::snprintf(temp_path, sizeof(temp_path), "%s.tmp-%ld-%u", final_path,
                  static_cast<long>(getpid()), temp_counter.fetch_add(1));
    fd = open(temp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  }
  if (fd < 0) {
    int err = errno;
    rb_syserr_fail_str(err,
                       rb_sprintf("memprof: cannot create %s", special ? final_path : temp_path));
  }
  {
    GcPause pause;
    DumpTo(fd, limit, failure, special ? final_path : temp_path);
  }
  if (close(fd) != 0 && failure.message[0] == '\0') {
    failure.err = errno;
    std::snprintf(failure.message, sizeof(failure.message), "memprof: closing %.900s",
                  special ? final_path : temp_path);
  }
  if (failure.message[0] == '\0' && !special && rename(temp_path, final_path) != 0) {
    failure.err = errno;
    std::snprintf(failure.message, sizeof(failure.message), "memprof: renaming %.480s to %.480s",
                  temp_path, final_path);
  }
  if (failure.message[0] != '\0') {
    if (!special) unlink(temp_path);
    Raise(failure);
  }
  return path;
}

VALUE DumpAllToIo(VALUE io, long limit) {
  io = rb_io_get_io(io);
  rb_io_t* fptr = RFILE(io)->fptr;
  if (fptr == nullptr || fptr->fd < 0) rb_raise(rb_eIOError, "memprof: cannot dump to a closed IO");
  rb_io_check_writable(fptr);
  rb_io_flush(io);
  Failure failure;
  {
    GcPause pause;
    DumpTo(fptr->fd, limit, failure, "the given IO");
  }
  if (failure.message[0] != '\0') Raise(failure);
  return io;
}

// Memprof._dump_all(path_or_io, strings)
VALUE DumpAll(VALUE, VALUE target, VALUE strings) {
  long limit = StringLimit(strings);
  RefuseOtherRactors();
  // A File also has to_path: an IO is written where it stands, not replaced.
  if (rb_obj_is_kind_of(target, rb_cIO) ||
      (!RB_TYPE_P(target, T_STRING) && !rb_respond_to(target, rb_intern("to_path")) &&
       rb_respond_to(target, rb_intern("to_io")))) {
    return DumpAllToIo(target, limit);
  }
  if (RB_TYPE_P(target, T_STRING) || rb_respond_to(target, rb_intern("to_path"))) {
    DumpAllToPath(rb_get_path(target), limit);
    return target;
  }
  rb_raise(rb_eTypeError, "memprof: dump_all needs a path or an IO, got %" PRIsVALUE,
           rb_obj_class(target));
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
      if (sink.GeneratorError() != 0) {
        std::snprintf(failure.message, sizeof(failure.message), "memprof: JSON nesting error %d",
                      sink.GeneratorError());
      } else {
        std::string_view text = sink.Text();
        result = rb_utf8_str_new(text.data(), static_cast<long>(text.size()) - 1);
      }
    } catch (const std::bad_alloc&) {
      std::snprintf(failure.message, sizeof(failure.message), "memprof: out of memory");
    }
  }
  if (failure.message[0] != '\0') Raise(failure);
  return result;
}

VALUE Start(VALUE) {
  AllocTracker::Instance().Start();
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

// Memprof._stats(min_seq): [[ "file:line:Class", count ], ...], largest first.
VALUE Stats(VALUE, VALUE min_seq) {
  uint64_t from = NUM2ULL(min_seq);
  std::vector<std::pair<std::string, size_t>>* stats = nullptr;
  {
    GcPause pause;  // a GC now would change the table under the reader
    try {
      stats = new std::vector<std::pair<std::string, size_t>>(AllocTracker::Instance().Stats(from));
    } catch (const std::bad_alloc&) {
      stats = nullptr;
    }
  }
  if (stats == nullptr) rb_raise(rb_eNoMemError, "memprof: out of memory collecting stats");
  // Build the Ruby array from a copy of the plain data; nothing here can raise but NoMemoryError.
  VALUE result = rb_ary_new_capa(static_cast<long>(stats->size()));
  for (const auto& [key, count] : *stats) {
    rb_ary_push(result, rb_assoc_new(rb_utf8_str_new(key.data(), static_cast<long>(key.size())),
                                     SIZET2NUM(count)));
  }
  delete stats;
  return result;
}

}  // namespace
}  // namespace memprof

// The only symbol Ruby needs from the extension.
extern "C" __attribute__((visibility("default"))) void Init_memprof_ext() {
  using namespace memprof;
  ClassNames::Init();
  ReferenceNamer::Init();
  HeapDumper::Init();
  AllocTracker::Init();
  memprof_module = rb_define_module("Memprof");
  rb_define_singleton_method(memprof_module, "_dump_all", DumpAll, 2);
  rb_define_singleton_method(memprof_module, "_dump", DumpOne, 2);
  rb_define_singleton_method(memprof_module, "_start", Start, 0);
  rb_define_singleton_method(memprof_module, "_stop", Stop, 0);
  rb_define_singleton_method(memprof_module, "running?", Running, 0);
  rb_define_singleton_method(memprof_module, "_next_seq", NextSeq, 0);
  rb_define_singleton_method(memprof_module, "_stats", Stats, 1);
}
