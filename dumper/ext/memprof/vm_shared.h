/* What vm_internals.c and vm_tables.c share: the layouts of this Ruby, the structures that are
   the same on every Ruby memprof knows, the parts of the VM a run-time check verified, and a
   read that refuses what is not mapped instead of faulting. */
#ifndef MEMPROF_VM_SHARED_H
#define MEMPROF_VM_SHARED_H

// clang-format off
#include "vm_layout.h" /* first: 3.1's MJIT header must come before ruby.h */
// clang-format on
#include <stddef.h>
#include <stdint.h>

#include "vm_internals.h"

/* What each run-time check lets memprof name (memprof_vm_unnamed lists the others). */
enum memprof_vm_part {
  MEMPROF_PART_CONSTANTS,
  MEMPROF_PART_HASH_DEFAULTS,
  MEMPROF_PART_HASH_ENTRIES,
  MEMPROF_PART_METHODS,
  MEMPROF_PART_LOCALS,
  MEMPROF_PART_PROC_SITES,
  MEMPROF_PART_FIBER_LOCALS,
  MEMPROF_PART_VM_ROOTS,
  MEMPROF_PART_FINALIZERS,
  MEMPROF_PART_GLOBALS, /* vm_tables.c clears these two when it does not find them */
  MEMPROF_PART_SYMBOLS,
  MEMPROF_PART_COUNT
};
extern unsigned int memprof_vm_parts; /* bit per part whose check passed */
static inline int memprof_vm_part_ok(enum memprof_vm_part part) {
  return (memprof_vm_parts >> part) & 1;
}
const char* memprof_vm_part_name(enum memprof_vm_part part);

/* Copies len bytes at addr into out through a pipe (fds from pipe()): 0 where they are not
   all readable, instead of a fault. */
int memprof_probe_read(const int fds[2], const void* addr, void* out, size_t len);

#if MEMPROF_VM_LAYOUT
/* Where a fiber's execution context sits in its rb_fiber_t (cont.c's, which no header shows):
   a thread's context is its current fiber's, and points back to that fiber. -1: unknown. */
extern long memprof_fiber_ec_offset;

/* The VM, found through the current thread and checked (NULL when the check failed). */
const memprof_vm_t* memprof_vm(void);

/* id_table.c's table, the same on 3.1, 3.3 and 3.4: open addressing over items keyed by an
   ID's serial number (0: an empty slot). */
struct memprof_id_item {
  uint32_t key;
  int collision;
  VALUE val;
};
struct memprof_id_table {
  int capa;
  int num;
  int used;
  struct memprof_id_item* items;
};
/* An imemo env and an iseq (vm_core.h), the same on every Ruby memprof knows. */
struct memprof_env {
  VALUE flags;
  const struct memprof_iseq* iseq;
  const VALUE* ep;
  const VALUE* env;
  unsigned int env_size;
};
struct memprof_iseq {
  VALUE flags;
  VALUE wrapper;
  const memprof_iseq_body_t* body;
};
enum { MEMPROF_ENV_DATA_SIZE = 3, MEMPROF_IMEMO_ISEQ = 7 };

/* A Proc's block (rb_proc_t starts with it), the same on every Ruby memprof knows. */
struct memprof_block {
  union {
    struct {
      VALUE self;
      const VALUE* ep;
      const void* code; /* an iseq or an ifunc */
    } captured;
    VALUE symbol;
    VALUE proc;
  } as;
  int type; /* 0: an iseq, 1: a C function, 2: a Symbol, 3: a Proc */
};

/* Copies an id table's header through the pipe when it looks like one; looks a key up in it as
   id_table.c does, reading each slot through the pipe. */
int memprof_probe_id_table(const int fds[2], const void* table, struct memprof_id_table* copy);
int memprof_probe_id_lookup(const int fds[2], const struct memprof_id_table* table, uint32_t key,
                            VALUE* val);
/* An ID's serial, as id tables key it, and back to an ID rb_id2name knows. */
uint32_t memprof_id_serial(ID id);
ID memprof_serial_id(uint32_t serial);

/* symbol.c's Array of static Symbols' names and Hash of dynamic ones, once vm_tables.c found
   them (0 until then). */
extern VALUE memprof_symbol_names, memprof_dynamic_symbol_names;

/* Whether the scan of the objspace finds the finalizer table, with an entry for an object
   given a finalizer for the purpose (then removed): the check of MEMPROF_PART_FINALIZERS, which
   needs memprof_vm(). Ruby context. */
int memprof_check_finalizer_table(void);

/* A typed T_DATA's wrapped struct when its type is named `name`, else NULL. */
const void* memprof_typed_data(VALUE obj, const char* name);
#endif

#endif
