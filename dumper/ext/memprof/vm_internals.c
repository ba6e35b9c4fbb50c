/* What the dumper reads of the VM's private structures (vm_layout.h chooses them for this
   Ruby), each part checked once at load against what public functions return; vm_tables.c
   reads the VM's tables. A part whose check fails is named by nothing (memprof_vm_unnamed). */
// clang-format off
#include "vm_shared.h" /* first: it includes 3.1's MJIT header */
// clang-format on
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

unsigned int memprof_vm_parts = 0;

/* What META's "unnamed" says for a part whose check failed. */
const char* memprof_vm_part_name(enum memprof_vm_part part) {
  static const char* const names[MEMPROF_PART_COUNT] = {
      "constants",    "hash defaults", "big hash entries", "methods", "locals",      "proc sites",
      "fiber locals", "vm roots",      "finalizers",       "globals", "symbol table"};
  return names[part];
}

const char* memprof_vm_unnamed(int i) {
  for (int part = 0; part < MEMPROF_PART_COUNT; part++) {
    if (!memprof_vm_part_ok((enum memprof_vm_part)part) && i-- == 0)
      return memprof_vm_part_name((enum memprof_vm_part)part);
  }
  return NULL;
}

int memprof_vm_internals_available(void) {
  return MEMPROF_VM_LAYOUT;
}

int memprof_vm_names_constants(void) {
  return memprof_vm_part_ok(MEMPROF_PART_CONSTANTS);
}

/* Public on every Ruby: RClass's super, which an ICLASS has too. */
memprof_value memprof_class_superclass(memprof_value klass) {
  return rb_class_get_superclass(klass);
}

/* The raw system call keeps a sanitizer's interceptor from checking bounds a probe means to
   cross; the pipe refuses (EFAULT) what cannot be read. */
int memprof_probe_read(const int fds[2], const void* addr, void* out, size_t len) {
  const long n = syscall(SYS_write, fds[1], addr, len);
  if (n <= 0) return 0;
  return read(fds[0], out, (size_t)n) == n && (size_t)n == len;
}

#if MEMPROF_VM_LAYOUT

uint32_t memprof_id_serial(ID id) {
  return id <= MEMPROF_LAST_OP_ID ? (uint32_t)id : (uint32_t)(id >> 4); /* ID_SCOPE_SHIFT */
}

/* An operator's ID is its serial; other IDs keep theirs above the scope bits, which
   rb_id2name does not read. */
ID memprof_serial_id(uint32_t serial) {
  return serial <= MEMPROF_LAST_OP_ID ? (ID)serial : ((ID)serial << 4) | 1; /* STATIC_SYM */
}

const void* memprof_typed_data(VALUE obj, const char* name) {
  if (!RB_TYPE_P(obj, T_DATA) || !RTYPEDDATA_P(obj)) return NULL;
  const rb_data_type_t* type = RTYPEDDATA_TYPE(obj);
  if (type == NULL || type->wrap_struct_name == NULL || strcmp(type->wrap_struct_name, name) != 0)
    return NULL;
#ifdef TYPED_DATA_EMBEDDED /* 3.3+: an embeddable type's struct may sit in the object itself */
  return RTYPEDDATA_GET_DATA(obj);
#else
  return RTYPEDDATA_DATA(obj);
#endif
}

memprof_value memprof_hash_ifnone(memprof_value hash) {
  return memprof_vm_part_ok(MEMPROF_PART_HASH_DEFAULTS) ? memprof_layout_hash_ifnone(hash) : Qnil;
}

int memprof_hash_has_default_proc(memprof_value hash) {
  return memprof_vm_part_ok(MEMPROF_PART_HASH_DEFAULTS) &&
         FL_TEST_RAW(hash, MEMPROF_HASH_PROC_DEFAULT) != 0;
}

/* st.c's entry, the same on every Ruby memprof knows, and the hash that marks a deleted one. */
struct memprof_st_entry {
  st_index_t hash;
  st_data_t key;
  st_data_t record;
};
#define MEMPROF_DELETED_HASH (~(st_index_t)0)

long memprof_hash_positions(memprof_value hash) {
  const st_table* table;
  if (!memprof_vm_part_ok(MEMPROF_PART_HASH_ENTRIES) ||
      (table = memprof_layout_hash_st(hash)) == NULL)
    return -1;
  return (long)(table->entries_bound - table->entries_start);
}

int memprof_hash_entry_at(memprof_value hash, long position, memprof_value* key,
                          memprof_value* value) {
  const st_table* table = memprof_layout_hash_st(hash);
  const struct memprof_st_entry* entry =
      (const struct memprof_st_entry*)table->entries + table->entries_start + position;
  if (entry->hash == MEMPROF_DELETED_HASH) return 0;
  *key = entry->key;
  *value = entry->record;
  return 1;
}

/* constant.h's entry, the same on every Ruby memprof knows. */
struct memprof_const_entry {
  int flag;
  int line;
  VALUE value;
  VALUE file;
};

memprof_value memprof_const_entry_value(const void* entry) {
  return ((const struct memprof_const_entry*)entry)->value;
}

