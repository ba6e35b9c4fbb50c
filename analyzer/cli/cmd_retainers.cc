// heapq retainers: why is this object (or this class's instances) alive?
#include <compare>
#include <map>
#include <string>
#include <utility>

#include "cli/command.h"
#include "cli/input.h"
#include "cli/output.h"
#include "cli/paths.h"
#include "cli/targets.h"
#include "heapq/retainers.h"
#include "heapq/saturating_add.h"
#include "render/text/terminal_text.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"paths", "N", "paths to show (default 3; for a class, path shapes; 0: all)"},
    {"max-depth", "D",
     "steps shown of a path, its middle elided past them; for a class, the deepest "
     "shape, deeper paths merged into it (default 64)"},
    {"referrers", "", "also list the direct referrers"},
};

// A group of referrers: the referrer's class, where its block is written when it is a Proc
// (empty otherwise) and the reference's name, all as the dump has them: JSON writes them whole,
// text through name_text.
struct ReferrerGroup {
  std::string cls, block, edge;
  auto operator<=>(const ReferrerGroup&) const = default;
};

// Referrers grouped by the referrer's class and the reference's name (indexes generalized).
std::map<ReferrerGroup, uint64_t> grouped_referrers(const HeapGraph& g, const Referrers& r,
                                                    const std::vector<ObjectId>& targets) {
  std::map<ReferrerGroup, uint64_t> groups;
  for (ObjectId t : targets) {
    IdRange<ObjectId> sources = r.of(t);
    for (size_t i = 0; i < sources.size(); ++i) {
      if (sources[i] == g.virtual_root()) {
        ++groups[{"ROOT", "", ""}];
        continue;
      }
      std::string block;
      if (SiteId b = g.block_site(sources[i]); b.valid())
        block = site_location(g.string(g.site_info(b).file), g.site_info(b).line);
      std::string edge(generalized_edge(g.string(reference_label(g, r.edges_of(t)[i]))));
      ++groups[{describe(g, sources[i]), std::move(block), std::move(edge)}];
    }
  }
  return groups;
}

// A group as text: describe_text's and name_text's forms of its parts.
std::string group_text(const ReferrerGroup& group) {
  std::string out = name_text(group.cls);
  if (!group.block.empty()) out += " (block at " + name_text(group.block) + ")";
  if (!group.edge.empty()) out += " " + name_text(group.edge);
  return out;
}

void object_target(const HeapGraph& g, ObjectId o, size_t max_paths, size_t max_depth,
                   bool want_referrers, Rendering& out) {
  JsonWriter& w = out.w;
  std::string& text = out.text;
  Referrers referrers = Referrers::build(g);
  json_key(w, "target");
  w.StartObject();
  object_json(w, g, o);
  json_key(w, "bytes");
  w.Uint64(g.memsize(o));
  json_key(w, "site");
  site_json(w, g, o);
  w.EndObject();

  std::vector<RetentionPath> paths = holder_paths(g, referrers, o, max_paths, max_depth);
  text = describe_text(g, o) + " " + hex_address(g.address(o)) + " (" + format_bytes(g.memsize(o));
  if (std::string site = site_name_text(g, o); !site.empty()) text += ", allocated at " + site;
  text += ")\n";
  if (paths.empty())
    text +=
        "not reachable from the GC roots: garbage not yet swept, or held only through weak "
        "references\n";
  else
    text += "shortest paths from the GC roots, each through a different referrer:\n";
  json_key(w, "paths");
  w.StartArray();
  for (size_t i = 0; i < paths.size(); ++i) {
    text += std::to_string(i + 1) + ". " + path_text(g, paths[i]) + "\n";
    path_json(w, g, paths[i]);
  }
  w.EndArray();
  if (!want_referrers) return;

  text += "referenced by:\n";
  json_key(w, "referrers");
  w.StartArray();
  IdRange<ObjectId> sources = referrers.of(o);
  for (size_t i = 0; i < sources.size(); ++i) {
    const ObjectId from = sources[i];
    // The reference's name; from the virtual root, its GC root category.
    const std::string_view edge = g.string(reference_label(g, referrers.edges_of(o)[i]));
    w.StartObject();
    if (from == g.virtual_root()) {
      json_key(w, "address");
      w.Null();
      json_key(w, "class");
      json_string(w, "ROOT");
      text += "  ROOT(" + name_text(edge) + ")\n";
    } else {
      object_json(w, g, from);
      text += "  " + describe_text(g, from) + " " + hex_address(g.address(from)) +
              (edge.empty() ? "" : " " + name_text(edge)) + "\n";
    }
    json_key(w, "edge");
    json_string_or_null(w, edge);
    w.EndObject();
  }
  w.EndArray();
}

