/* VM internals read through Ruby's MJIT header; the only file that depends on the VM layout. */
/* The build defines MEMPROF_MJIT_HEADER only for Ruby 3.1 (extconf.rb, CMakeLists.txt); the
   header is self-contained and must come first. */
#ifdef MEMPROF_MJIT_HEADER
/* The header declares static functions it never defines (warned about at the end of the file). */
#pragma GCC diagnostic ignored "-Wunused-function"
#include MEMPROF_MJIT_HEADER
#define MEMPROF_HAVE_INTERNALS 1
#else
#define MEMPROF_HAVE_INTERNALS 0
#endif

#include "vm_internals.h"

#if MEMPROF_HAVE_INTERNALS
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

int memprof_vm_internals_available(void) {
  return MEMPROF_HAVE_INTERNALS;
}

#if MEMPROF_HAVE_INTERNALS

memprof_value memprof_class_superclass(memprof_value klass) {
  return RCLASS_SUPER(klass);
}

memprof_value memprof_hash_ifnone(memprof_value hash) {
  return RHASH_IFNONE(hash);
}

int memprof_hash_has_default_proc(memprof_value hash) {
  return FL_TEST_RAW(hash, RHASH_PROC_DEFAULT) != 0;
}

/* Ruby 3.1's st.c, which no header shows: an entry, and the hash that marks a deleted one. */
struct memprof_st_entry {
  st_index_t hash; /* st.c's st_hash_t */
  st_data_t key;
  st_data_t record;
};
#define MEMPROF_DELETED_HASH (~(st_index_t)0)

long memprof_hash_positions(memprof_value hash) {
  if (RHASH_AR_TABLE_P(hash)) return -1;
  const st_table* table = RHASH_ST_TABLE(hash);
  return (long)(table->entries_bound - table->entries_start);
}

int memprof_hash_entry_at(memprof_value hash, long position, memprof_value* key,
                          memprof_value* value) {
  const st_table* table = RHASH_ST_TABLE(hash);
  const struct memprof_st_entry* entry =
      (const struct memprof_st_entry*)table->entries + table->entries_start + position;
  if (entry->hash == MEMPROF_DELETED_HASH) return 0;
  *key = entry->key;
  *value = entry->record;
  return 1;
}

memprof_value memprof_const_entry_value(const void* entry) {
  return ((const rb_const_entry_t*)entry)->value;
}

void memprof_env_each_local(memprof_value env_value, memprof_local_fn* fn, void* data) {
  const rb_env_t* env = (const rb_env_t*)env_value;
  if (env->iseq == NULL || env->ep == NULL) return;
  /* An env made for a C block points at an ifunc, not an iseq. */
  if (RB_TYPE_P((VALUE)env->iseq, T_IMEMO) == 0 || imemo_type((VALUE)env->iseq) != imemo_iseq)
    return;
  const struct rb_iseq_constant_body* body = env->iseq->body;
  if (body == NULL || body->local_table == NULL) return;
  unsigned int size = body->local_table_size;
  if (size + VM_ENV_DATA_SIZE > env->env_size) return;
  for (unsigned int i = 0; i < size; i++) {
    /* Locals sit below the env's data words, the first local lowest. */
    VALUE value = env->ep[-(long)(size - i - 1 + VM_ENV_DATA_SIZE)];
    fn(data, value, body->local_table[i]);
  }
}

unsigned int memprof_ractor_count(void) {
  return ruby_current_vm_ptr->ractor.cnt;
}

/* Ruby 3.1's id_table.c, which no header shows: open addressing over items keyed by an ID's
   serial number (0: an empty slot). */
struct memprof_id_item {
  uint32_t key; /* rb_id_serial_t */
  int collision;
  VALUE val;
};
struct memprof_id_table {
  int capa;
  int num;
  int used;
  struct memprof_id_item* items;
};

