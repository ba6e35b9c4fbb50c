/* The run-time checks of vm_layout.h: each part of the layout memprof reads is compared, once
   at load, with what public functions say of objects made for the purpose; a part that
   disagrees is not read (the dump names nothing with it and META lists it). Pointers that a
   wrong layout would make garbage are read through memprof_probe_read. */
// clang-format off
#include "vm_shared.h" /* first: it includes 3.1's MJIT header */
// clang-format on
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if MEMPROF_VM_LAYOUT

static const memprof_vm_t* checked_vm = NULL;

const memprof_vm_t* memprof_vm(void) {
  return memprof_vm_part_ok(MEMPROF_PART_VM_ROOTS) ? checked_vm : NULL;
}

/* Whether value is a heap object whose class is klass (0: a hidden one) and type is type. */
static int probe_object(const int fds[2], VALUE value, VALUE klass, int type) {
  struct RBasic basic;
  if (RB_SPECIAL_CONST_P(value) || (value % sizeof(VALUE)) != 0 ||
      !memprof_probe_read(fds, (const void*)value, &basic, sizeof basic))
    return 0;
  return (int)(basic.flags & RUBY_T_MASK) == type && (klass == Qundef || basic.klass == klass);
}

int memprof_probe_id_lookup(const int fds[2], const struct memprof_id_table* table, uint32_t key,
                            VALUE* val) {
  const int mask = table->capa - 1;
  int at = (int)(key & (uint32_t)mask);
  /* From key & (capa - 1), one slot further each step, past slots marked collided; every
     slot of a chain is counted in `used`, so no more are read, whatever the table's size. */
  for (int step = 1; step <= table->used; step++) {
    struct memprof_id_item item;
    if (!memprof_probe_read(fds, table->items + at, &item, sizeof item)) return 0;
    if (item.key == key) {
      *val = item.val;
      return 1;
    }
    if (!item.collision) return 0;
    at = (at + step) & mask;
  }
  return 0;
}

int memprof_probe_id_table(const int fds[2], const void* table, struct memprof_id_table* copy) {
  return table != NULL && ((uintptr_t)table % sizeof(void*)) == 0 &&
         memprof_probe_read(fds, table, copy, sizeof *copy) && copy->capa > 0 &&
         (copy->capa & (copy->capa - 1)) == 0 && copy->num <= copy->used &&
         copy->used <= copy->capa && copy->items != NULL &&
         ((uintptr_t)copy->items % sizeof(void*)) == 0;
}

/* The current thread: its self and its context's thread agree with Thread.current. */
static const memprof_thread_t* check_thread(const int fds[2]) {
  const VALUE current = rb_thread_current();
  const memprof_thread_t* th = (const memprof_thread_t*)memprof_typed_data(current, "VM/thread");
  memprof_ec_t ec;
  if (th == NULL || th->self != current || th->ec == NULL ||
      !memprof_probe_read(fds, th->ec, &ec, sizeof ec) || ec.thread_ptr != th ||
      ec.fiber_ptr == NULL)
    return NULL;
  const long offset = (long)((const char*)th->ec - (const char*)ec.fiber_ptr);
  if (offset <= 0 || offset > 4096) return NULL;
  memprof_fiber_ec_offset = offset;
  return th;
}

/* The VM: its main thread is Thread.main, its ready exceptions are what they are, and the
   load path, loaded features and $0 have the types Ruby gives them. */
