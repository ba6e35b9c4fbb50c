#include "pictures.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

#include "heapq/answer/common.h"
#include "heapq/answer/wording.h"
#include "refs.h"

namespace heapq {

namespace {

using viz::Arrow;
using viz::Box;
using viz::BoxKind;

// Address, shallow and retained size, allocation site: the lines every object box shows.
std::vector<std::string> object_lines(const HeapGraph& g, const HeapDominators& dom, ObjectId o,
                                      bool example) {
  std::vector<std::string> lines;
  lines.push_back((example ? "e.g. " : "") + hex_address(g.address(o)));
  lines.push_back(format_bytes(g.memsize(o)) + " itself, retains " +
                  format_bytes(dom.retained_bytes(o)));
  const auto site = site_ref(g, g.site(o));
  const auto app = site_ref(g, g.app_site(o));
  if (other_line(site, app)) {  // a gem's line made it: the app's line that called the gem
    if (site) lines.push_back(library_site_string(*site));
    lines.push_back("from the app's line " + site_string(*app));
  } else if (site) {
    lines.push_back(site_string(*site));
  }
  // A Proc: where its block is written, the line heapq leaks groups it by.
  if (auto block = site_ref(g, g.block_site(o)))
    lines.push_back("block at " + site_location(block->file, block->line));
  return lines;
}

size_t add_box(viz::Picture& p, BoxKind kind, std::string title,
               std::vector<std::string> lines = {}) {
  p.boxes.push_back(Box{kind, std::move(title), std::move(lines)});
  return p.boxes.size() - 1;
}

// "+ N more WHAT", WHAT one or many as N says.
Box more_box(uint64_t hidden, std::string_view one, std::string_view many, uint64_t targets,
             uint64_t bytes) {
  Box box{BoxKind::kMore,
          "+ " + counted(hidden, "more " + std::string(one), "more " + std::string(many)),
          {}};
  if (targets)
    box.lines.push_back(counted(targets, "target", "targets") + ", " + format_bytes(bytes));
  return box;
}

// How a shape reads: its class and the reference into it, as merge_paths tells shapes apart.
std::string shape_key(const HeapGraph& g, const ShortestPathTree& tree, ObjectId example) {
  return describe(g, example) + '\0' +
         std::string(generalized_edge(g.string(tree.edge_into(g, example))));
}

// The shape that `holder` has among `merged`'s (children: each shape's, the roots' last), found
// by following its own path's shapes down from the roots; kNoParent when they part.
uint32_t shape_of_holder(const HeapGraph& g, const ShortestPathTree& tree,
                         const MergedPaths& merged,
                         const std::vector<std::vector<uint32_t>>& children, ObjectId holder,
                         size_t depth) {
  const size_t n = merged.nodes.size();
  for (uint32_t i = 0; i < n; ++i)
    if (merged.nodes[i].example == holder) return i;
  if (!holder.valid() || !tree.reachable(holder)) return ShapeNode::kNoParent;
  const MergedPaths own = merge_paths(g, tree, {holder}, depth);  // one chain, root first
  size_t at = n;
  for (const ShapeNode& step : own.nodes) {
    const std::string key = shape_key(g, tree, step.example);
    const auto& kids = children[at];
    auto same = std::find_if(kids.begin(), kids.end(), [&](uint32_t c) {
      return shape_key(g, tree, merged.nodes[c].example) == key;
    });
    if (same == kids.end()) return ShapeNode::kNoParent;
    at = *same;
  }
  return at == n ? ShapeNode::kNoParent : static_cast<uint32_t>(at);
}

}  // namespace

viz::Picture shapes_picture(const HeapGraph& g, const ShortestPathTree& tree,
                            const HeapDominators& dom, const std::vector<ObjectId>& targets,
                            const std::string& what, ObjectId holder, const PictureLimits& limits) {
  const MergedPaths merged = merge_paths(g, tree, targets, limits.depth);
  viz::Picture p;
  uint64_t bytes = 0;
  for (ObjectId t : targets) bytes += g.memsize(t);
  p.caption = what + ": " + counted(targets.size(), "object", "objects") + ", " +
              format_bytes(bytes) + "; shortest paths from the GC roots merged by shape";
  if (merged.unreachable)
    p.caption += " (" + format_count(merged.unreachable) + " unreachable, not drawn)";
  const size_t roots = add_box(p, BoxKind::kRoots, "GC roots");

  // Children of each shape (kNoParent's under the extra last slot), most targets first.
  const size_t n = merged.nodes.size();
  std::vector<std::vector<uint32_t>> children(n + 1);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t parent = merged.nodes[i].parent;
    children[parent == ShapeNode::kNoParent ? n : parent].push_back(i);
  }
  for (auto& c : children)
    std::stable_sort(c.begin(), c.end(), [&](uint32_t a, uint32_t b) {
      return merged.nodes[a].total_count > merged.nodes[b].total_count;
    });

