// Parts of answers built by hand, for the renderers' tests.
#pragma once

#include <string>

#include "heapq/answer/common.h"

namespace heapq::testing {

inline ObjectRef object(uint64_t address, std::string description) {
  ObjectRef o;
  o.address = address;
  o.description = std::move(description);
  return o;
}

}  // namespace heapq::testing
