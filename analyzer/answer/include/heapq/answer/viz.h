// heapq viz: a picture of why objects are alive (a retention tree) or of the top of the
// dominator tree.
#pragma once

#include <string>
#include <vector>

#include "heapq/answer/picture.h"

namespace heapq {

struct VizAnswer {
  viz::Picture picture;
};

}  // namespace heapq