/* Calls fn for each entry of an id table, with an ID rb_id2name knows. */
static void memprof_id_table_each(const struct memprof_id_table* table, memprof_local_fn* fn,
                                  void* data) {
  if (table == NULL || table->items == NULL) return;
  for (int i = 0; i < table->capa; i++) {
    uint32_t serial = table->items[i].key;
    if (serial == 0) continue;
    /* An operator's ID is its serial; other IDs keep theirs above the scope bits, which
       rb_id2name does not read. */
    ID id = serial <= tLAST_OP_ID ? (ID)serial
                                  : ((ID)serial << RUBY_ID_SCOPE_SHIFT) | RUBY_ID_STATIC_SYM;
    fn(data, table->items[i].val, id);
  }
}

void memprof_class_each_method(memprof_value klass, memprof_local_fn* fn, void* data) {
  if (!RB_TYPE_P(klass, T_CLASS) && !RB_TYPE_P(klass, T_MODULE)) return;
  memprof_id_table_each((const struct memprof_id_table*)RCLASS_M_TBL(klass), fn, data);
}

/* A typed T_DATA's wrapped struct when its type is named `name`, else NULL. */
static const void* typed_data(memprof_value obj, const char* name) {
  if (!RB_TYPE_P(obj, T_DATA) || !RTYPEDDATA_P(obj)) return NULL;
  const rb_data_type_t* type = RTYPEDDATA_TYPE(obj);
  if (type == NULL || type->wrap_struct_name == NULL || strcmp(type->wrap_struct_name, name) != 0)
    return NULL;
  return RTYPEDDATA_DATA(obj);
}

/* Where a fiber's execution context sits in its rb_fiber_t (cont.c's, which no header shows):
   a thread's context is its current fiber's, and points back to that fiber. -1: unknown. */
static long fiber_ec_offset(void) {
  static long offset = -2;
  if (offset == -2) {
    const rb_thread_t* th = (const rb_thread_t*)typed_data(rb_thread_current(), "VM/thread");
    offset = th == NULL || th->ec == NULL || th->ec->fiber_ptr == NULL
                 ? -1
                 : (long)((const char*)th->ec - (const char*)th->ec->fiber_ptr);
  }
  return offset;
}

void memprof_each_fiber_local(memprof_value obj, memprof_local_fn* fn, void* data) {
  const rb_execution_context_t* ec = NULL;
  const rb_thread_t* th = (const rb_thread_t*)typed_data(obj, "VM/thread");
  if (th != NULL) {
    /* A finished thread's execution context is gone. */
    if (th->status == THREAD_KILLED) return;
    ec = th->ec;
  } else {
    const void* fiber = typed_data(obj, "fiber");
    const long offset = fiber_ec_offset();
    if (fiber == NULL || offset < 0) return;
    ec = (const rb_execution_context_t*)((const char*)fiber + offset);
    /* Not the layout this build expects: name nothing rather than read garbage. */
    if ((const void*)ec->fiber_ptr != fiber) return;
  }
  if (ec == NULL) return;
  memprof_id_table_each((const struct memprof_id_table*)ec->local_storage, fn, data);
}

/* gc.c's finalizer table (object -> a hidden Array of its finalizers) lives in the VM's
   objspace, whose layout no header shows: it is the table of numbers (st_init_numtable's
   type) among the objspace's first words whose every key is a heap object with a finalizer
   (FL_FINALIZE) and every value a hidden Array. Words that are not pointers are read through a
   pipe, which refuses (EFAULT) what cannot be read instead of faulting; the raw system call
   keeps a sanitizer's interceptor from checking bounds the scan means to cross. */
enum { MEMPROF_OBJSPACE_SCAN = 16384 };
static const st_table* finalizer_table = NULL;
static long finalizer_table_at = -1; /* its pointer's offset in the objspace, once found */

static int probe_read(const int fds[2], const void* addr, void* out, size_t len) {
  const long n = syscall(SYS_write, fds[1], addr, len);
  if (n <= 0) return 0;
  return read(fds[0], out, (size_t)n) == n && (size_t)n == len;
}

static int finalizer_entry_i(st_data_t key, st_data_t value, st_data_t data) {
  int* ok = (int*)data;
  if (!rb_objspace_markable_object_p((VALUE)key) || !rb_objspace_markable_object_p((VALUE)value) ||
      !FL_TEST_RAW((VALUE)key, FL_FINALIZE) || !RB_TYPE_P((VALUE)value, T_ARRAY) ||
      RBASIC((VALUE)value)->klass != 0) {
    *ok = 0;
    return ST_STOP;
  }
  return ST_CONTINUE;
}