static int check_vm(const int fds[2], const memprof_thread_t* th) {
  memprof_vm_t vm;
  memprof_thread_t main_thread;
  if (th == NULL || !memprof_probe_read(fds, th->vm, &vm, sizeof vm) ||
      !memprof_probe_read(fds, vm.ractor.main_thread, &main_thread, sizeof main_thread) ||
      main_thread.self != rb_thread_main() || vm.ractor.cnt == 0 ||
      !probe_object(fds, vm.special_exceptions[MEMPROF_SPECIAL_NOMEMORY], rb_eNoMemError,
                    T_OBJECT) ||
      !probe_object(fds, vm.special_exceptions[MEMPROF_SPECIAL_SYSSTACK], rb_eSysStackError,
                    T_OBJECT) ||
      !probe_object(fds, vm.load_path, Qundef, T_ARRAY) || /* it has singleton methods */
      !probe_object(fds, vm.loaded_features, rb_cArray, T_ARRAY) ||
      !probe_object(fds, vm.progname, Qundef, T_STRING) ||
      !probe_object(fds, vm.mark_object_ary, 0, MEMPROF_REGISTERED_PIN_LIST ? T_DATA : T_ARRAY))
    return 0;
  checked_vm = th->vm;
  return 1;
}

/* Object's constant table holds Object and BasicObject. */
static int check_constants(void) {
  st_table* constants = (st_table*)rb_mod_const_at(rb_cObject, NULL);
  st_data_t object = 0, basic = 0;
  const int ok = constants != NULL &&
                 rb_st_lookup(constants, (st_data_t)rb_intern("Object"), &object) &&
                 rb_st_lookup(constants, (st_data_t)rb_intern("BasicObject"), &basic) &&
                 memprof_const_entry_value((const void*)object) == rb_cObject &&
                 memprof_const_entry_value((const void*)basic) == rb_cBasicObject;
  if (constants != NULL) rb_st_free_table(constants);
  return ok;
}

/* A Hash's default as Hash#default= set it; a big Hash's entries in insertion order, past a
   deleted one. */
static int check_hash(enum memprof_vm_part part) {
  enum { SIZE = 20 };
  VALUE hash = rb_hash_new();
  VALUE marker = rb_obj_alloc(rb_cObject);
  rb_hash_set_ifnone(hash, marker);
  for (long i = 0; i < SIZE; i++) rb_hash_aset(hash, LONG2FIX(i), LONG2FIX(-i));
  rb_hash_delete(hash, LONG2FIX(3));
  int ok = 1;
  if (part == MEMPROF_PART_HASH_DEFAULTS) {
    ok =
        memprof_layout_hash_ifnone(hash) == marker && !FL_TEST_RAW(hash, MEMPROF_HASH_PROC_DEFAULT);
  } else {
    const st_table* table = memprof_layout_hash_st(hash);
    ok = table != NULL && table->num_entries == SIZE - 1 &&
         table->entries_bound - table->entries_start == SIZE;
    for (long i = 0; ok && i < SIZE; i++) {
      VALUE key = 0, value = 0;
      const int live = memprof_hash_entry_at(hash, i, &key, &value);
      ok = i == 3 ? !live : live && key == LONG2FIX(i) && value == LONG2FIX(-i);
    }
  }
  RB_GC_GUARD(marker);
  RB_GC_GUARD(hash);
  return ok;
}

/* BasicObject's method table holds the entries of #initialize and #== (an operator, whose ID
   is its serial). */
static int check_methods(const int fds[2]) {
  struct memprof_id_table table;
  if (!memprof_probe_id_table(fds, memprof_layout_class_m_tbl(rb_cBasicObject), &table)) return 0;
  const ID ids[] = {rb_intern("initialize"), rb_intern("==")};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    VALUE entry;
    if (memprof_serial_id(memprof_id_serial(ids[i])) != ids[i] ||
        !memprof_probe_id_lookup(fds, &table, memprof_id_serial(ids[i]), &entry) ||
        !probe_object(fds, entry, Qundef, T_IMEMO))
      return 0;
  }
  return 1;
}

static void find_local(void* data, memprof_value value, memprof_value id) {
  if (id == rb_intern("memprof_layout_local")) *(VALUE*)data = value;
}

/* A Proc made for the purpose: its block's iseq is the one rb_proc_get_iseq gives, whose local
   table holds its parameter, and the env it captured holds the local it reads. */
