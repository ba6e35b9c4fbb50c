/* The VM's tables that no symbol exports (the finalizer table, the global variables, the symbol
   table), found by what they hold, and the names of the VM's own roots. */
// clang-format off
#include "vm_shared.h" /* first: it includes 3.1's MJIT header */
// clang-format on

#if MEMPROF_VM_LAYOUT
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

unsigned int memprof_ractor_count(void) {
  const memprof_vm_t* vm = memprof_vm();
  return vm == NULL ? 0 : vm->ractor.cnt;
}

/* gc.c's (3.4: gc/default/default.c's) finalizer table (object -> a hidden Array of its
   finalizers) lives in the objspace, whose layout no header shows: it is the table of numbers
   (st_init_numtable's type) among the objspace's first words whose every key is an object with
   a finalizer (FL_FINALIZE) and every value a hidden Array, all read through the pipe; where
   it is, is found at load with a finalizer defined for the purpose. */
enum { MEMPROF_OBJSPACE_SCAN = 32768 };
static const st_table* finalizer_table = NULL;
static long finalizer_table_at = -1; /* its pointer's offset in the objspace, once found */

struct finalizer_check {
  const int* fds;
  int ok;
};

static int finalizer_entry_i(st_data_t key, st_data_t value, st_data_t data) {
  struct finalizer_check* check = (struct finalizer_check*)data;
  struct RBasic owner, finalizers;
  if (RB_SPECIAL_CONST_P((VALUE)key) || RB_SPECIAL_CONST_P((VALUE)value) ||
      !memprof_probe_read(check->fds, (const void*)key, &owner, sizeof owner) ||
      !memprof_probe_read(check->fds, (const void*)value, &finalizers, sizeof finalizers) ||
      (owner.flags & FL_FINALIZE) == 0 || (finalizers.flags & RUBY_T_MASK) != T_ARRAY ||
      finalizers.klass != 0) {
    check->ok = 0;
    return ST_STOP;
  }
  return ST_CONTINUE;
}

static int is_finalizer_table(const int fds[2], const st_table* table,
                              const struct st_hash_type* numtype) {
  st_table copy;
  if (table == NULL || ((uintptr_t)table % sizeof(void*)) != 0 ||
      !memprof_probe_read(fds, table, &copy, sizeof copy) || copy.type != numtype ||
      copy.num_entries == 0)
    return 0;
  struct finalizer_check check = {fds, 1};
  rb_st_foreach((st_table*)table, finalizer_entry_i, (st_data_t)&check);
  return check.ok;
}

static void find_finalizer_table(const int fds[2]) {
  finalizer_table = NULL;
  const memprof_vm_t* vm = memprof_vm();
  const char* objspace = vm == NULL ? NULL : (const char*)MEMPROF_VM_OBJSPACE(vm);
  if (objspace == NULL) return;
  st_table* probe = rb_st_init_numtable();
  const struct st_hash_type* numtype = probe->type;
  rb_st_free_table(probe);
  const st_table* table = NULL;
  if (finalizer_table_at >= 0) { /* where the check at load found it: empty or not */
    st_table copy;
    if (memprof_probe_read(fds, objspace + finalizer_table_at, &table, sizeof table) &&
        table != NULL && memprof_probe_read(fds, table, &copy, sizeof copy) && copy.type == numtype)
      finalizer_table = table;
    return;
  }
  for (long at = 0; at < MEMPROF_OBJSPACE_SCAN; at += (long)sizeof(void*)) {
    if (!memprof_probe_read(fds, objspace + at, &table, sizeof table)) break;
    if (is_finalizer_table(fds, table, numtype)) {
      finalizer_table = table;
      finalizer_table_at = at;
      break;
    }
  }
}

int memprof_check_finalizer_table(void) {
  int fds[2];
  if (pipe(fds) != 0) return 0;
  VALUE probe = rb_obj_alloc(rb_cObject);
  rb_define_finalizer(probe, rb_eval_string("proc {}"));
  find_finalizer_table(fds);
  st_data_t finalizers = 0;
  const int found = finalizer_table != NULL &&
                    rb_st_lookup((st_table*)finalizer_table, (st_data_t)probe, &finalizers);
  rb_undefine_finalizer(probe);
  finalizer_table = NULL; /* found again before each dump, from where it was found now */
  if (!found) finalizer_table_at = -1;
  close(fds[0]);
  close(fds[1]);
  RB_GC_GUARD(probe);
  return found;
}