static int is_finalizer_table(const int fds[2], const st_table* table,
                              const struct st_hash_type* numtype) {
  st_table copy;
  if (table == NULL || ((uintptr_t)table % sizeof(void*)) != 0 ||
      !probe_read(fds, table, &copy, sizeof copy) || copy.type != numtype || copy.num_entries == 0)
    return 0;
  int ok = 1;
  rb_st_foreach((st_table*)table, finalizer_entry_i, (st_data_t)&ok);
  return ok;
}

static void find_finalizer_table(const int fds[2]) {
  finalizer_table = NULL;
  const char* objspace = (const char*)GET_VM()->objspace;
  if (objspace == NULL) return;
  st_table* probe = rb_st_init_numtable();
  const struct st_hash_type* numtype = probe->type;
  rb_st_free_table(probe);
  const st_table* table = NULL;
  if (finalizer_table_at >= 0 &&
      probe_read(fds, objspace + finalizer_table_at, &table, sizeof table) &&
      is_finalizer_table(fds, table, numtype)) {
    finalizer_table = table;
  } else {
    for (long at = 0; at < MEMPROF_OBJSPACE_SCAN; at += (long)sizeof(void*)) {
      if (!probe_read(fds, objspace + at, &table, sizeof table)) break;
      if (is_finalizer_table(fds, table, numtype)) {
        finalizer_table = table;
        finalizer_table_at = at;
        break;
      }
    }
  }
}

/* Ruby 3.1's variable.c, which no header shows: a global variable and its table entry. */
struct memprof_global_variable {
  int counter;
  int block_trace;
  VALUE* data;
  rb_gvar_getter_t* getter;
  rb_gvar_setter_t* setter;
  rb_gvar_marker_t* marker;
  void* compactor;
  void* trace;
};
struct memprof_global_entry {
  struct memprof_global_variable* var;
  ID id;
  bool ractor_local;
};

/* The table of global variables (variable.c's static rb_global_tbl) and symbol.c's symbol
   table (ruby_global_symbols: its Array of static Symbols' names and its Hash of dynamic
   Symbols' names), found in libruby's writable data. */
static const struct memprof_id_table* global_table = NULL;
static VALUE symbol_names = 0;         /* hidden Array of Arrays: (name, Symbol) per serial */
static VALUE dynamic_symbol_names = 0; /* hidden identity Hash: name -> true */

static uint32_t id_serial(ID id) {
  return id <= tLAST_OP_ID ? (uint32_t)id : (uint32_t)(id >> RUBY_ID_SCOPE_SHIFT);
}

/* Looks key up in an id table through the pipe, as id_table.c's hash_table_index does:
   from key & (capa - 1), one slot further each step, past slots marked collided. Every slot of
   a chain is one the header counts in `used`, so no more are read, whatever the table's size. */
static int probe_id_table_lookup(const int fds[2], const struct memprof_id_table* table,
                                 uint32_t key, VALUE* val) {
  const int mask = table->capa - 1;
  int at = (int)(key & (uint32_t)mask);
  for (int step = 1; step <= table->used; step++) {
    struct memprof_id_item item;
    if (!probe_read(fds, table->items + at, &item, sizeof item)) return 0;
    if (item.key == key) {
      *val = item.val;
      return 1;
    }
    if (!item.collision) return 0;
    at = (at + step) & mask;
  }
  return 0;
}

/* Whether a global variable's entry for id sits in table under id, with a variable a global
   can have: what the program cannot change, since an alias re-points an entry's variable but
   never its name, and no entry is ever removed. */
static int holds_global_entry(const int fds[2], const struct memprof_id_table* table, ID id) {
  VALUE at;
  struct memprof_global_entry entry;
  struct memprof_global_variable var;
  return probe_id_table_lookup(fds, table, id_serial(id), &at) &&
         probe_read(fds, (const void*)at, &entry, sizeof entry) && entry.id == id &&
         probe_read(fds, entry.var, &var, sizeof var) && var.counter > 0 &&
         (var.marker == rb_gvar_var_marker || var.marker == rb_gvar_val_marker ||
          var.marker == rb_gvar_undef_marker);
}

