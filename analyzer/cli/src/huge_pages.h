// heapq's operator new (cli/huge_pages.cc), linked into the heapq executable and the unit tests:
// allocations of 32 MiB and more get transparent huge pages where the kernel offers them.
#pragma once

namespace heapq::cli {

// False in sanitizer builds, which keep their own operator new.
extern const bool kBigAllocationsOnHugePages;

}  // namespace heapq::cli
