// What memprof uses of Ruby that differs between the versions it supports (3.1, 3.3, 3.4), in one
// place: libruby's functions that no public header declares, and the public macros that came or
// went. Everything here is exported, or a public macro, on each version (tests/ruby/test_symbols.rb
// checks the extension's undefined symbols against each libruby).
#ifndef MEMPROF_RUBY_COMPAT_H
#define MEMPROF_RUBY_COMPAT_H

#include <ruby.h>
#include <ruby/encoding.h>
#include <ruby/io.h>
#include <ruby/version.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#define MEMPROF_RUBY_SINCE(major, minor) \
  (RUBY_API_VERSION_MAJOR > (major) ||   \
   (RUBY_API_VERSION_MAJOR == (major) && RUBY_API_VERSION_MINOR >= (minor)))

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

// An IMEMO object's imemo_type (internal/imemo.h's number), from its flags.
// Whether obj is old, which no minor GC frees: 3.1 keeps an object's age in two flag bits, both
// set when old (its RB_OBJ_PROMOTED says "survived a GC"); from 3.3 one flag says old.
inline bool IsOld(VALUE obj) {
  return (RBASIC(obj)->flags & RUBY_FL_PROMOTED) == RUBY_FL_PROMOTED;
}

inline int ImemoType(VALUE obj) {
  return static_cast<int>((RBASIC(obj)->flags >> RUBY_FL_USHIFT) & 0x0f);
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

// What the record writer reads where versions differ: Ruby's public macros and functions where
// they exist, else our own declarations of a few private layouts of 3.3 and 3.4 (shape.h,
// internal/class.h, vm_callinfo.h, method.h) in ruby_compat.cc, each checked at load time
// (Init) or on the object before use. A check that fails leaves the field out: never a wrong
// value, never a crash.
namespace memprof::compat {

// Ruby context, once (Init_memprof): runs the layout checks below.
void Init();

// ObjectSpace writes shape_id, slot_size, coderange, SHAPE records and variation_count
// from 3.3 on (3.2 is not supported).
constexpr bool kShapes = MEMPROF_RUBY_SINCE(3, 3);

// A shared String or Array, through Ruby's public ELTS_SHARED (FL_USER2 up to 3.3, FL_USER0
// from 3.4 on): a String is shared only when not embedded.
inline bool StringShared(VALUE str) {
  return FL_TEST_RAW(str, RSTRING_NOEMBED) && FL_TEST_RAW(str, RUBY_ELTS_SHARED);
}
inline bool ArrayShared(VALUE ary) {
  return FL_TEST_RAW(ary, RUBY_ELTS_SHARED);
}

// A chilled String (3.4: a literal that warns when mutated), as 3.4's public rb_check_frozen
// reads it.
inline bool StringChilled(VALUE str) {
#if MEMPROF_RUBY_SINCE(3, 4)
  return FL_TEST_RAW(str, RUBY_FL_USER2 | RUBY_FL_USER3);
#else
  (void)str;
  return false;
#endif
}

// The coderange Ruby has recorded on a String, without scanning it (scanning would record
// one: memprof changes nothing); 3.1's ObjectSpace scans, and so does memprof there.
inline int StringCoderange(VALUE str) {
  return kShapes ? RB_ENC_CODERANGE(str) : rb_enc_str_coderange(str);
}
std::string_view CoderangeName(int coderange);  // "7bit", "valid", "broken", "unknown"

// The object's shape id (3.3+, 64 bits: the high half of its flags); no value before 3.3.
inline uint32_t ShapeId(VALUE obj) {
  static_assert(sizeof(VALUE) == 8, "memprof reads shape ids of 64-bit Rubies only");
  return static_cast<uint32_t>(RBASIC(obj)->flags >> 32);
}
// True when an object of this shape keeps its ivars in a table (too many shape variations).
bool ShapeTooComplex(uint32_t shape_id);

// One object shape, as ObjectSpace's SHAPE record describes it.
struct Shape {
  uintptr_t address;
  uint32_t id;
  uint32_t parent_id;     // kNoShape for a root
  std::string_view type;  // "ROOT", "IVAR", "FROZEN", "T_OBJECT", "OBJ_TOO_COMPLEX"
  ID edge_name;           // IVAR: the instance variable it adds
  size_t depth, edges, memsize;
};
constexpr uint32_t kNoShape = UINT32_MAX;
// Calls fn for each shape, in id order; nothing before 3.3 or when the load-time check of the
// layout failed. No allocation.
void EachShape(void (*fn)(const Shape& shape, void* data), void* data);

// The size of the slot an object lives in (Memprof.dump of one object); 0 when unknown.
size_t SlotSize(VALUE obj);

// A Hash's default proc (Hash.new { }), or 0 when it has none or this build cannot tell.
VALUE HashDefaultProc(VALUE hash);

// The object a singleton class is attached to; 0 when unknown.
VALUE AttachedObject(VALUE singleton);

// CLASS: how many shape variations its instances took; -1 when unknown.
int ClassVariationCount(VALUE klass);

// IMEMO callinfo: the method id called; 0 when none or unknown.
ID CallinfoMethodId(VALUE ci);
// IMEMO callcache: the method id and the receiver's class it caches (class 0 when the cache
// was invalidated); false when unknown.
bool CallcacheEntry(VALUE cc, ID* called_id, VALUE* receiver_class);

// True for the imemo types 3.3's ObjectSpace writes fields of (callinfo, callcache).
bool IsCallinfo(int imemo_type);
bool IsCallcache(int imemo_type);

}  // namespace memprof::compat

#endif