/* Whether table is the table of global variables: an id table, by its header (a power-of-two
   capacity, counts within it), holding the entries of globals every Ruby defines at boot.
   The header is read through the pipe first; a chain of slots is bounded by its `used`. */
static int is_global_table(const int fds[2], const void* table, const ID probes[], int n) {
  struct memprof_id_table copy;
  if (table == NULL || ((uintptr_t)table % sizeof(void*)) != 0 ||
      !probe_read(fds, table, &copy, sizeof copy) || copy.capa <= 0 ||
      (copy.capa & (copy.capa - 1)) != 0 || copy.num < n || copy.num > copy.used ||
      copy.used > copy.capa || copy.items == NULL || ((uintptr_t)copy.items % sizeof(void*)) != 0)
    return 0;
  for (int i = 0; i < n; i++) {
    if (!holds_global_entry(fds, &copy, probes[i])) return 0;
  }
  return 1;
}

/* Whether value, an object C code registered, is the symbol table's Array of names: the
   name of `probe` sits where symbol.c keeps it (512 serials an inner Array, name then Symbol). */
static int is_symbol_names(VALUE value, ID probe, VALUE probe_name) {
  if (!RB_TYPE_P(value, T_ARRAY) || RBASIC(value)->klass != 0) return 0;
  const uint32_t serial = id_serial(probe);
  if ((long)(serial / 512) >= RARRAY_LEN(value)) return 0;
  const VALUE unit = RARRAY_AREF(value, serial / 512);
  if (!RB_TYPE_P(unit, T_ARRAY) || RBASIC(unit)->klass != 0 ||
      (long)(serial % 512) * 2 >= RARRAY_LEN(unit))
    return 0;
  return RARRAY_AREF(unit, (serial % 512) * 2) == probe_name;
}

struct registered_search {
  VALUE wanted, found;
  ID probe;
  VALUE probe_name;
};
static void find_symbol_names_i(void* data, memprof_value value) {
  struct registered_search* search = (struct registered_search*)data;
  if (search->found == 0 && is_symbol_names(value, search->probe, search->probe_name))
    search->found = value;
}
static void find_registered_i(void* data, memprof_value value) {
  struct registered_search* search = (struct registered_search*)data;
  if (value == search->wanted) search->found = value;
}

/* Calls fn(data, word, end) for each pointer-aligned word of the writable segments of the
   loaded object (libruby) that holds `inside`. */
struct writable_scan {
  const void* inside;
  void (*fn)(void* data, const VALUE* word, const VALUE* end);
  void* data;
};
static int scan_writable_i(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  const struct writable_scan* scan = (const struct writable_scan*)data;
  int mine = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && (uintptr_t)scan->inside >= start &&
        (uintptr_t)scan->inside < start + ph->p_memsz)
      mine = 1;
  }
  if (!mine) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) == 0) continue;
    const uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    const VALUE* word = (const VALUE*)((start + sizeof(VALUE) - 1) & ~(sizeof(VALUE) - 1));
    const VALUE* end = (const VALUE*)((start + ph->p_memsz) & ~(sizeof(VALUE) - 1));
    for (; word < end; word++) scan->fn(scan->data, word, end);
  }
  return 1; /* found: stop */
}

enum { MEMPROF_GLOBAL_PROBES = 4 };
struct vm_tables_scan {
  int fds[2];
  ID probes[MEMPROF_GLOBAL_PROBES]; /* globals Ruby defines at boot */
  VALUE next_to_symbol_names;       /* the word after the one that holds symbol_names */
};
static void find_vm_tables_i(void* data, const VALUE* word, const VALUE* end) {
  struct vm_tables_scan* scan = (struct vm_tables_scan*)data;
  const VALUE value = *word;
  if (value == 0 || (value % sizeof(VALUE)) != 0) return;
  if (symbol_names != 0 && value == symbol_names && word + 1 < end)
    scan->next_to_symbol_names = word[1];
  if (global_table == NULL &&
      is_global_table(scan->fds, (const void*)value, scan->probes, MEMPROF_GLOBAL_PROBES))
    global_table = (const struct memprof_id_table*)value;
}

