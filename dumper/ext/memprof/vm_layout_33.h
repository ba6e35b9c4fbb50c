/* Ruby 3.3's and 3.4's private layouts, as far as memprof reads them (vm_core.h,
   internal/hash.h, internal/class.h), declared here in our own words; vm_internals.c checks
   them against what public functions return before it trusts them. */
#ifndef MEMPROF_VM_LAYOUT_33_H
#define MEMPROF_VM_LAYOUT_33_H

#include <pthread.h>
#include <ruby.h>
#include <ruby/version.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define MEMPROF_VM_LAYOUT 1
/* 3.4 keeps what C code registers in a chain of "VM/pin_array_list" objects. */
#define MEMPROF_REGISTERED_PIN_LIST (RUBY_API_VERSION_MINOR >= 4)
/* id.h's tLAST_OP_ID: the last ID that is its own serial (3.4 added one preserved ID). */
#define MEMPROF_LAST_OP_ID (RUBY_API_VERSION_MINOR >= 4 ? 170 : 169)

/* Exported by libruby (iseq.h, vm_core.h), declared by no public header. */
const void* rb_proc_get_iseq(VALUE proc, int* is_proc);
VALUE rb_iseq_path(const void* iseq);
VALUE rb_iseq_first_lineno(const void* iseq);
VALUE rb_iseq_label(const void* iseq);

struct memprof_list_node {
  struct memprof_list_node *next, *prev;
};

/* 3.4's heap page (gc/default/default.c, struct heap_page) up to its mark bits: a 64 KiB page
   starts with a pointer to it; its bitmaps have a bit per 40 bytes of the page (earlier Rubies
   export rb_objspace_marked_object_p instead). */
#define MEMPROF_HEAP_PAGE_ALIGN_LOG 16
#define MEMPROF_BASE_SLOT_SIZE (sizeof(struct RBasic) + 3 * sizeof(VALUE))
#define MEMPROF_HEAP_PAGE_BITMAP_LIMIT                                                            \
  ((((1u << MEMPROF_HEAP_PAGE_ALIGN_LOG) + MEMPROF_BASE_SLOT_SIZE - 1) / MEMPROF_BASE_SLOT_SIZE + \
    63) /                                                                                         \
   64)
typedef struct memprof_heap_page {
  unsigned short slot_size, total_slots, free_slots, final_slots, pinned_slots;
  struct {
    unsigned int before_sweep : 1, has_remembered_objects : 1,
        has_uncollectible_wb_unprotected_objects : 1;
  } flags;
  void *heap, *free_next, *body;
  uintptr_t start;
  void* freelist;
  struct memprof_list_node page_node;
  uintptr_t wb_unprotected_bits[MEMPROF_HEAP_PAGE_BITMAP_LIMIT];
  uintptr_t mark_bits[MEMPROF_HEAP_PAGE_BITMAP_LIMIT];
} memprof_heap_page_t;

/* The VM (rb_vm_t) up to its objspace. */
typedef struct memprof_vm {
  VALUE self;
  struct {
    struct memprof_list_node set;
    unsigned int cnt;
    unsigned int blocking_cnt;
    void* main_ractor;
    struct memprof_thread* main_thread;
    struct {
      pthread_mutex_t lock;
      void* lock_owner;
      unsigned int lock_rec;
      pthread_cond_t terminate_cond;
      bool terminate_waiting;
    } sync;
    struct {
      pthread_mutex_t lock;
      void* lock_owner;
      bool locked;
      pthread_cond_t cond;
      unsigned int snt_cnt, dnt_cnt, running_cnt, max_cpu;
      struct memprof_list_node grq;
      unsigned int grq_cnt;
      struct memprof_list_node running_threads, timeslice_threads, zombie_threads;
      bool timeslice_wait_inf;
      pthread_cond_t barrier_complete_cond, barrier_release_cond;
      bool barrier_waiting;
      unsigned int barrier_waiting_cnt, barrier_serial;
    } sched;
  } ractor;
  void* main_altstack; /* Linux has sigaltstack */
  unsigned long long fork_gen;
  struct memprof_list_node waiting_fds;
  volatile int ubf_async_safe;
  unsigned int running : 1, thread_abort_on_exception : 1, thread_report_on_exception : 1,
      thread_ignore_deadlock : 1;
  VALUE mark_object_ary;
#if RUBY_API_VERSION_MINOR >= 4
  void* global_object_list;
#endif
  const VALUE special_exceptions[5]; /* reenter, nomemory, sysstack, stackfatal, stream_closed */
  VALUE top_self, load_path, load_path_snapshot, load_path_check_cache, expanded_load_path;
  VALUE loaded_features, loaded_features_snapshot, loaded_features_realpaths;
  VALUE loaded_features_realpath_map;
  void *loaded_features_index, *loading_table, *static_ext_inits;
  struct {
    VALUE cmd[NSIG];
  } trap_list;
#if RUBY_API_VERSION_MINOR < 4
  void* ensure_rollback_table;
#endif
  void* postponed_job_queue;
  int src_encoding_index;
  struct memprof_list_node workqueue;
  pthread_mutex_t workqueue_lock;
  VALUE orig_progname, progname, coverages, me2counter;
  int coverage_mode;
#if RUBY_API_VERSION_MINOR < 4
  void* defined_module_hash;
  void* objspace;
#else
  struct {
    void* objspace;
    void* mark_func_data;
  } gc;
#endif
} memprof_vm_t;