  const uint32_t holder_shape = shape_of_holder(g, tree, merged, children, holder, limits.depth);

  // Best first: the shapes that lead to the most targets get boxes while the budget lasts.
  std::vector<size_t> box_of(n + 1, SIZE_MAX);
  box_of[n] = roots;
  auto fewer = [&](uint32_t a, uint32_t b) {
    return merged.nodes[a].total_count < merged.nodes[b].total_count;
  };
  std::priority_queue<uint32_t, std::vector<uint32_t>, decltype(fewer)> next(fewer);
  for (uint32_t c : children[n]) next.push(c);
  const size_t budget = std::max<size_t>(limits.max_boxes, 2);
  while (!next.empty() && p.boxes.size() < budget) {
    const uint32_t i = next.top();
    next.pop();
    const ShapeNode& s = merged.nodes[i];
    const bool holds = i == holder_shape;
    const BoxKind kind = holds ? BoxKind::kHolder : s.count ? BoxKind::kTarget : BoxKind::kObject;
    std::vector<std::string> lines;
    if (s.count)
      lines.push_back(counted(s.count, "target ends", "targets end") + " here, " +
                      format_bytes(s.bytes));
    const bool many = s.count > 1;
    for (std::string& l : object_lines(g, dom, s.example, many)) lines.push_back(std::move(l));
    // The holder dominates most of the targets: freeing it would free them.
    if (holds && s.example == holder) lines.push_back("the holder: keeps most of them alive");
    if (holds && s.example != holder)
      lines.push_back("the holder, " + hex_address(g.address(holder)) + ", has this shape");
    if (s.repeats) lines.push_back("(a chain: this step repeats)");
    if (s.deeper) lines.push_back("(deeper paths merged here)");
    box_of[i] = add_box(p, kind, describe(g, s.example), std::move(lines));
    const size_t parent = s.parent == ShapeNode::kNoParent ? n : s.parent;
    std::string edge(g.string(tree.edge_into(g, s.example)));
    if (s.parent != ShapeNode::kNoParent && !s.one_edge) edge = std::string(generalized_edge(edge));
    if (s.total_count > 1)
      edge += (edge.empty() ? "" : " ") + std::string("(") + format_count(s.total_count) + ")";
    p.arrows.push_back(Arrow{box_of[parent], box_of[i], edge});
    for (uint32_t c : children[i]) next.push(c);
  }
  // What the budget left out: one box per drawn parent, for its children without a box.
  for (size_t parent = 0; parent <= n; ++parent) {
    if (box_of[parent] == SIZE_MAX) continue;
    uint64_t hidden = 0, count = 0, hidden_bytes = 0;
    for (uint32_t c : children[parent])
      if (box_of[c] == SIZE_MAX)
        ++hidden, count += merged.nodes[c].total_count, hidden_bytes += merged.nodes[c].total_bytes;
    if (!hidden) continue;
    p.boxes.push_back(more_box(hidden, "path shape", "path shapes", count, hidden_bytes));
    p.arrows.push_back(Arrow{box_of[parent], p.boxes.size() - 1, ""});
  }
  return p;
}

