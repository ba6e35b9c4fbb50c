#include "heapq/answer/ask/leaks.h"

#include <cmath>
#include <unordered_map>

#include "heapq/analyze/dominators.h"
#include "heapq/analyze/leaks.h"
#include "heapq/analyze/retainers.h"
#include "heapq/read/string_samples.h"
#include "refs.h"

namespace heapq {

namespace {

std::optional<SiteRef> group_site(const ObjectGroup& g) {
  if (!g.has_site()) return std::nullopt;
  return SiteRef{g.file, g.line, g.method};
}

// The value of each String and Symbol row's example, read again from the last dump's file,
// through the descriptor it was read with (a store keeps no values; a pipe cannot be read
// twice). Samples are a help: a file that cannot be read again gives none.
void add_samples(Input& input, const LoadedDump& last, const InputOptions& inputs, LeaksAnswer& a) {
  if (!input.file || !input.file->regular()) return;
  std::vector<uint64_t> examples;
  for (const LeaksAnswer::Leak& leak : a.leaks)
    for (const LeaksAnswer::Held& h : leak.holds)
      if (auto o = last.graph.find(h.example); o && (last.graph.type(*o) == ObjectType::kString ||
                                                     last.graph.type(*o) == ObjectType::kSymbol))
        examples.push_back(h.example);
  if (examples.empty()) return;
  auto source = input.file->content();
  if (!source) return;
  auto values =
      read_string_samples(**source, examples, kSampleBytes, size_t(inputs.max_line_mib) << 20);
  if (!values.ok()) return;
  for (LeaksAnswer::Leak& leak : a.leaks)
    for (LeaksAnswer::Held& h : leak.holds)
      if (auto it = values->find(h.example); it != values->end()) h.sample = it->second;
}

// The dumps of one process, in their order.
Result<LeaksAnswer> answer_process_leaks(const std::vector<Input*>& dumps_in,
                                         const LeaksOptions& options, const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(const std::vector<LoadedDump> dumps,
                         load_process_dumps(dumps_in, inputs, options.as_given));
  const HeapDominators dom = HeapDominators::compute(dumps.back().graph);
  LeaksAnswer a = leaks_answer(dumps, dom, find_leaks(dumps, dom, options), options);
  add_samples(*dumps_in.back(), dumps.back(), inputs, a);
  return a;
}

// Whether `over` dominates o (o itself included), looking a few steps up: a reference back
// from what an object holds (a singleton class to its object) owns nothing.
bool dominated_by(const HeapGraph& g, const HeapDominators& dom, ObjectId o, ObjectId over) {
  for (int up = 0; up < 64 && o.valid() && o != g.virtual_root(); ++up, o = dom.idom(o))
    if (o == over) return true;
  return false;
}

// For the objects on the shortest paths to the holders (at most kOwnerSteps each): how many
// durable references each has, counted up to 2: from objects the durable roots reach, other
// than the VM's caches (a constant's cache holds its value) and what the object dominates
// itself, and from roots other than a thread's machine stack (scanned conservatively: a stale
// word there owns nothing). One pass over the references.
constexpr size_t kOwnerSteps = 1024;

std::unordered_map<uint32_t, uint32_t> durable_referrers(const HeapGraph& g,
                                                         const HeapDominators& dom,
                                                         const ShortestPathTree& tree,
                                                         const std::vector<ObjectId>& holders) {
  std::unordered_map<uint32_t, uint32_t> count;
  for (ObjectId h : holders)
    for (size_t step = 0; h.valid() && h != g.virtual_root() && step < kOwnerSteps;
         ++step, h = tree.parent(h))
      count.try_emplace(h.value(), 0);
  std::vector<bool> cache_class(g.class_count(), false);
  for (uint32_t c = 0; c < g.class_count(); ++c)
    cache_class[c] = is_vm_cache_class(g.class_name(ClassId(c)));
  for (uint32_t i = 0; i < g.object_count(); ++i) {
    const ObjectId o(i);
    if (!g.retains_from(i) || !tree.reachable(o) || tree.from_transient_root(o) ||
        (g.class_of(o).valid() && cache_class[g.class_of(o).value()]))
      continue;
    for (ObjectId t : g.references(o))
      if (auto it = count.find(t.value());
          it != count.end() && it->second < 2 && !dominated_by(g, dom, o, t))
        ++it->second;
  }
  for (const RootEdge& r : g.roots())
    if (auto it = count.find(r.target.value());
        it != count.end() && !is_transient_root(g.string(r.category)))
      ++it->second;
  return count;
}

// The holder's outermost owner: up from the holder, each object's immediate dominator, or its
// parent on the shortest path when that parent is its only durable referrer (a stale word on a
// thread's stack makes the roots its dominator).
ObjectId outermost_owner(const HeapGraph& g, const HeapDominators& dom,
                         const ShortestPathTree& tree,
                         const std::unordered_map<uint32_t, uint32_t>& referrers, ObjectId holder) {
  ObjectId owner = holder;
  for (size_t step = 0; step < kOwnerSteps; ++step) {
    if (const ObjectId up = dom.idom(owner); up.valid() && up != g.virtual_root()) {
      owner = up;
      continue;
    }
    const ObjectId parent = tree.parent(owner);
    auto it = referrers.find(owner.value());
    if (!parent.valid() || parent == g.virtual_root() || it == referrers.end() || it->second != 1)
      break;
    owner = parent;
  }
  return owner;
}

// The holder's owners: the shortest path's part from its outermost owner (every dominator of
// the holder lies on every path to it), the whole path when a root holds that owner directly;
// else the shortest path from the roots.
void set_path(const HeapGraph& g, const ShortestPathTree& tree, ObjectId holder, ObjectId owner,
              size_t max_depth, LeaksAnswer::Leak& out) {
  if (tree.parent(owner) == g.virtual_root() || owner == holder) {
    out.path_kind = tree.parent(owner) == g.virtual_root() ? LeaksAnswer::Leak::PathKind::kOwners
                                                           : LeaksAnswer::Leak::PathKind::kShortest;
    out.path = path_ref(g, tree.path_to(g, holder, max_depth));
    return;
  }
  out.path_kind = LeaksAnswer::Leak::PathKind::kOwners;
  out.path = path_ref(g, tree.path_to(g, holder, max_depth, owner));
  out.owner_path = path_ref(g, tree.path_to(g, owner, max_depth));
}

}  // namespace

Result<AnyLeaksAnswer> answer_leaks(const std::vector<std::string>& paths,
                                    const LeaksOptions& options, const InputOptions& inputs) {
  HEAPQ_ASSIGN_OR_RETURN(Inputs opened, Inputs::open_over_time(paths));
  HEAPQ_ASSIGN_OR_RETURN(const ProfileInputs kinds, profile_inputs(opened.all()));
  if (kinds.profiles != 0) {
    if (!options.given_for_dumps.empty())
      return usage_error("--" + options.given_for_dumps.front() +
                         " is for dumps; leaks over profiles takes --top alone");
    HEAPQ_ASSIGN_OR_RETURN(ProfileLeaksAnswer growth, answer_profile_leaks(opened.all(), options));
    return AnyLeaksAnswer(std::move(growth));
  }
  HEAPQ_ASSIGN_OR_RETURN(const std::vector<ProcessInputs> processes,
                         dumps_by_process(opened, inputs, options.as_given));
  if (processes.size() > 1) {
    // Objects of different processes never match: each process on its own, one at a time.
    LeaksAnswer a;
    for (const ProcessInputs& p : processes) {
      HEAPQ_ASSIGN_OR_RETURN(LeaksAnswer one, answer_process_leaks(p.inputs, options, inputs));
      one.pid = p.process.pid;
      one.host = p.process.host;
      one.started = p.process.started;
      a.processes.push_back(std::move(one));
    }
    return AnyLeaksAnswer(std::move(a));
  }
  HEAPQ_ASSIGN_OR_RETURN(LeaksAnswer a,
                         answer_process_leaks(processes.front().inputs, options, inputs));
  return AnyLeaksAnswer(std::move(a));
}

LeakReport find_leaks(const std::vector<LoadedDump>& dumps, const HeapDominators& dom,
                      const LeaksOptions& options) {
  if (dumps.size() == 1) return find_accumulations(dumps.back().graph, dom, options);
  std::vector<const HeapGraph*> graphs;
  std::vector<const std::vector<bool>*> reachable;
  for (const LoadedDump& d : dumps) {
    graphs.push_back(&d.graph);
    reachable.push_back(&d.reachable);
  }
  return find_growing_leaks(graphs, dom, options, reachable);
}

LeaksAnswer leaks_answer(const std::vector<LoadedDump>& dumps, const HeapDominators& dom,
                         const LeakReport& report, const LeaksOptions& options) {
  const HeapGraph& last = dumps.back().graph;
  LeaksAnswer a;
  a.several = dumps.size() > 1;
  a.input = summarize(dumps.back());
  for (const LoadedDump& d : dumps) a.inputs.push_back(summarize(d));
  a.heap_bytes = report.heap_bytes;
  a.profiler_bytes = report.profiler_bytes;
  a.match = report.match;
  a.born = report.born;
  if (a.several)
    if (auto w = compaction_warning(dumps.front().report.origin, dumps.back().report.origin,
                                    report.by_address))
      a.warnings.push_back(std::move(*w));
  a.groups = report.groups;
  a.groups_growing = report.groups_growing;
  a.found = report.found;
  a.min_growth = options.min_growth;
  a.threshold_percent = static_cast<uint64_t>(std::llround(options.threshold * 100));
  a.below_threshold = report.below_threshold;
  if (report.leaks.empty()) return a;

  const ShortestPathTree tree = ShortestPathTree::compute(last);
  std::vector<ObjectId> holders;
  for (const Leak& leak : report.leaks)
    if (leak.holder.valid()) holders.push_back(leak.holder);
  const std::unordered_map<uint32_t, uint32_t> referrers =
      durable_referrers(last, dom, tree, holders);
  for (const Leak& leak : report.leaks) {
    LeaksAnswer::Leak& out = a.leaks.emplace_back();
    static_cast<LeakCounts&>(out) = leak;
    for (const LeakGroup& g : leak.groups)
      out.holds.push_back({g.group.cls, group_site(g.group), g.count, g.bytes, g.growth, g.growing,
                           g.steady, last.address(g.example), site_ref(last, g.app_site),
                           g.app_count, g.retained_bytes, std::nullopt});
    out.holder_root = std::string(last.string(leak.holder_root));
    if (leak.holder.valid()) {
      out.holder = object_ref(last, leak.holder);
      out.holder_edge = std::string(last.string(tree.edge_into(last, leak.holder)));
      set_path(last, tree, leak.holder, outermost_owner(last, dom, tree, referrers, leak.holder),
               options.max_depth, out);
      out.own_memory = leak.count == 1 && leak.members.front() == leak.holder;
    }
  }
  return a;
}

}  // namespace heapq
