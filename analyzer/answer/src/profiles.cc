#include <algorithm>
#include <unordered_map>

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/retainers.h"
#include "heapq/answer/ask/profile.h"
#include "heapq/answer/targets.h"
#include "heapq/base/keyed_hash.h"
#include "heapq/base/saturating_add.h"
#include "heapq/read/address_hash.h"
#include "refs.h"

namespace heapq {

namespace {

// Objects the roots do not reach: garbage the GC has not swept yet.
constexpr const char* kUnreachableFrame = "(unreachable: garbage not yet swept)";

int64_t as_value(uint64_t v) {
  return static_cast<int64_t>(std::min<uint64_t>(v, INT64_MAX));
}

// Builds a profile's frames, stack tree and samples; frames and nodes are made once each.
class ProfileBuilder {
 public:
  explicit ProfileBuilder(ProfileAnswer& a) : a_(a) {}

  uint32_t frame(const std::string& name, const std::string& file = {}, uint32_t line = 0) {
    auto [it, added] = frames_.try_emplace(name + '\0' + file + '\0' + std::to_string(line),
                                           static_cast<uint32_t>(a_.frames.size()));
    if (added) a_.frames.push_back({name, file, line});
    return it->second;
  }
  // The node of `frame` called from `parent` (kNoParent: an outermost frame).
  uint32_t node(uint32_t parent, uint32_t frame) {
    auto [it, added] = nodes_.try_emplace(uint64_t(parent) << 32 | frame,
                                          static_cast<uint32_t>(a_.node_frame.size()));
    if (added) {
      a_.node_frame.push_back(frame);
      a_.node_parent.push_back(parent);
    }
    return it->second;
  }
  uint32_t labels(std::vector<std::pair<std::string, std::string>> set) {
    std::string key;
    for (const auto& [k, v] : set) key += k + '\0' + v + '\0';
    auto [it, added] = label_sets_.try_emplace(key, static_cast<uint32_t>(a_.label_sets.size()));
    if (added) a_.label_sets.push_back(std::move(set));
    return it->second;
  }
  void sample(uint32_t node, uint32_t labels, std::initializer_list<uint64_t> values) {
    a_.samples.push_back({node, labels});
    for (uint64_t v : values) a_.values.push_back(as_value(v));
  }