#if RUBY_API_VERSION_MINOR < 4
#define MEMPROF_VM_OBJSPACE(vm) ((vm)->objspace)
#else
#define MEMPROF_VM_OBJSPACE(vm) ((vm)->gc.objspace)
#endif
#define MEMPROF_SPECIAL_NOMEMORY 1
#define MEMPROF_SPECIAL_SYSSTACK 2

/* A thread's execution context (rb_execution_context_t) up to its fiber-locals. */
typedef struct memprof_ec {
  VALUE* vm_stack;
  size_t vm_stack_size;
  void* cfp;
  void* tag;
  uint32_t interrupt_flag, interrupt_mask;
  void* fiber_ptr;
  struct memprof_thread* thread_ptr;
  void* local_storage; /* an id table */
} memprof_ec_t;

/* A thread (rb_thread_t) up to its execution context. */
typedef struct memprof_thread {
  struct memprof_list_node lt_node;
  VALUE self;
  void* ractor;
  memprof_vm_t* vm;
  void* nt;
  memprof_ec_t* ec;
} memprof_thread_t;

/* A finished thread keeps its context, and Thread#[] still reads it; a freed one has none. */
static inline const memprof_ec_t* memprof_thread_ec(const memprof_thread_t* th) {
  return th->ec;
}

/* A control frame (rb_control_frame_t), an event's arguments (rb_trace_arg_t) up to its frame,
   and a special-variable entry (struct vm_svar) up to its method entry. */
typedef struct memprof_cfp {
  const VALUE* pc;
  VALUE* sp;
  const void* iseq;
  VALUE self;
  const VALUE* ep;
  const void* block_code;
  void* jit_return;
} memprof_cfp_t;
typedef struct memprof_trace_arg {
  uint32_t event;
  memprof_ec_t* ec;
  const memprof_cfp_t* cfp;
} memprof_trace_arg_t;
struct memprof_svar {
  VALUE flags;
  VALUE cref_or_me;
};

/* An iseq's body (rb_iseq_constant_body) up to its local table's size. */
typedef struct memprof_iseq_body {
  int type;
  unsigned int iseq_size;
  VALUE* iseq_encoded;
  struct {
    unsigned int flags; /* bit fields */
    unsigned int size;
    int lead_num, opt_num, rest_start, post_start, post_num, block_start;
    const VALUE* opt_table;
    const void* keyword;
  } param;
  struct {
    VALUE pathobj, base_label, label;
    int first_lineno, node_id;
    int code_location[4];
  } location;
  struct {
    const void* body;
    unsigned int* positions;
    unsigned int size;
    void* succ_index_table;
  } insns_info;
  const ID* local_table;
  void* catch_table;
  const void *parent_iseq, *local_iseq;
  void *is_entries, *call_data;
  struct {
    long flip_count;
    VALUE script_lines, coverage, pc2branchindex;
    VALUE* original_iseq;
  } variable;
  unsigned int local_table_size;
} memprof_iseq_body_t;

/* struct RHash: its st_table follows it in the same slot. */
struct memprof_rhash {
  struct RBasic basic;
  VALUE ifnone;
};
static inline VALUE memprof_layout_hash_ifnone(VALUE hash) {
  return ((const struct memprof_rhash*)hash)->ifnone;
}
static inline const st_table* memprof_layout_hash_st(VALUE hash) {
  if (!FL_TEST_RAW(hash, FL_USER3)) return NULL; /* an array table: 8 entries at most */
  return (const st_table*)((const char*)hash + sizeof(struct memprof_rhash));
}
#define MEMPROF_HASH_PROC_DEFAULT FL_USER2

/* struct RClass's method table. */
struct memprof_rclass {
  struct RBasic basic;
  VALUE super;
  void* m_tbl;
};
static inline const void* memprof_layout_class_m_tbl(VALUE klass) {
  return ((const struct memprof_rclass*)klass)->m_tbl;
}

#endif