viz::Picture leak_picture(const HeapGraph& g, const ShortestPathTree& tree,
                          const HeapDominators& dom, const Leak& leak, const std::string& id,
                          const PictureLimits& limits) {
  const ObjectGroup& first = leak.groups.front().group;
  std::string what = first.cls;
  if (first.has_site())
    what += " allocated at " + site_and_app_string({first.file, first.line, first.method},
                                                   site_ref(g, leak.groups.front().app_site));
  if (leak.groups.size() > 1)
    what += ", and " + counted(leak.groups.size() - 1, "other group", "other groups");
  viz::Picture p =
      shapes_picture(g, tree, dom, leak.members, what + ", in the last dump", leak.holder, limits);
  p.id = id;
  return p;
}

viz::Picture object_picture(const HeapGraph& g, const HeapDominators& dom, ObjectId target,
                            const PictureLimits& limits) {
  const Referrers referrers = Referrers::build(g);
  // Paths are drawn while the boxes they add fit the budget (one at least).
  const std::vector<RetentionPath> paths =
      holder_paths(g, referrers, target, std::max<size_t>(1, limits.max_boxes), limits.depth);
  viz::Picture p;
  p.caption = describe(g, target) + " " + hex_address(g.address(target)) +
              ": shortest paths from the GC roots, each through a different referrer";
  const size_t roots = add_box(p, BoxKind::kRoots, "GC roots");
  std::unordered_map<uint32_t, size_t> box_of;
  box_of[target.value()] =
      add_box(p, BoxKind::kTarget, describe(g, target), object_lines(g, dom, target, false));
  auto box = [&](ObjectId o) {
    auto [it, added] = box_of.try_emplace(o.value(), p.boxes.size());
    if (added) add_box(p, BoxKind::kObject, describe(g, o), object_lines(g, dom, o, false));
    return it->second;
  };
  std::vector<std::pair<size_t, size_t>> drawn;  // arrows already drawn
  auto arrow = [&](size_t from, size_t to, std::string label) {
    if (std::find(drawn.begin(), drawn.end(), std::make_pair(from, to)) != drawn.end()) return;
    drawn.emplace_back(from, to);
    p.arrows.push_back(Arrow{from, to, std::move(label)});
  };
  size_t shown = 0;
  for (const RetentionPath& path : paths) {
    size_t adds = path.elided ? 1 : 0;
    for (const PathStep& step : path.steps) adds += box_of.count(step.object.value()) ? 0 : 1;
    if (shown > 0 && p.boxes.size() + adds + 1 > limits.max_boxes) break;  // + 1: the "more" box
    ++shown;
    size_t from = roots;
    for (size_t i = 0; i < path.steps.size(); ++i) {
      const PathStep& step = path.steps[i];
      const size_t to = box(step.object);
      arrow(from, to, std::string(g.string(i == 0 ? path.root : step.edge)));
      from = to;
      if (path.elided && i + 1 == path.elided_after) {
        const size_t gap = add_box(p, BoxKind::kMore,
                                   "\u2026 " + counted(path.elided, "step", "steps") + " \u2026");
        arrow(from, gap, "");
        from = gap;
      }
    }
  }
  // A big fan-in: the referrers without a path of their own are one box.
  std::vector<ObjectId> sources(referrers.of(target).begin(), referrers.of(target).end());
  std::sort(sources.begin(), sources.end());
  const size_t referrer_count = std::unique(sources.begin(), sources.end()) - sources.begin();
  if (referrer_count > shown) {
    p.boxes.push_back(more_box(referrer_count - shown, "referrer", "referrers", 0, 0));
    p.arrows.push_back(Arrow{p.boxes.size() - 1, box_of[target.value()], ""});
  }
  return p;
}