void memprof_find_vm_tables(void) {
  int fds[2];
  if (pipe(fds) != 0) return;
  find_finalizer_table(fds);
  /* Found once: variable.c and symbol.c keep them for the life of the process. */
  static int found = 0;
  if (!found) {
    found = 1;
    struct registered_search search = {0, 0, rb_intern("to_s"), 0};
    search.probe_name = rb_id2str(search.probe);
    memprof_vm_registered_each(find_symbol_names_i, &search);
    symbol_names = search.found;
    struct vm_tables_scan state = {
        {fds[0], fds[1]},
        {rb_intern("$;"), rb_intern("$,"), rb_intern("$stdout"), rb_intern("$0")},
        0};
    struct writable_scan scan = {&rb_fs, find_vm_tables_i, &state};
    dl_iterate_phdr(scan_writable_i, &scan);
    /* ruby_global_symbols keeps the Hash of dynamic Symbols' names next to the Array: a
       registered hidden Hash, compared as a value, never read before it is known to be one. */
    search = (struct registered_search){state.next_to_symbol_names, 0, 0, 0};
    if (search.wanted != 0) memprof_vm_registered_each(find_registered_i, &search);
    if (search.found != 0 && RB_TYPE_P(search.found, T_HASH) && RBASIC(search.found)->klass == 0)
      dynamic_symbol_names = search.found;
  }
  close(fds[0]);
  close(fds[1]);
}

void memprof_global_each(memprof_global_fn* fn, void* data) {
  if (global_table == NULL) return;
  for (int i = 0; i < global_table->capa; i++) {
    if (global_table->items[i].key == 0) continue;
    const struct memprof_global_entry* entry =
        (const struct memprof_global_entry*)global_table->items[i].val;
    const struct memprof_global_variable* var = entry->var;
    VALUE value;
    int by_getter;
    if (var->marker == rb_gvar_val_marker) {
      value = (VALUE)var->data;
      by_getter = var->getter != rb_gvar_val_getter;
    } else if (var->marker == rb_gvar_var_marker && var->data != NULL) {
      value = *var->data;
      by_getter = var->getter != rb_gvar_var_getter;
    } else {
      continue; /* undefined, or kept where only its own marker knows */
    }
    if (!RB_SPECIAL_CONST_P(value)) fn(data, value, entry->id, by_getter);
  }
}

struct finalizer_each {
  memprof_pair_fn* fn;
  void* data;
};

static int finalizer_each_i(st_data_t key, st_data_t value, st_data_t data) {
  const struct finalizer_each* each = (const struct finalizer_each*)data;
  each->fn(each->data, (memprof_value)value, (memprof_value)key);
  return ST_CONTINUE;
}

void memprof_finalizer_table_each(memprof_pair_fn* fn, void* data) {
  if (finalizer_table == NULL) return;
  struct finalizer_each each = {fn, data};
  rb_st_foreach((st_table*)finalizer_table, finalizer_each_i, (st_data_t)&each);
}

/* Writes name into buf (at most len bytes with its NUL); 1, for the caller to return. */
static int put_name(char* buf, size_t len, const char* name) {
  snprintf(buf, len, "%s", name);
  return 1;
}

