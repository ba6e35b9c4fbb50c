// What heapq viz and heapq report draw: analyses' results turned into pictures (boxes and
// arrows) and the icicle's nodes. Computes nothing the analyses do not already give.
#pragma once

#include <string>
#include <vector>

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/leaks.h"
#include "heapq/analyze/retainers.h"
#include "heapq/answer/picture.h"

namespace heapq {

struct PictureLimits {
  size_t max_boxes = 40;  // boxes drawn at most; the rest collapse into "+ N more" boxes
  size_t depth = 12;      // steps of a path (a class's shapes merge past it)
};

// The retention tree of many objects (a class's instances, a leak's group): their shortest
// paths merged by shape, from the GC roots down; the box of `holder` stands out.
viz::Picture shapes_picture(const HeapGraph& g, const ShortestPathTree& tree,
                            const HeapDominators& dom, const std::vector<ObjectId>& targets,
                            const std::string& what, ObjectId holder, const PictureLimits& limits);

// The retention tree of a leak (heapq leaks): what it holds as the leaves, its holder standing
// out; id names the picture in a page of several ("leak1").
viz::Picture leak_picture(const HeapGraph& g, const ShortestPathTree& tree,
                          const HeapDominators& dom, const Leak& leak, const std::string& id,
                          const PictureLimits& limits);

// The retention tree of one object: its shortest paths through different referrers.
viz::Picture object_picture(const HeapGraph& g, const HeapDominators& dom, ObjectId target,
                            const PictureLimits& limits);

// The top of the dominator tree: `top` children per box, limits.depth levels, limits.max_boxes
// object boxes at most (the children left out of each drawn box are one "+ N more" box).
viz::Picture dominators_picture(const HeapGraph& g, const HeapDominators& dom, size_t top,
                                const PictureLimits& limits);

// The top of the dominator tree for the report's icicle: the `budget` objects retaining the
// most (each under its dominator), every box's other children summed into one "more" node.
// O(objects + children of the chosen nodes * log).
std::vector<viz::IcicleNode> icicle_nodes(const HeapGraph& g, const HeapDominators& dom,
                                          size_t budget);

}  // namespace heapq
