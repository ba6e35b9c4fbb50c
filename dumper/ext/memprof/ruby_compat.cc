// Per-version reads of Ruby's objects; see ruby_compat.h. The layouts below are our own
// declarations of what Ruby 3.3 and 3.4 keep private, checked in Init before any use.
#include "ruby_compat.h"

#include <cstring>
#include <iterator>
#include <vector>

#include "vm_internals.h"

#if MEMPROF_RUBY_SINCE(3, 3)
extern "C" {
// Exported by libruby, declared by no public header.
size_t rb_gc_obj_slot_size(VALUE obj);
// shape.h, exported for ext/objspace.
struct rb_shape;
void rb_shape_each_shape(void (*callback)(rb_shape* shape, void* data), void* data);
size_t rb_shape_memsize(rb_shape* shape);
size_t rb_shape_edges_count(rb_shape* shape);
size_t rb_shape_depth(rb_shape* shape);
uint32_t rb_shape_id(rb_shape* shape);
}
#endif

namespace memprof::compat {
namespace {

// The first fields of 3.3's and 3.4's struct RClass followed by its rb_classext_t, up to
// variation_count (internal/class.h: RClass_and_rb_classext_t).
struct ClassLayout {
  VALUE flags, klass, super;
  void* m_tbl;
  void *iv_ptr, *const_tbl, *callable_m_tbl, *cc_tbl, *cvc_tbl;
  size_t superclass_depth;
  void *superclasses, *subclasses, *subclass_entry, *module_subclass_entry;
  VALUE origin, refined_class;
  VALUE attached_object;  // a union with the allocator of a class that is no singleton
  VALUE includer;
  uint32_t max_iv_count;
  unsigned char variation_count;
};

// vm_callinfo.h and method.h: a call site's info, a call cache, a method entry.
struct CallinfoLayout {
  VALUE flags;
  void* kwarg;
  VALUE mid;
};
struct CallcacheLayout {
  VALUE flags, klass;
  const VALUE* cme;
};
struct MethodEntryLayout {
  VALUE flags, defined_class;
  void* def;
  ID called_id;
};

#if MEMPROF_RUBY_SINCE(3, 3)
// 3.3's and 3.4's rb_shape_t (shape.h), on 64-bit machines, and its types.
struct ShapeLayout {
  void* edges;
  ID edge_name;
  uint32_t next_iv_index, capacity;
  uint8_t type, heap_index;
  uint32_t parent_id;
  void* ancestor_index;
};
constexpr std::string_view kShapeTypes[] = {"ROOT", "IVAR", "FROZEN", "T_OBJECT",
                                            "OBJ_TOO_COMPLEX"};
constexpr uint8_t kShapeIvar = 1, kShapeTooComplex = 4;
bool shape_layout_ok = false;
#endif

bool class_layout_ok = false;
ID id_attached = 0;  // up to 3.1, a singleton class keeps its object in this ivar
int imemo_callinfo = -1, imemo_callcache = -1, imemo_ment = -1;
uint32_t too_complex_shape_id = UINT32_MAX;  // none known

#if MEMPROF_RUBY_SINCE(3, 3)
// Walks the shapes as they are now, checking that each reads as a shape should: ids in
// order, each shape's depth one more than its parent's (Ruby's own rb_shape_depth says), a
// root first. Sets too_complex_shape_id. No Ruby allocation: a vector of depths.
bool CheckShapeLayout() {
  struct Walk {
    std::vector<size_t> depths;
    const char* previous = nullptr;
    bool ok = true;
    uint32_t too_complex = UINT32_MAX;
  } walk;
  rb_shape_each_shape(
      [](rb_shape* shape, void* data) {
        auto& w = *static_cast<Walk*>(data);
        const auto* s = reinterpret_cast<const ShapeLayout*>(shape);
        const auto* here = reinterpret_cast<const char*>(shape);
        const uint32_t id = static_cast<uint32_t>(w.depths.size());
        const bool root = s->parent_id == kNoShape;
        const size_t depth = root ? 1 : s->parent_id < id ? w.depths[s->parent_id] + 1 : 0;
        w.ok = w.ok && rb_shape_id(shape) == id && s->type < std::size(kShapeTypes) &&
               (id != 0 || (root && s->type == 0)) && depth == rb_shape_depth(shape) &&
               (w.previous == nullptr || here - w.previous == sizeof(ShapeLayout));
        if (s->type == kShapeTooComplex && w.too_complex == UINT32_MAX) w.too_complex = id;
        w.previous = here;
        w.depths.push_back(depth);
      },
      &walk);
  if (walk.ok) too_complex_shape_id = walk.too_complex;
  return walk.ok && !walk.depths.empty();
}
#endif

}  // namespace

void Init() {
  id_attached = rb_intern("__attached__");
#if MEMPROF_RUBY_SINCE(3, 3)
  // internal/imemo.h's numbers, as Ruby names them (it stops on a number it does not know).
  auto is = [](int type, const char* name) {
    return std::strcmp(rb_imemo_name(type), name) == 0 ? type : -1;
  };
  imemo_ment = is(6, "ment");
  imemo_callinfo = is(11, "callinfo");
  imemo_callcache = is(12, "callcache");
  // Object's metaclass is attached to Object, and Object's super is what Ruby's public
  // rb_class_get_superclass says: both ends of the layout read right.
  const VALUE meta = RBASIC(rb_cObject)->klass;
  const auto* layout = reinterpret_cast<const ClassLayout*>(meta);
  class_layout_ok =
      FL_TEST_RAW(meta, RUBY_FL_SINGLETON) && rb_class_attached_object(meta) == rb_cObject &&
      layout->attached_object == rb_cObject && layout->super == rb_class_get_superclass(meta);
  shape_layout_ok = CheckShapeLayout();
#endif
}

std::string_view CoderangeName(int coderange) {
  switch (coderange) {
    case RUBY_ENC_CODERANGE_7BIT:
      return "7bit";
    case RUBY_ENC_CODERANGE_VALID:
      return "valid";
    case RUBY_ENC_CODERANGE_BROKEN:
      return "broken";
    default:
      return "unknown";
  }
}

bool ShapeTooComplex(uint32_t shape_id) {
  return shape_id == too_complex_shape_id;
}

void EachShape(void (*fn)(const Shape& shape, void* data), void* data) {
#if MEMPROF_RUBY_SINCE(3, 3)
  if (!shape_layout_ok) return;
  struct Call {
    void (*fn)(const Shape&, void*);
    void* data;
  } call{fn, data};
  rb_shape_each_shape(
      [](rb_shape* shape, void* data) {
        const auto* s = reinterpret_cast<const ShapeLayout*>(shape);
        if (s->type >= std::size(kShapeTypes)) return;  // not a shape as checked at load
        const Shape record{reinterpret_cast<uintptr_t>(shape),
                           rb_shape_id(shape),
                           s->parent_id,
                           kShapeTypes[s->type],
                           s->type == kShapeIvar ? s->edge_name : 0,
                           rb_shape_depth(shape),
                           rb_shape_edges_count(shape),
                           rb_shape_memsize(shape)};
        auto* c = static_cast<Call*>(data);
        c->fn(record, c->data);
      },
      &call);
#else
  (void)fn;
  (void)data;
#endif
}

size_t SlotSize(VALUE obj) {
#if MEMPROF_RUBY_SINCE(3, 3)
  return rb_gc_obj_slot_size(obj);
#else
  (void)obj;
  return 0;
#endif
}

VALUE HashDefaultProc(VALUE hash) {
  if (!memprof_hash_has_default_proc(hash)) return 0;
  const VALUE ifnone = memprof_hash_ifnone(hash);
  // What the flag says must be a Proc: anything else leaves the field out.
  return !SPECIAL_CONST_P(ifnone) && RTEST(rb_obj_is_proc(ifnone)) ? ifnone : 0;
}

VALUE AttachedObject(VALUE singleton) {
#if MEMPROF_RUBY_SINCE(3, 2)
  return rb_class_attached_object(singleton);  // 3.3 keeps no __attached__ ivar
#else
  return rb_ivar_get(singleton, id_attached);
#endif
}

int ClassVariationCount(VALUE klass) {
  if (!class_layout_ok) return -1;
  return reinterpret_cast<const ClassLayout*>(klass)->variation_count;
}

bool IsCallinfo(int imemo_type) {
  return imemo_type >= 0 && imemo_type == imemo_callinfo;
}
bool IsCallcache(int imemo_type) {
  return imemo_type >= 0 && imemo_type == imemo_callcache;
}

ID CallinfoMethodId(VALUE ci) {
  if (!kShapes) return 0;
  const ID mid = reinterpret_cast<const CallinfoLayout*>(ci)->mid;
  return mid != 0 && rb_id2name(mid) != nullptr ? mid : 0;  // an ID Ruby knows, or nothing
}

bool CallcacheEntry(VALUE cc, ID* called_id, VALUE* receiver_class) {
  if (!kShapes) return false;
  const auto* layout = reinterpret_cast<const CallcacheLayout*>(cc);
  // An invalidated cache (class 0) no longer keeps its method entry alive: not read.
  const VALUE klass = layout->klass;
  const VALUE cme = reinterpret_cast<VALUE>(layout->cme);
  if (klass == 0 || cme == 0 || SPECIAL_CONST_P(cme) || BUILTIN_TYPE(cme) != T_IMEMO ||
      ImemoType(cme) != imemo_ment)
    return false;
  const ID id = reinterpret_cast<const MethodEntryLayout*>(cme)->called_id;
  if (id == 0 || rb_id2name(id) == nullptr) return false;
  *called_id = id;
  *receiver_class = klass;
  return true;
}

}  // namespace memprof::compat
