/* Ruby 3.1's private layouts, from its MJIT header (the build defines MEMPROF_MJIT_HEADER only
   for 3.1): the same names vm_layout_33.h declares for 3.3 and 3.4. */
#ifndef MEMPROF_VM_LAYOUT_31_H
#define MEMPROF_VM_LAYOUT_31_H

/* The header declares static functions it never defines (warned about at the end of the file). */
#pragma GCC diagnostic ignored "-Wunused-function"
#include MEMPROF_MJIT_HEADER

#define MEMPROF_VM_LAYOUT 1
#define MEMPROF_REGISTERED_PIN_LIST 0
#define MEMPROF_LAST_OP_ID tLAST_OP_ID

typedef rb_vm_t memprof_vm_t;
typedef rb_execution_context_t memprof_ec_t;
typedef rb_thread_t memprof_thread_t;
typedef struct rb_iseq_constant_body memprof_iseq_body_t;
typedef rb_control_frame_t memprof_cfp_t;
typedef struct rb_trace_arg_struct memprof_trace_arg_t;
#define memprof_svar vm_svar

#define MEMPROF_VM_OBJSPACE(vm) ((vm)->objspace)
#define MEMPROF_SPECIAL_NOMEMORY ruby_error_nomemory
#define MEMPROF_SPECIAL_SYSSTACK ruby_error_sysstack

/* A finished thread's execution context is gone with its fiber. */
static inline const memprof_ec_t* memprof_thread_ec(const memprof_thread_t* th) {
  return th->status == THREAD_KILLED ? NULL : th->ec;
}

static inline VALUE memprof_layout_hash_ifnone(VALUE hash) {
  return RHASH_IFNONE(hash);
}
static inline const st_table* memprof_layout_hash_st(VALUE hash) {
  return RHASH_AR_TABLE_P(hash) ? NULL : RHASH_ST_TABLE(hash);
}
#define MEMPROF_HASH_PROC_DEFAULT RHASH_PROC_DEFAULT

static inline const void* memprof_layout_class_m_tbl(VALUE klass) {
  return RCLASS_M_TBL(klass);
}

#endif