void class_target(const HeapGraph& g, const Target& target, size_t max_paths, size_t max_depth,
                  bool want_referrers, Rendering& out) {
  JsonWriter& w = out.w;
  std::string& text = out.text;
  const std::vector<ObjectId>& instances = target.instances;
  uint64_t bytes = 0;
  for (ObjectId o : instances) add_saturating(bytes, g.memsize(o));
  json_key(w, "target");
  w.StartObject();
  json_key(w, "address");
  w.Null();
  json_key(w, "class");
  json_string(w, target.label);
  json_key(w, "instances");
  w.Uint64(instances.size());
  json_key(w, "bytes");
  w.Uint64(bytes);
  w.EndObject();

  const ShortestPathTree tree = ShortestPathTree::compute(g);
  const MergedPaths merged = merge_paths(g, tree, instances, max_depth);
  text = name_text(target.label) + ": " + counted(instances.size(), "instance", "instances") +
         ", " + format_bytes(bytes) +
         "\nshortest paths from the GC roots, merged by shape (count, bytes, an example):\n";
  const size_t shown = std::min(merged.groups.size(), max_paths);
  std::vector<RetentionPath> examples;
  for (size_t i = 0; i < shown; ++i)
    examples.push_back(tree.path_to(g, merged.nodes[merged.groups[i]].nearest_target, max_depth));
  json_key(w, "paths");
  w.StartArray();
  for (const RetentionPath& p : examples) path_json(w, g, p);
  w.EndArray();
  json_key(w, "groups");
  w.StartArray();
  for (size_t i = 0; i < shown; ++i) {
    const ShapeNode& node = merged.nodes[merged.groups[i]];
    text += format_count(node.count) + "  " + format_bytes(node.bytes) + "  " +
            path_text(g, examples[i]) + "\n";
    if (node.repeats) text += "    (a chain: a step of this shape repeats, as in a linked list)\n";
    if (node.deeper)
      text +=
          "    (and paths deeper than --max-depth " + std::to_string(max_depth) + " merged here)\n";
    w.StartObject();
    json_key(w, "count");
    w.Uint64(node.count);
    json_key(w, "bytes");
    w.Uint64(node.bytes);
    json_key(w, "repeats");
    w.Bool(node.repeats);
    json_key(w, "deeper");
    w.Bool(node.deeper);
    json_key(w, "path");
    path_json(w, g, examples[i]);
    w.EndObject();
  }
  w.EndArray();
  if (merged.groups.size() > shown)
    text += "(" + counted(merged.groups.size() - shown, "more shape", "more shapes") +
            "; --paths N shows more)\n";
  json_key(w, "unreachable");
  w.Uint64(merged.unreachable);
  if (merged.unreachable)
    text += counted(merged.unreachable, "instance is", "instances are") +
            " not reachable from the roots (garbage not yet swept)\n";
  if (!want_referrers) return;

  text += "referenced by (class, reference, count):\n";
  json_key(w, "referrers");
  w.StartArray();
  for (const auto& [group, count] : grouped_referrers(g, Referrers::build(g), instances)) {
    text += "  " + group_text(group) + "  " + format_count(count) + "\n";
    w.StartObject();
    json_key(w, "class");
    json_string(w, group.cls);
    json_key(w, "edge");
    json_string_or_null(w, group.edge);
    json_key(w, "count");
    w.Uint64(count);
    w.EndObject();
  }
  w.EndArray();
}

int run(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().size() != 2)
    return report_error(
        usage_error("retainers takes INPUT and TARGET (see heapq retainers --help)"));
  auto max_paths = get_limit(args, "paths", 3);
  if (!max_paths) return report_error(max_paths.error());
  auto max_depth = get_count(args, "max-depth", 64);
  if (!max_depth) return report_error(max_depth.error());
  auto dump = load_input(args.positional()[0], global);
  if (!dump) return report_error(dump.error());
  const HeapGraph& g = dump->graph;
  auto target = find_target(g, args.positional()[1], dump->path);
  if (!target) return report_error(target.error());

  Rendering out;
  out.w.StartObject();
  write_input_json(out.w, *dump);
  if (target->object)
    object_target(g, *target->object, *max_paths, *max_depth, args.has("referrers"), out);
  else
    class_target(g, *target, *max_paths, *max_depth, args.has("referrers"), out);
  out.w.EndObject();
  return out.emit(global.format);
}

}  // namespace

const Command kRetainersCommand = {
    "retainers",
    "why is an object alive: shortest paths from the GC roots, referrers",
    "heapq retainers [--paths N] [--max-depth D] [--referrers] INPUT TARGET",
    "TARGET is an object's address (0x...) or a class name as heapq stats shows it.\n"
    "For an address: the N shortest paths from the GC roots to the object, each through a\n"
    "different referrer (the object holding it directly), as\n"
    "ROOT(category) -> Class @ivar -> Hash [\"key\"] -> ...; reference names come from memprof\n"
    "dumps, class names always. For a class: the shortest path of every instance, merged by\n"
    "shape (same root, classes and reference names, with indexes and hash keys generalized,\n"
    "a repeated step such as a linked list's @next folded), most instances first. Paths longer\n"
    "than --max-depth show their first and last steps. --referrers lists the direct referrers\n"
    "too. References held by weak maps do not retain and are never on a path.\n",
    kOptions,
    run,
};

}  // namespace heapq::cli