static void check_procs(const int fds[2], unsigned int* parts) {
  VALUE probe = rb_eval_string(
      "memprof_layout_local = Object.new\n"
      "[proc { |memprof_layout_param| memprof_layout_local }, memprof_layout_local]");
  const VALUE proc = rb_ary_entry(probe, 0);
  const struct memprof_block* block = (const struct memprof_block*)memprof_typed_data(proc, "proc");
  const void* iseq = rb_proc_get_iseq(proc, NULL);
  if (block == NULL || block->type != 0 || block->as.captured.code != iseq || iseq == NULL) return;
  *parts |= 1u << MEMPROF_PART_PROC_SITES;
  struct memprof_iseq copy;
  memprof_iseq_body_t body;
  ID param;
  if (!memprof_probe_read(fds, iseq, &copy, sizeof copy) ||
      !memprof_probe_read(fds, copy.body, &body, sizeof body) || body.local_table_size != 1 ||
      !memprof_probe_read(fds, body.local_table, &param, sizeof param) ||
      param != rb_intern("memprof_layout_param"))
    return;
  VALUE env = 0, local = 0;
  if (!memprof_probe_read(fds, block->as.captured.ep + 1, &env, sizeof env) || /* its env */
      !probe_object(fds, env, Qundef, T_IMEMO) || ((RBASIC(env)->flags >> FL_USHIFT) & 0x0f) != 0)
    return;
  memprof_vm_parts |= 1u << MEMPROF_PART_LOCALS; /* memprof_env_each_local reads only then */
  memprof_env_each_local(env, find_local, &local);
  memprof_vm_parts &= ~(1u << MEMPROF_PART_LOCALS);
  if (local == rb_ary_entry(probe, 1)) *parts |= 1u << MEMPROF_PART_LOCALS;
  RB_GC_GUARD(probe);
}

/* MEMPROF_VM_LAYOUT_OFF="constants,locals": parts not to read, as if their check had failed
   (a way out should a check pass on a layout it should not; the tests' way to fail one). */
static unsigned int parts_turned_off(void) {
  const char* off = getenv("MEMPROF_VM_LAYOUT_OFF");
  unsigned int parts = 0;
  for (int part = 0; off != NULL && part < MEMPROF_PART_COUNT; part++) {
    const char* name = memprof_vm_part_name((enum memprof_vm_part)part);
    const size_t len = strlen(name);
    for (const char* at = strstr(off, name); at != NULL; at = strstr(at + 1, name)) {
      if ((at == off || at[-1] == ',') && (at[len] == '\0' || at[len] == ',')) parts |= 1u << part;
    }
  }
  return parts;
}

void memprof_vm_check(void) {
  int fds[2];
  if (pipe(fds) != 0) return;
  unsigned int parts = 0;
  const memprof_thread_t* th = check_thread(fds);
  if (th != NULL) parts |= 1u << MEMPROF_PART_FIBER_LOCALS;
  if (check_vm(fds, th)) parts |= 1u << MEMPROF_PART_VM_ROOTS;
  if (check_constants()) parts |= 1u << MEMPROF_PART_CONSTANTS;
  if (check_hash(MEMPROF_PART_HASH_DEFAULTS)) parts |= 1u << MEMPROF_PART_HASH_DEFAULTS;
  if (check_hash(MEMPROF_PART_HASH_ENTRIES)) parts |= 1u << MEMPROF_PART_HASH_ENTRIES;
  if (check_methods(fds)) parts |= 1u << MEMPROF_PART_METHODS;
  check_procs(fds, &parts);
  close(fds[0]);
  close(fds[1]);
  const unsigned int off = parts_turned_off();
  memprof_vm_parts = parts & ~off; /* memprof_vm() answers from here on */
  /* The tables vm_tables.c finds need the VM (the objspace) or nothing of the layout. */
  if (memprof_vm_part_ok(MEMPROF_PART_VM_ROOTS) && memprof_check_finalizer_table())
    parts |= 1u << MEMPROF_PART_FINALIZERS;
  parts |= (1u << MEMPROF_PART_GLOBALS) | (1u << MEMPROF_PART_SYMBOLS);
  memprof_vm_parts = parts & ~off;
}

#else

void memprof_vm_check(void) {}

#endif
