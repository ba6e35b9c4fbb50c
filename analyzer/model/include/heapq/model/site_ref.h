// An allocation site by its names, as the dump or a store spells it: what answers and the fleet's
// analysis show of a site, apart from any graph.
#pragma once

#include <cstdint>
#include <string>

namespace heapq {

// Where an object was allocated, or where a Proc's block is written, as the dump says.
struct SiteRef {
  std::string file;
  uint32_t line = 0;  // 0: none (allocated by C code)
  std::string method;
};

}  // namespace heapq
