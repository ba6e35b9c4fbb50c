/* Names for what the "vm" GC root holds: the VM's own fields and what C code registered. */
// clang-format off
#include "vm_shared.h" /* first: it includes 3.1's MJIT header */
// clang-format on

#if MEMPROF_VM_LAYOUT
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* Writes name into buf (at most len bytes with its NUL); 1, for the caller to return. */
static int put_name(char* buf, size_t len, const char* name) {
  snprintf(buf, len, "%s", name);
  return 1;
}

int memprof_vm_root_name(memprof_value value, char* buf, size_t len) {
  const memprof_vm_t* vm = memprof_vm();
  if (vm == NULL || RB_SPECIAL_CONST_P(value) || len == 0) return 0;
  static const struct {
    size_t offset;
    const char* name;
  } fields[] = {
      {offsetof(memprof_vm_t, mark_object_ary),
       "registered by C code (rb_gc_register_mark_object)"},
      {offsetof(memprof_vm_t, top_self), "main"},
      {offsetof(memprof_vm_t, load_path), "$LOAD_PATH"},
      {offsetof(memprof_vm_t, load_path_snapshot), "$LOAD_PATH (snapshot)"},
      {offsetof(memprof_vm_t, load_path_check_cache), "$LOAD_PATH (check cache)"},
      {offsetof(memprof_vm_t, expanded_load_path), "$LOAD_PATH (expanded)"},
      {offsetof(memprof_vm_t, loaded_features), "$LOADED_FEATURES"},
      {offsetof(memprof_vm_t, loaded_features_snapshot), "$LOADED_FEATURES (snapshot)"},
      {offsetof(memprof_vm_t, loaded_features_realpaths), "$LOADED_FEATURES (real paths)"},
      {offsetof(memprof_vm_t, orig_progname), "$0 (as the program started)"},
      {offsetof(memprof_vm_t, progname), "$0"},
      {offsetof(memprof_vm_t, coverages), "coverage (Coverage.start)"},
      {offsetof(memprof_vm_t, me2counter), "method coverage counters"},
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    if (*(const VALUE*)((const char*)vm + fields[i].offset) == value)
      return put_name(buf, len, fields[i].name);
  }
  if (value == memprof_symbol_names || value == memprof_dynamic_symbol_names)
    return put_name(buf, len, memprof_vm_registered_name(value));
  for (size_t i = 0; i < sizeof vm->special_exceptions / sizeof vm->special_exceptions[0]; i++) {
    if (vm->special_exceptions[i] == value)
      return put_name(buf, len, "an exception the VM keeps ready (no memory, stack too deep)");
  }
  for (int signo = 0; signo < (int)(sizeof vm->trap_list.cmd / sizeof vm->trap_list.cmd[0]);
       signo++) {
    if (vm->trap_list.cmd[signo] == value) {
      const char* abbrev = signo > 0 ? sigabbrev_np(signo) : NULL;
      if (abbrev != NULL)
        snprintf(buf, len, "trap handler of SIG%s", abbrev);
      else
        snprintf(buf, len, "trap handler of signal %d", signo);
      return 1;
    }
  }
  return 0;
}

/* 3.4's chain of registered objects (vm.c's pin_array_list): each link a T_DATA. */
struct memprof_pin_list {
  VALUE next;
  long len;
  VALUE* array;
};

void memprof_vm_pin_list_each(memprof_value obj, memprof_value_fn* fn, void* data) {
  const struct memprof_pin_list* list =
      (const struct memprof_pin_list*)memprof_typed_data(obj, "VM/pin_array_list");
  if (list == NULL) return;
  if (!NIL_P(list->next)) fn(data, list->next);
  for (long i = 0; i < list->len; i++) fn(data, list->array[i]);
}

struct pin_list_walk {
  memprof_value_fn* fn;
  void* data;
  VALUE next;
};
static void pin_list_walk_i(void* data, memprof_value value) {
  struct pin_list_walk* walk = (struct pin_list_walk*)data;
  if (memprof_typed_data(value, "VM/pin_array_list") != NULL) {
    walk->next = value; /* the older link, walked after this one */
    return;
  }
  walk->fn(walk->data, value);
}

void memprof_vm_registered_each(memprof_value_fn* fn, void* data) {
  const memprof_vm_t* vm = memprof_vm();
  if (vm == NULL) return;
  if (MEMPROF_REGISTERED_PIN_LIST) {
    struct pin_list_walk walk = {fn, data, vm->mark_object_ary};
    for (VALUE link = walk.next; !NIL_P(link) && RB_TYPE_P(link, T_DATA); link = walk.next) {
      fn(data, link);
      walk.next = Qnil;
      memprof_vm_pin_list_each(link, pin_list_walk_i, &walk);
    }
    return;
  }
  /* 3.1 and 3.3: a hidden Array of hidden Arrays (buckets). */
  if (!RB_TYPE_P(vm->mark_object_ary, T_ARRAY)) return;
  const long buckets = RARRAY_LEN(vm->mark_object_ary);
  const VALUE* bucket = RARRAY_CONST_PTR(vm->mark_object_ary);
  for (long i = 0; i < buckets; i++) {
    fn(data, bucket[i]);
    if (!RB_TYPE_P(bucket[i], T_ARRAY)) continue;
    const long n = RARRAY_LEN(bucket[i]);
    const VALUE* objects = RARRAY_CONST_PTR(bucket[i]);
    for (long j = 0; j < n; j++) fn(data, objects[j]);
  }
}

const char* memprof_vm_registered_name(memprof_value value) {
  if (value == memprof_symbol_names)
    return "symbol table (the names of Symbols that live for ever)";
  if (value == memprof_dynamic_symbol_names)
    return "symbol table (the names of collectable Symbols)";
  if (RB_SPECIAL_CONST_P(value) || RB_TYPE_P(value, T_CLASS) || RB_TYPE_P(value, T_MODULE))
    return NULL; /* a class or module reads well as it is */
  return "registered by C code (rb_gc_register_mark_object)";
}

#else /* no layout for this Ruby */

int memprof_vm_root_name(memprof_value value, char* buf, size_t len) {
  (void)value, (void)buf, (void)len;
  return 0;
}
void memprof_vm_registered_each(memprof_value_fn* fn, void* data) {
  (void)fn, (void)data;
}
void memprof_vm_pin_list_each(memprof_value obj, memprof_value_fn* fn, void* data) {
  (void)obj, (void)fn, (void)data;
}
const char* memprof_vm_registered_name(memprof_value value) {
  (void)value;
  return NULL;
}

#endif