void memprof_env_each_local(memprof_value env_value, memprof_local_fn* fn, void* data) {
  if (!memprof_vm_part_ok(MEMPROF_PART_LOCALS)) return;
  const struct memprof_env* env = (const struct memprof_env*)env_value;
  if (env->iseq == NULL || env->ep == NULL) return;
  /* An env made for a C block points at an ifunc, not an iseq. */
  const VALUE iseq = (VALUE)env->iseq;
  if (!RB_TYPE_P(iseq, T_IMEMO) ||
      ((RBASIC(iseq)->flags >> FL_USHIFT) & 0x0f) != MEMPROF_IMEMO_ISEQ)
    return;
  const memprof_iseq_body_t* body = env->iseq->body;
  if (body == NULL || body->local_table == NULL) return;
  unsigned int size = body->local_table_size;
  if (size + MEMPROF_ENV_DATA_SIZE > env->env_size) return;
  for (unsigned int i = 0; i < size; i++) {
    /* Locals sit below the env's data words, the first local lowest. */
    VALUE value = env->ep[-(long)(size - i - 1 + MEMPROF_ENV_DATA_SIZE)];
    fn(data, value, body->local_table[i]);
  }
}

/* The block a Proc runs, through the Procs made from Procs (proc(&other) shares the other's). */
static const struct memprof_block* proc_block(VALUE obj) {
  const struct memprof_block* block = (const struct memprof_block*)memprof_typed_data(obj, "proc");
  for (int depth = 0; block != NULL && block->type == 3 && depth < 16; depth++)
    block = (const struct memprof_block*)memprof_typed_data(block->as.proc, "proc");
  return block;
}

int memprof_proc_block_site(memprof_value obj, struct memprof_block_site* site) {
  if (!memprof_vm_part_ok(MEMPROF_PART_PROC_SITES)) return 0;
  const struct memprof_block* block = proc_block(obj);
  if (block == NULL || block->type != 0 || block->as.captured.code == NULL) return 0;
  /* Exported on every Ruby memprof knows; none allocates. */
  const VALUE file = rb_iseq_path(block->as.captured.code);
  const VALUE first_line = rb_iseq_first_lineno(block->as.captured.code);
  const VALUE label = rb_iseq_label(block->as.captured.code);
  if (!RB_TYPE_P(file, T_STRING) || !FIXNUM_P(first_line)) return 0;
  site->path = RSTRING_PTR(file);
  site->path_len = RSTRING_LEN(file);
  site->line = FIX2LONG(first_line);
  site->label = RB_TYPE_P(label, T_STRING) ? RSTRING_PTR(label) : NULL;
  site->label_len = RB_TYPE_P(label, T_STRING) ? RSTRING_LEN(label) : 0;
  return 1;
}

/* Calls fn for each entry of an id table, with an ID rb_id2name knows. */
static void id_table_each(const struct memprof_id_table* table, memprof_local_fn* fn, void* data) {
  if (table == NULL || table->items == NULL) return;
  for (int i = 0; i < table->capa; i++) {
    if (table->items[i].key != 0)
      fn(data, table->items[i].val, memprof_serial_id(table->items[i].key));
  }
}

void memprof_class_each_method(memprof_value klass, memprof_local_fn* fn, void* data) {
  if (!memprof_vm_part_ok(MEMPROF_PART_METHODS)) return;
  if (!RB_TYPE_P(klass, T_CLASS) && !RB_TYPE_P(klass, T_MODULE)) return;
  id_table_each((const struct memprof_id_table*)memprof_layout_class_m_tbl(klass), fn, data);
}

long memprof_fiber_ec_offset = -1;

void memprof_each_fiber_local(memprof_value obj, memprof_local_fn* fn, void* data) {
  if (!memprof_vm_part_ok(MEMPROF_PART_FIBER_LOCALS)) return;
  const memprof_ec_t* ec = NULL;
  const memprof_thread_t* th = (const memprof_thread_t*)memprof_typed_data(obj, "VM/thread");
  if (th != NULL) {
    ec = memprof_thread_ec(th);
  } else {
    const void* fiber = memprof_typed_data(obj, "fiber");
    if (fiber == NULL || memprof_fiber_ec_offset < 0) return;
    ec = (const memprof_ec_t*)((const char*)fiber + memprof_fiber_ec_offset);
    /* Not the layout this build expects: name nothing rather than read garbage. */
    if ((const void*)ec->fiber_ptr != fiber) return;
  }
  if (ec == NULL) return;
  id_table_each((const struct memprof_id_table*)ec->local_storage, fn, data);
}

#else /* no layout for this Ruby: names what public functions give */

memprof_value memprof_hash_ifnone(memprof_value hash) {
  (void)hash;
  return Qnil;
}
int memprof_hash_has_default_proc(memprof_value hash) {
  (void)hash;
  return 0;
}
long memprof_hash_positions(memprof_value hash) {
  (void)hash;
  return -1;
}
int memprof_hash_entry_at(memprof_value hash, long position, memprof_value* key,
                          memprof_value* value) {
  (void)hash, (void)position, (void)key, (void)value;
  return 0;
}
memprof_value memprof_const_entry_value(const void* entry) {
  (void)entry;
  return Qnil;
}
void memprof_env_each_local(memprof_value env, memprof_local_fn* fn, void* data) {
  (void)env, (void)fn, (void)data;
}
int memprof_proc_block_site(memprof_value obj, struct memprof_block_site* site) {
  (void)obj, (void)site;
  return 0;
}
void memprof_class_each_method(memprof_value klass, memprof_local_fn* fn, void* data) {
  (void)klass, (void)fn, (void)data;
}
void memprof_each_fiber_local(memprof_value obj, memprof_local_fn* fn, void* data) {
  (void)obj, (void)fn, (void)data;
}

#endif