viz::Picture dominators_picture(const HeapGraph& g, const HeapDominators& dom, size_t top,
                                const PictureLimits& limits) {
  viz::Picture p;
  p.left_to_right = true;
  p.caption = "dominator tree: " + format_bytes(dom.retained_bytes(g.virtual_root())) +
              " reachable; each object retains what it points to";
  add_box(p, BoxKind::kRoots, "GC roots", {format_bytes(dom.retained_bytes(g.virtual_root()))});
  // Breadth first, so that boxes come in the order of their levels and the budget goes to the
  // top of the tree: each drawn box's children, `top` at most, while it lasts; the children
  // left out of a box are one "+ N more" box.
  struct Item {
    ObjectId node;
    size_t box, depth;
  };
  std::vector<Item> drawn = {{g.virtual_root(), 0, 0}};
  const size_t budget = std::max<size_t>(limits.max_boxes, 2);
  for (size_t next = 0; next < drawn.size(); ++next) {
    const Item it = drawn[next];
    if (it.depth >= limits.depth) continue;
    const std::vector<ObjectId> kids = dom.children(it.node);
    size_t shown = 0;
    for (; shown < std::min(top, kids.size()) && p.boxes.size() < budget; ++shown) {
      std::vector<std::string> lines = object_lines(g, dom, kids[shown], false);
      lines.insert(lines.begin() + 1,
                   counted(dom.retained_count(kids[shown]), "object", "objects") + " retained");
      const size_t b = add_box(p, BoxKind::kObject, describe(g, kids[shown]), std::move(lines));
      p.arrows.push_back(Arrow{it.box, b, ""});
      drawn.push_back({kids[shown], b, it.depth + 1});
    }
    if (kids.size() > shown) {
      uint64_t bytes = 0;
      for (size_t i = shown; i < kids.size(); ++i) bytes += dom.retained_bytes(kids[i]);
      Box more{BoxKind::kMore,
               "+ " + format_count(kids.size() - shown) + " more",
               {"retaining " + format_bytes(bytes)}};
      p.boxes.push_back(std::move(more));
      p.arrows.push_back(Arrow{it.box, p.boxes.size() - 1, ""});
    }
  }
  return p;
}

std::vector<viz::IcicleNode> icicle_nodes(const HeapGraph& g, const HeapDominators& dom,
                                          size_t budget) {
  std::vector<viz::IcicleNode> out;
  std::vector<ObjectId> object_of;
  viz::IcicleNode root;
  root.name = "GC roots";
  root.bytes = dom.retained_bytes(g.virtual_root());
  root.count = dom.retained_count(g.virtual_root()) - 1;
  out.push_back(root);
  object_of.push_back(g.virtual_root());
  // Best first by retained bytes: (object, the icicle index of its dominator).
  using Candidate = std::pair<ObjectId, int32_t>;
  auto smaller = [&](const Candidate& a, const Candidate& b) {
    return dom.retained_bytes(a.first) < dom.retained_bytes(b.first);
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(smaller)> next(smaller);
  for (ObjectId c : dom.unordered_children(g.virtual_root())) next.push({c, 0});
  while (!next.empty() && out.size() < budget) {
    const auto [o, parent] = next.top();
    next.pop();
    viz::IcicleNode node;
    node.parent = parent;
    node.name = describe(g, o);
    node.address = hex_address(g.address(o));
    if (auto site = site_ref(g, g.site(o))) node.site = site_string(*site);
    node.bytes = dom.retained_bytes(o);
    node.count = dom.retained_count(o);
    out.push_back(std::move(node));
    object_of.push_back(o);
    for (ObjectId c : dom.unordered_children(o))
      next.push({c, static_cast<int32_t>(out.size() - 1)});
  }
  // Children left in the queue are summed per parent into one "more" node.
  std::vector<uint64_t> more_bytes(out.size()), more_count(out.size()), more_objects(out.size());
  while (!next.empty()) {
    const auto [o, parent] = next.top();
    next.pop();
    more_bytes[parent] += dom.retained_bytes(o);
    more_count[parent] += dom.retained_count(o);
    ++more_objects[parent];
  }
  const size_t drawn = out.size();
  for (size_t i = 0; i < drawn; ++i) {
    if (!more_objects[i]) continue;
    viz::IcicleNode more;
    more.parent = static_cast<int32_t>(i);
    more.name = "+ " + format_count(more_objects[i]) + " more";
    more.bytes = more_bytes[i];
    more.count = more_count[i];
    more.more = true;
    out.push_back(std::move(more));
  }
  return out;
}

}  // namespace heapq