 private:
  ProfileAnswer& a_;
  std::unordered_map<std::string, uint32_t, KeyedHash> frames_, label_sets_;
  std::unordered_map<uint64_t, uint32_t, KeyedHash> nodes_;
};

// A key of the sites profile: a stack (memprof's, as the graph's stack span), the allocation
// site, the class and the type.
struct SampleKey {
  const SiteId* stack = nullptr;
  uint32_t site = 0, cls = 0;
  ObjectType type = ObjectType::kNone;
  bool operator==(const SampleKey&) const = default;
};
struct SampleKeyHash {
  size_t operator()(const SampleKey& k) const {
    return address_hash(reinterpret_cast<uintptr_t>(k.stack) ^ (uint64_t(k.site) << 32 | k.cls) ^
                        (uint64_t(k.type) << 56));
  }
};

std::string site_frame_name(const HeapGraph& g, const Site& s) {
  return s.method.valid() ? std::string(g.string(s.method)) : std::string("(no method)");
}

// The retention profiles: a merged path tree, one frame per shape, a GC root's category above
// the root-held shapes. Returns each shape's node.
std::vector<uint32_t> shape_nodes(const HeapGraph& g, const MergedPaths& merged,
                                  ProfileBuilder& b) {
  std::vector<uint32_t> node(merged.nodes.size());
  for (uint32_t i = 0; i < merged.nodes.size(); ++i) {
    const ShapeNode& s = merged.nodes[i];
    const std::string edge(generalized_edge(g.string(s.edge)));
    std::string name = describe(g, s.example);
    uint32_t parent = ProfileAnswer::kNoParent;
    if (s.parent == ShapeNode::kNoParent)
      parent = b.node(ProfileAnswer::kNoParent,
                      b.frame(edge.empty() ? std::string("ROOT(several)") : "ROOT(" + edge + ")"));
    else
      parent = node[s.parent];
    if (s.parent != ShapeNode::kNoParent && !edge.empty()) name += " via " + edge;
    if (s.repeats) name += " (repeated)";
    if (s.deeper) name += " (and deeper)";
    node[i] = b.node(parent, b.frame(name));
  }
  return node;
}

}  // namespace

ProfileAnswer sites_profile(const LoadedDump& dump, const HeapDominators* dominators) {
  const HeapGraph& g = dump.graph;
  ProfileAnswer a;
  a.input = summarize(dump);
  a.title = "heapq sites " + dump.path;
  // Retained bytes of different samples overlap (a String two stacks' objects share counts in
  // both): not the default, which viewers sum.
  a.types = {{"objects", "count"}};
  if (dominators) a.types.push_back({"retained", "bytes"});
  a.types.push_back({"space", "bytes"});
  ProfileBuilder b(a);
  std::unordered_map<SampleKey, uint32_t, SampleKeyHash> index;
  std::vector<uint32_t> sample_of(dominators ? g.object_count() : 0);
  std::vector<uint64_t> count, bytes;
  std::vector<uint32_t> site_frame(g.site_count(), UINT32_MAX);
  auto frame_of = [&](SiteId s) {
    uint32_t& f = site_frame[s.value()];
    if (f == UINT32_MAX) {
      const Site& site = g.site_info(s);
      f = b.frame(site_frame_name(g, site), std::string(g.string(site.file)), site.line);
    }
    return f;
  };
  for (uint32_t i = 0; i < g.object_count(); ++i) {
    const ObjectId o(i);
    const std::span<const SiteId> stack = g.stack(o);
    const SiteId site = g.source_site(o);
    const SampleKey key{stack.data(), site.value(), g.class_of(o).value(), g.type(o)};
    auto [it, added] = index.try_emplace(key, static_cast<uint32_t>(count.size()));
    if (added) {
      // Outermost frame first; the site `sites` groups by (a Proc's block, say) is the
      // innermost, below the stack's own innermost frame where that is another.
      uint32_t node = ProfileAnswer::kNoParent;
      for (size_t f = stack.size(); f-- > 0;) node = b.node(node, frame_of(stack[f]));
      if (stack.empty() || site != stack[0])
        node = b.node(node, site.valid() ? frame_of(site) : b.frame("(no allocation site)"));
      const uint32_t labels = b.labels({{"class", std::string(g.class_name(g.class_of(o)))},
                                        {"type", std::string(object_type_name(g.type(o)))}});
      a.samples.push_back({node, labels});
      count.push_back(0);
      bytes.push_back(0);
    }
    ++count[it->second];
    add_saturating(bytes[it->second], g.memsize(o));
    if (dominators) sample_of[i] = it->second;
  }
  std::vector<uint64_t> retained;
  if (dominators)
    retained =
        dominators->dominated_by(g, count.size(), [&](ObjectId o) { return sample_of[o.value()]; });
  for (size_t s = 0; s < count.size(); ++s) {
    a.values.push_back(as_value(count[s]));
    if (dominators) a.values.push_back(as_value(retained[s]));
    a.values.push_back(as_value(bytes[s]));
  }
  return a;
}

Result<ProfileAnswer> answer_sites_profile(const std::string& input, bool retained,
                                           const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(const LoadedDump dump,
                         load_input(input, inputs, retained ? Needs::kGraph : Needs::kObjects));
  std::optional<HeapDominators> dominators;
  if (retained) dominators = HeapDominators::compute(dump.graph);
  return sites_profile(dump, dominators ? &*dominators : nullptr);
}

Result<ProfileAnswer> answer_retainers_profile(const std::string& input, const std::string& target,
                                               const RetainersOptions& options,
                                               const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(const LoadedDump dump, load_input(input, inputs));
  const HeapGraph& g = dump.graph;
  HEAPQ_ASSIGN_OR_RETURN(const Target found, find_target(g, target, dump.path, options.site));
  std::vector<ObjectId> instances = found.instances;
  if (found.object) instances = {*found.object};
  ProfileAnswer a;
  a.input = summarize(dump);
  a.title = "heapq retainers " + dump.path + " " + target;
  a.types = {{"objects", "count"}, {"space", "bytes"}, {"retained", "bytes"}};
  const ShortestPathTree tree = ShortestPathTree::compute(g);
  const HeapDominators dom = HeapDominators::compute(g);
  const MergedPaths merged = merge_paths(g, tree, instances, options.max_depth);
  ProfileBuilder b(a);
  const std::vector<uint32_t> node = shape_nodes(g, merged, b);

  // An instance's retained bytes count unless another instance keeps it alive (dominates it):
  // each node's state, found once by walking up the dominator tree.
  enum : uint8_t { kUnknown, kInstance, kInstanceAbove, kNoneAbove };
  std::vector<uint8_t> state(g.object_count(), kUnknown);
  for (ObjectId o : instances) state[o.value()] = kInstance;
  std::vector<uint32_t> walked;
  auto instance_above = [&](ObjectId o) {
    walked.clear();
    uint8_t above = kNoneAbove;
    for (ObjectId v = dom.idom(o); v.valid() && v != g.virtual_root(); v = dom.idom(v)) {
      const uint8_t s = state[v.value()];
      if (s != kUnknown) {
        above = s == kNoneAbove ? kNoneAbove : kInstanceAbove;
        break;
      }
      walked.push_back(v.value());
    }
    for (uint32_t v : walked) state[v] = above;
    return above == kInstanceAbove;
  };
  std::vector<uint64_t> retained(merged.nodes.size(), 0);
  for (size_t i = 0; i < instances.size(); ++i) {
    const uint32_t shape = merged.target_node[i];
    if (shape != ShapeNode::kNoParent && !instance_above(instances[i]))
      add_saturating(retained[shape], dom.retained_bytes(instances[i]));
  }
  for (uint32_t i = 0; i < merged.nodes.size(); ++i)
    if (merged.nodes[i].count)
      b.sample(node[i], 0, {merged.nodes[i].count, merged.nodes[i].bytes, retained[i]});
  if (merged.unreachable) {
    uint64_t bytes = 0;
    for (size_t i = 0; i < instances.size(); ++i)
      if (merged.target_node[i] == ShapeNode::kNoParent)
        add_saturating(bytes, g.memsize(instances[i]));
    b.sample(b.node(ProfileAnswer::kNoParent, b.frame(kUnreachableFrame)), 0,
             {merged.unreachable, bytes, 0});
  }
  return a;
}

ProfileAnswer dominators_profile(const LoadedDump& dump, const HeapDominators& dom,
                                 size_t max_depth) {
  const HeapGraph& g = dump.graph;
  ProfileAnswer a;
  a.input = summarize(dump);
  a.title = "heapq dominators " + dump.path;
  a.types = {{"objects", "count"}, {"space", "bytes"}};
  const MergedPaths merged = merge_dominator_paths(g, dom, max_depth);
  ProfileBuilder b(a);
  const std::vector<uint32_t> node = shape_nodes(g, merged, b);
  for (uint32_t i = 0; i < merged.nodes.size(); ++i)
    if (merged.nodes[i].count) b.sample(node[i], 0, {merged.nodes[i].count, merged.nodes[i].bytes});
  if (dom.unreachable_count())
    b.sample(b.node(ProfileAnswer::kNoParent, b.frame(kUnreachableFrame)), 0,
             {dom.unreachable_count(), dom.unreachable_bytes()});
  return a;
}

Result<ProfileAnswer> answer_dominators_profile(const std::string& input, size_t max_depth,
                                                const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(const LoadedDump dump, load_input(input, inputs));
  const HeapDominators dom = HeapDominators::compute(dump.graph);
  return dominators_profile(dump, dom, max_depth);
}

}  // namespace heapq
