// What memprof uses of Ruby that differs between the versions it supports (3.1, 3.3, 3.4), in one
// place: libruby's functions that no public header declares, and the public macros that came or
// went. Everything here is exported, or a public macro, on each version (tests/ruby/test_symbols.rb
// checks the extension's undefined symbols against each libruby).
#ifndef MEMPROF_RUBY_COMPAT_H
#define MEMPROF_RUBY_COMPAT_H

#include <ruby.h>
#include <ruby/io.h>
#include <ruby/version.h>

extern "C" {
// Exported by libruby on 3.1, 3.3 and 3.4, declared by no public header.
size_t rb_obj_memsize_of(VALUE obj);
size_t rb_obj_gc_flags(VALUE obj, ID* flags, size_t max);
void rb_objspace_reachable_objects_from(VALUE obj, void (*func)(VALUE, void*), void* data);
void rb_objspace_reachable_objects_from_root(void (*func)(const char*, VALUE, void*), void* data);
void rb_objspace_each_objects(int (*callback)(void*, void*, size_t, void*), void* data);
const char* rb_objspace_data_type_name(VALUE obj);
const char* rb_imemo_name(int type);
}

namespace memprof {

// The Ruby versions memprof supports: tested on 3.1, 3.3 and 3.4; 3.2, between them, is built
// but untested (Debian has no package of it).
constexpr bool KnownRuby(int major, int minor) {
  return major == 3 && minor >= 1 && minor <= 4;
}

// Whether the GC can report what obj references: a heap object in use. Ruby 3.4 no longer
// exports rb_objspace_markable_object_p; what memprof asks it about comes from the heap walk
// (rb_objspace_each_objects finishes a lazy sweep first) or from a live object's references,
// so that a free, moved or finalizing slot is all that remains to exclude.
inline bool IsLiveHeapObject(VALUE obj) {
  if (RB_SPECIAL_CONST_P(obj)) return false;
  const int type = RB_BUILTIN_TYPE(obj);
  return type != RUBY_T_NONE && type != RUBY_T_ZOMBIE && type != RUBY_T_MOVED;
}

// An Array's elements, read in place: on 3.1 without moving them off the transient heap (which
// 3.3 removed).
inline const VALUE* ArrayElements(VALUE ary) {
#ifdef RARRAY_CONST_PTR_TRANSIENT
  return RARRAY_CONST_PTR_TRANSIENT(ary);
#else
  return RARRAY_CONST_PTR(ary);
#endif
}

// How many instance variables an Object has, as ObjectSpace.dump counts them ("ivars").
inline size_t ObjectIvarCount(VALUE obj) {
#ifdef ROBJECT_NUMIV
  return ROBJECT_NUMIV(obj);  // 3.1: the slots, set or not
#else
  return rb_ivar_count(obj);  // 3.2+: object shapes
#endif
}

// The file descriptor of an IO's rb_io_t, -1 once closed. Unlike rb_io_descriptor it never raises
// nor calls Ruby, so the heap walk can read it too (as ObjectSpace does). Deprecated from 3.3.
inline int IoDescriptor(const rb_io_t* fptr) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  return fptr == nullptr ? -1 : fptr->fd;
#pragma GCC diagnostic pop
}

}  // namespace memprof

#endif
