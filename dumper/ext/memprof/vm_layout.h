/* The VM's private layouts for the Ruby memprof is built for, chosen at compile time; none
   (MEMPROF_VM_LAYOUT 0) for a Ruby whose layouts memprof does not know, which then names what
   public functions allow and says in META what it could not. */
#ifndef MEMPROF_VM_LAYOUT_H
#define MEMPROF_VM_LAYOUT_H

#ifdef MEMPROF_MJIT_HEADER /* must come before ruby.h */
#include "vm_layout_31.h"
#else
#include <ruby.h>
#include <ruby/version.h>
#if RUBY_API_VERSION_MAJOR == 3 && (RUBY_API_VERSION_MINOR == 3 || RUBY_API_VERSION_MINOR == 4)
#include "vm_layout_33.h"
#else
#define MEMPROF_VM_LAYOUT 0
#endif
#endif

#endif
