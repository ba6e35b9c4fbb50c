// Big allocations on transparent huge pages: heapq's replacement of operator new.
//
// The graph of a heap and its analyses are arrays of a few bytes per object, visited in an order
// unrelated to their layout (the dominators' depth-first search, predecessor lists, retained
// sizes). At 16M objects they are 1-2 GB, where nearly every access misses the TLB, and under a
// hypervisor each miss walks two sets of page tables: 4 KB pages, not the cache, set the speed.
// Allocations of 32 MiB and more are therefore marked MADV_HUGEPAGE before they are first
// touched, so that the kernel backs them with 2 MiB pages where it offers them on request
// (transparent_hugepage "madvise", as Debian ships, or "always"; with "never" nothing changes).
// Fewer page faults as well: 2 MiB a fault, not 4 KiB. bench/scale.sh shows the effect.
//
// 32 MiB is where glibc serves every block with a mapping of its own (the most its mmap
// threshold rises to), so the advice never reaches the heap that smaller blocks share, and free()
// unmaps the block; operator delete stays the default (free()). Smaller blocks stay on glibc's
// heap, reused as they are freed: giving them mappings of their own too (the threshold fixed at
// 4 MiB) made each short-lived array a fresh mapping the kernel zeroed again, and report on a
// 1.1M-object heap 20 % slower. Only operator new(size_t) is replaced: the library's array and
// nothrow forms call it. Sanitizer builds keep their own operators (their checks pair new with
// delete).
#include "huge_pages.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace heapq::cli {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HEAPQ_OWN_OPERATOR_NEW 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define HEAPQ_OWN_OPERATOR_NEW 0
#endif
#endif
#ifndef HEAPQ_OWN_OPERATOR_NEW
#define HEAPQ_OWN_OPERATOR_NEW 1
#endif

const bool kBigAllocationsOnHugePages = HEAPQ_OWN_OPERATOR_NEW;

}  // namespace heapq::cli

#if HEAPQ_OWN_OPERATOR_NEW

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kBigAllocation = std::size_t{32} << 20;

// The whole huge pages inside [p, p + n).
void advise_huge_pages(void* p, std::size_t n) {
#ifdef MADV_HUGEPAGE
  const auto first = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = (first + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t end = (first + n) & ~(kHugePage - 1);
  // Only advice: where the kernel refuses it, the pages are 4 KiB as before.
  if (begin < end) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

}  // namespace

void* operator new(std::size_t n) {
  void* p;
  while ((p = std::malloc(n ? n : 1)) == nullptr) {
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
  if (n >= kBigAllocation) advise_huge_pages(p, n);
  return p;
}

#endif