int memprof_vm_root_name(memprof_value value, char* buf, size_t len) {
  const rb_vm_t* vm = GET_VM();
  if (vm == NULL || RB_SPECIAL_CONST_P(value) || len == 0) return 0;
  static const struct {
    size_t offset;
    const char* name;
  } fields[] = {
      {offsetof(rb_vm_t, mark_object_ary), "registered by C code (rb_gc_register_mark_object)"},
      {offsetof(rb_vm_t, top_self), "main"},
      {offsetof(rb_vm_t, load_path), "$LOAD_PATH"},
      {offsetof(rb_vm_t, load_path_snapshot), "$LOAD_PATH (snapshot)"},
      {offsetof(rb_vm_t, load_path_check_cache), "$LOAD_PATH (check cache)"},
      {offsetof(rb_vm_t, expanded_load_path), "$LOAD_PATH (expanded)"},
      {offsetof(rb_vm_t, loaded_features), "$LOADED_FEATURES"},
      {offsetof(rb_vm_t, loaded_features_snapshot), "$LOADED_FEATURES (snapshot)"},
      {offsetof(rb_vm_t, loaded_features_realpaths), "$LOADED_FEATURES (real paths)"},
      {offsetof(rb_vm_t, orig_progname), "$0 (as the program started)"},
      {offsetof(rb_vm_t, progname), "$0"},
      {offsetof(rb_vm_t, coverages), "coverage (Coverage.start)"},
      {offsetof(rb_vm_t, me2counter), "method coverage counters"},
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    if (*(const VALUE*)((const char*)vm + fields[i].offset) == value)
      return put_name(buf, len, fields[i].name);
  }
  if (value == symbol_names)
    return put_name(buf, len, "symbol table (the names of Symbols that live for ever)");
  if (value == dynamic_symbol_names)
    return put_name(buf, len, "symbol table (the names of collectable Symbols)");
  for (int i = 0; i < ruby_special_error_count; i++) {
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

void memprof_vm_registered_each(memprof_value_fn* fn, void* data) {
  const rb_vm_t* vm = GET_VM();
  if (vm == NULL || !RB_TYPE_P(vm->mark_object_ary, T_ARRAY)) return;
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

int memprof_proc_block_site(memprof_value obj, const char** path, long* path_len, long* line) {
  if (!rb_obj_is_proc(obj)) return 0;
  const struct rb_block* block = vm_proc_block(obj);
  /* A Proc made from a Proc (proc(&other)) shares the other's block. */
  for (int depth = 0; vm_block_type(block) == block_type_proc && depth < 16; depth++) {
    block = vm_proc_block(block->as.proc);
  }
  if (vm_block_type(block) != block_type_iseq) return 0;
  const rb_iseq_t* iseq = block->as.captured.code.iseq;
  if (iseq == NULL || iseq->body == NULL) return 0;
  VALUE file = pathobj_path(iseq->body->location.pathobj);
  VALUE first_line = iseq->body->location.first_lineno;
  if (!RB_TYPE_P(file, T_STRING) || !FIXNUM_P(first_line)) return 0;
  *path = RSTRING_PTR(file);
  *path_len = RSTRING_LEN(file);
  *line = FIX2LONG(first_line);
  return 1;
}

#else

unsigned int memprof_ractor_count(void) {
  return 0;
}
int memprof_proc_block_site(memprof_value obj, const char** path, long* path_len, long* line) {
  (void)obj;
  (void)path;
  (void)path_len;
  (void)line;
  return 0;
}
memprof_value memprof_class_superclass(memprof_value klass) {
  (void)klass;
  return 0;
}
memprof_value memprof_hash_ifnone(memprof_value hash) {
  (void)hash;
  return 0x08; /* Qnil */
}
memprof_value memprof_const_entry_value(const void* entry) {
  (void)entry;
  return 0x08;
}
long memprof_hash_positions(memprof_value hash) {
  (void)hash;
  return -1;
}
int memprof_hash_entry_at(memprof_value hash, long position, memprof_value* key,
                          memprof_value* value) {
  (void)hash;
  (void)position;
  (void)key;
  (void)value;
  return 0;
}
int memprof_hash_has_default_proc(memprof_value hash) {
  (void)hash;
  return 0;
}
void memprof_env_each_local(memprof_value env, memprof_local_fn* fn, void* data) {
  (void)env;
  (void)fn;
  (void)data;
}
int memprof_vm_root_name(memprof_value value, char* buf, size_t len) {
  (void)value;
  (void)buf;
  (void)len;
  return 0;
}
void memprof_vm_registered_each(memprof_value_fn* fn, void* data) {
  (void)fn;
  (void)data;
}
void memprof_find_vm_tables(void) {}
void memprof_global_each(memprof_global_fn* fn, void* data) {
  (void)fn;
  (void)data;
}
void memprof_finalizer_table_each(memprof_pair_fn* fn, void* data) {
  (void)fn;
  (void)data;
}
void memprof_each_fiber_local(memprof_value obj, memprof_local_fn* fn, void* data) {
  (void)obj;
  (void)fn;
  (void)data;
}
void memprof_class_each_method(memprof_value klass, memprof_local_fn* fn, void* data) {
  (void)klass;
  (void)fn;
  (void)data;
}

#endif