/* variable.c's global variable and its table entry, the same on every Ruby memprof knows. */
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
VALUE memprof_symbol_names = 0;         /* hidden Array of Arrays: (name, Symbol) per serial */
VALUE memprof_dynamic_symbol_names = 0; /* hidden identity Hash: name -> true */

/* Whether a global variable's entry for id sits in table under id, with a variable a global
   can have: what the program cannot change, since an alias re-points an entry's variable but
   never its name, and no entry is ever removed. */
static int holds_global_entry(const int fds[2], const struct memprof_id_table* table, ID id) {
  VALUE at;
  struct memprof_global_entry entry;
  struct memprof_global_variable var;
  return memprof_probe_id_lookup(fds, table, memprof_id_serial(id), &at) &&
         memprof_probe_read(fds, (const void*)at, &entry, sizeof entry) && entry.id == id &&
         memprof_probe_read(fds, entry.var, &var, sizeof var) && var.counter > 0 &&
         (var.marker == rb_gvar_var_marker || var.marker == rb_gvar_val_marker ||
          var.marker == rb_gvar_undef_marker);
}

/* Whether table is the table of global variables: an id table holding the entries of globals
   every Ruby defines at boot. */
static int is_global_table(const int fds[2], const void* table, const ID probes[], int n) {
  struct memprof_id_table copy;
  if (!memprof_probe_id_table(fds, table, &copy) || copy.num < n) return 0;
  for (int i = 0; i < n; i++) {
    if (!holds_global_entry(fds, &copy, probes[i])) return 0;
  }
  return 1;
}

/* Whether value, an object C code registered, is the symbol table's Array of names: the
   name of `probe` sits where symbol.c keeps it (512 serials an inner Array, name then Symbol). */
static int is_symbol_names(VALUE value, ID probe, VALUE probe_name) {
  if (!RB_TYPE_P(value, T_ARRAY) || RBASIC(value)->klass != 0) return 0;
  const uint32_t serial = memprof_id_serial(probe);
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
  VALUE next_to_symbol_names;       /* the word after the one that holds memprof_symbol_names */
};
static void find_vm_tables_i(void* data, const VALUE* word, const VALUE* end) {
  struct vm_tables_scan* scan = (struct vm_tables_scan*)data;
  const VALUE value = *word;
  if (value == 0 || (value % sizeof(VALUE)) != 0) return;
  if (memprof_symbol_names != 0 && value == memprof_symbol_names && word + 1 < end)
    scan->next_to_symbol_names = word[1];
  if (global_table == NULL &&
      is_global_table(scan->fds, (const void*)value, scan->probes, MEMPROF_GLOBAL_PROBES))
    global_table = (const struct memprof_id_table*)value;
}

/* Found once: variable.c and symbol.c keep them for the life of the process. */
static void find_globals_and_symbols(const int fds[2]) {
  struct registered_search search = {0, 0, rb_intern("to_s"), 0};
  search.probe_name = rb_id2str(search.probe);
  memprof_vm_registered_each(find_symbol_names_i, &search);
  memprof_symbol_names = search.found;
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
    memprof_dynamic_symbol_names = search.found;
  if (global_table == NULL) memprof_vm_parts &= ~(1u << MEMPROF_PART_GLOBALS);
  if (memprof_symbol_names == 0) memprof_vm_parts &= ~(1u << MEMPROF_PART_SYMBOLS);
}

void memprof_find_vm_tables(void) {
  int fds[2];
  if (pipe(fds) != 0) return;
  if (memprof_vm_part_ok(MEMPROF_PART_FINALIZERS)) find_finalizer_table(fds);
  static int found = 0;
  if (!found) {
    found = 1;
    find_globals_and_symbols(fds);
  }
  close(fds[0]);
  close(fds[1]);
}

void memprof_global_each(memprof_global_fn* fn, void* data) {
  if (global_table == NULL || !memprof_vm_part_ok(MEMPROF_PART_GLOBALS)) return;
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

#else /* no layout for this Ruby */

unsigned int memprof_ractor_count(void) {
  return 0;
}
void memprof_find_vm_tables(void) {}
void memprof_global_each(memprof_global_fn* fn, void* data) {
  (void)fn, (void)data;
}
void memprof_finalizer_table_each(memprof_pair_fn* fn, void* data) {
  (void)fn, (void)data;
}

#endif
