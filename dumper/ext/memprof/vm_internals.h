/* The few VM internals the dumper needs that no public Ruby function offers. */
#ifndef MEMPROF_VM_INTERNALS_H
#define MEMPROF_VM_INTERNALS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* VALUE and ID are uintptr_t-sized on every platform Ruby supports; this header cannot
   include ruby.h because on Ruby 3.1 the VM's layouts come from its MJIT header instead. */
typedef uintptr_t memprof_value;

/* Whether the GC marking that just ended marked obj: asked only in the GC_END_MARK hook, where
   what is not marked is what the sweep that follows frees. */
typedef int memprof_marked_fn(memprof_value obj);
/* This Ruby's reader of marks, checked once (Ruby context), or NULL when there is none that
   memprof trusts: the tracker then hears of each free through the FREEOBJ hook. */
memprof_marked_fn* memprof_gc_marks(void);

/* The control frames of the stack an event (rb_trace_arg_t) arrived on, innermost first, 3
   words each: its iseq (or block function), its pc, and its kind and method entry; what
   rb_profile_frames names a stack from. Returns the number of frames, or -1 when there are
   more than max_frames or this build knows no layout. No allocation, no Ruby call. */
int memprof_raw_frames(const void* trace_arg, memprof_value* out, int max_frames);

/* 1 when this build knows the VM's layouts (the Ruby version it was compiled for). */
int memprof_vm_internals_available(void);

/* Checks each part of the layouts against what public functions say, once, when memprof is
   loaded (Ruby context: it makes a few objects); a part that disagrees is not read. */
void memprof_vm_check(void);

/* The i-th part of the VM memprof cannot name with on this Ruby ("constants", "locals", ...),
   or NULL past the last: what META's "unnamed" lists. */
const char* memprof_vm_unnamed(int i);

/* The raw superclass pointer of a T_CLASS or T_ICLASS (0 when none or unknown). */
memprof_value memprof_class_superclass(memprof_value klass);

/* A Hash's default value (Qnil when unknown). */
memprof_value memprof_hash_ifnone(memprof_value hash);

/* 1 when a Hash's default is a proc (Hash.new { }), whose ifnone then holds it. */
int memprof_hash_has_default_proc(memprof_value hash);

/* A big Hash's entries by position, the order in which rb_hash_foreach and the GC visit them:
   the number of positions (deleted entries included), or -1 for a Hash that keeps them
   otherwise (8 or fewer) or when this build cannot tell. */
long memprof_hash_positions(memprof_value hash);
/* The entry at a position below memprof_hash_positions: 1 with its key and value, 0 when it
   was deleted. */
int memprof_hash_entry_at(memprof_value hash, long position, memprof_value* key,
                          memprof_value* value);

/* 1 when memprof_const_entry_value reads constants on this Ruby. */
int memprof_vm_names_constants(void);
/* The value of a constant table entry (rb_const_entry_t*) as rb_mod_const_at returns it. */
memprof_value memprof_const_entry_value(const void* entry);

/* Calls fn(data, value, local_id) for each local variable an imemo env captured. */
typedef void memprof_local_fn(void* data, memprof_value value, memprof_value id);
void memprof_env_each_local(memprof_value env, memprof_local_fn* fn, void* data);

/* Calls fn(data, value, id) for each fiber-local variable (Thread#[]) of a living Thread's
   current fiber, or of a Fiber object (suspended, or a thread's current one); nothing for other
   objects. The id serves rb_id2name, nothing else. No allocation. */
void memprof_each_fiber_local(memprof_value obj, memprof_local_fn* fn, void* data);

/* Calls fn(data, method_entry, method_id) for each method a class or module defines itself
   (its method table); nothing for other objects. The id serves rb_id2name, nothing else. */
void memprof_class_each_method(memprof_value klass, memprof_local_fn* fn, void* data);

/* Where a Proc's block is written (its iseq's file and first line, and its label as Ruby's
   backtraces say it: "block in render"), which is not where the block became a Proc. Returns 0
   for other objects and for blocks without an iseq (a method, a Symbol, a C function). The
   strings point into Ruby's own: no allocation. */
struct memprof_block_site {
  const char *path, *label;
  long path_len, label_len, line;
};
int memprof_proc_block_site(memprof_value obj, struct memprof_block_site* site);

/* Calls fn(data, finalizers, owner) for each entry of gc.c's finalizer table: the hidden Array
   of an object's finalizers (what the "finalizers" GC root holds) and the object they are for.
   Nothing is called when memprof_find_vm_tables did not find the table. No allocation. */
typedef void memprof_pair_fn(void* data, memprof_value finalizers, memprof_value owner);
void memprof_finalizer_table_each(memprof_pair_fn* fn, void* data);

/* Finds the VM's tables that no symbol exports (the finalizer table, the global variables, the
   symbol table), for the functions that read them. Ruby context; before a dump. */
void memprof_find_vm_tables(void);

/* What a value the "vm" GC root holds is to the VM, where it is one of the VM's own fields:
   "$LOAD_PATH", "$LOADED_FEATURES", "main", "$0", "trap handler of SIGUSR2", "symbol table",
   "registered by C code (rb_gc_register_mark_object)", ...; written into buf (at most len
   bytes with its NUL). 0 when it is none of them. No allocation. */
int memprof_vm_root_name(memprof_value value, char* buf, size_t len);

/* Calls fn(data, value) for what C code registered with rb_gc_register_mark_object, which the
   "vm" root marks one by one: the buckets the VM keeps them in (hidden Arrays) and the objects
   in them. No allocation. */
typedef void memprof_value_fn(void* data, memprof_value value);
void memprof_vm_registered_each(memprof_value_fn* fn, void* data);

/* Calls fn(data, value) for what a link of 3.4's chain of registered objects (a
   "VM/pin_array_list" T_DATA, where the "vm" root reaches them) holds: the older link, then
   the objects; nothing for other objects. No allocation. */
void memprof_vm_pin_list_each(memprof_value obj, memprof_value_fn* fn, void* data);

/* The name of an object C code registered, as the "vm" root or a link of its chain holds it:
   the symbol table's, else "registered by C code (...)"; NULL for a class or module, which
   needs none. */
const char* memprof_vm_registered_name(memprof_value value);

/* Calls fn(data, value, id, by_getter) for each global variable whose storage the GC marks
   (the "global_tbl" root): the value in its storage, never read through its getter, which may
   run the program's code. by_getter: the variable has a getter of its own, so that the value
   is what the getter reads ($* reads ARGV off ARGF), not necessarily what the variable gives.
   The id serves rb_id2name, nothing else. No allocation. Nothing is called when
   memprof_find_vm_tables did not find the table. */
typedef void memprof_global_fn(void* data, memprof_value value, memprof_value id, int by_getter);
void memprof_global_each(memprof_global_fn* fn, void* data);

/* How many Ractors are alive, the main one included; 0 when unknown. */
unsigned int memprof_ractor_count(void);

#ifdef __cplusplus
}
#endif

#endif
