/* An allocation's stack as the VM holds it (vm_internals.h: memprof_raw_frames), read from its
   control frames in a few loads each, where rb_profile_frames also finds each frame's line: the
   tracker names a stack it has seen before by these words alone. */
// clang-format off
#include "vm_shared.h" /* first: it includes 3.1's MJIT header */
// clang-format on

#if MEMPROF_VM_LAYOUT

enum {
  CFRAME_FLAG = 0x0080,   /* ep[0]: a C function's frame (VM_FRAME_FLAG_CFRAME) */
  LOCAL_ENV_FLAG = 0x0002 /* ep[0]: the method's own environment (VM_ENV_FLAG_LOCAL) */
};
enum { IMEMO_SVAR = 2, IMEMO_MENT = 6 };

static int imemo_is(VALUE v, int type) {
  return !RB_SPECIAL_CONST_P(v) && RB_BUILTIN_TYPE(v) == RUBY_T_IMEMO &&
         (int)((RBASIC(v)->flags >> RUBY_FL_USHIFT) & 0x0f) == type;
}

/* The method entry a frame runs in, as rb_profile_frames finds it (rb_vm_frame_method_entry):
   the first in its environments from its own out to the method's, where it may sit in a
   special-variable entry. 0 when none. */
static VALUE frame_method_entry(const VALUE* ep) {
  for (int hops = 0; hops < 1024; hops++) {
    const VALUE v = ep[-2];
    if (imemo_is(v, IMEMO_MENT)) return v;
    if (ep[0] & LOCAL_ENV_FLAG) {
      if (!imemo_is(v, IMEMO_SVAR)) return 0;
      const VALUE me = ((const struct memprof_svar*)v)->cref_or_me;
      return imemo_is(me, IMEMO_MENT) ? me : 0;
    }
    ep = (const VALUE*)(ep[-1] & ~(VALUE)3);
  }
  return 0;
}

int memprof_raw_frames(const void* trace_arg, memprof_value* out, int max_frames) {
  const memprof_trace_arg_t* arg = (const memprof_trace_arg_t*)trace_arg;
  const memprof_cfp_t* cfp = (const memprof_cfp_t*)arg->cfp;
  const memprof_cfp_t* end = (const memprof_cfp_t*)(arg->ec->vm_stack + arg->ec->vm_stack_size);
  if (cfp == NULL) return -1;
  int n = 0;
  for (; cfp < end; cfp++, n++) {
    if (n == max_frames) return -1;
    /* rb_profile_frames names a Ruby frame by its iseq, pc and method entry (and, 3.4, leaves
       the innermost frame's line out when JIT code runs it); a C frame by its method entry
       alone: its iseq, if any, is a block function made for the call. */
    const int c_frame = (cfp->ep[0] & CFRAME_FLAG) != 0;
    out[3 * n] = c_frame ? 0 : (memprof_value)cfp->iseq;
    out[3 * n + 1] = c_frame ? 0 : (memprof_value)cfp->pc | (n == 0 && cfp->jit_return != NULL);
    out[3 * n + 2] = frame_method_entry(cfp->ep) | (memprof_value)c_frame;
  }
  return n;
}

#else

int memprof_raw_frames(const void* trace_arg, memprof_value* out, int max_frames) {
  (void)trace_arg, (void)out, (void)max_frames;
  return -1;
}

#endif
