/* Reading the GC's marks at the end of marking (vm_internals.h: memprof_gc_marks), so that the
   allocation tracker learns of frees once a GC instead of in a hook on every freed object. */
// clang-format off
#include "vm_shared.h" /* first: it includes 3.1's MJIT header */
// clang-format on
#include <ruby/version.h>

#if MEMPROF_VM_LAYOUT && RUBY_API_VERSION_MINOR >= 4

static const memprof_heap_page_t* heap_page(VALUE obj) {
  const uintptr_t body = obj & ~(((uintptr_t)1 << MEMPROF_HEAP_PAGE_ALIGN_LOG) - 1);
  return *(const memprof_heap_page_t* const*)body;
}

static int marked(memprof_value obj) {
  const size_t slot =
      (obj & (((uintptr_t)1 << MEMPROF_HEAP_PAGE_ALIGN_LOG) - 1)) / MEMPROF_BASE_SLOT_SIZE;
  return (heap_page(obj)->mark_bits[slot / 64] >> (slot % 64)) & 1;
}

/* The page of obj as the layout reads it: its body points back at the page, obj is one of its
   slots. */
static int page_agrees(VALUE obj) {
  const memprof_heap_page_t* page = heap_page(obj);
  const uintptr_t body = obj & ~(((uintptr_t)1 << MEMPROF_HEAP_PAGE_ALIGN_LOG) - 1);
  if (page == NULL || (uintptr_t)page->body != body || page->slot_size < MEMPROF_BASE_SLOT_SIZE)
    return 0;
  return obj >= page->start && (obj - page->start) % page->slot_size == 0 &&
         (obj - page->start) / page->slot_size < page->total_slots;
}

/* Ruby context, between GCs: Object is old, so its page's marks hold it from one GC to the next,
   and an object just made is not marked (unless an incremental marking is under way: then
   the check fails, and the FREEOBJ hook serves). */
static int layout_agrees(void) {
  VALUE fresh = rb_obj_hide(rb_ary_new());
  const int agrees = rb_gc_count() > 0 && page_agrees(rb_cObject) && page_agrees(fresh) &&
                     marked(rb_cObject) && !marked(fresh);
  RB_GC_GUARD(fresh);
  return agrees;
}

memprof_marked_fn* memprof_gc_marks(void) {
  static int checked = -1;
  if (checked < 0) checked = layout_agrees();
  return checked ? &marked : NULL;
}

#elif RUBY_API_VERSION_MAJOR == 3 && RUBY_API_VERSION_MINOR < 4

int rb_objspace_marked_object_p(VALUE obj); /* exported by libruby, declared by no public header */

static int marked(memprof_value obj) {
  return rb_objspace_marked_object_p(obj);
}

memprof_marked_fn* memprof_gc_marks(void) {
  return &marked;
}

#else

memprof_marked_fn* memprof_gc_marks(void) {
  return NULL;
}

#endif
