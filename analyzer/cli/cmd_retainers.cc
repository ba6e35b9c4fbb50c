// heapq retainers: why is this object (or this class's instances) alive?
#include <map>

#include "cli/command.h"
#include "cli/input.h"
#include "cli/output.h"
#include "cli/paths.h"
#include "heapq/retainers.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"paths", "N", "paths to show (default 3; for a class, path shapes)"},
    {"max-depth", "D", "longest path searched, in steps (default 64)"},
    {"referrers", "", "also list the direct referrers"},
};

struct Target {
  std::optional<ObjectId> object;  // an address
  std::vector<ObjectId> instances;  // a class
  std::string label;
};

Result<Target> find_target(const HeapGraph& g, const std::string& spec, const std::string& path) {
  Target t;
  t.label = spec;
  if (spec.starts_with("0x") || spec.starts_with("0X")) {
    uint64_t address = 0;
    if (spec.size() < 3 || spec.size() > 18 || spec.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos) return usage_error("\"" + spec + "\" is not a hex address");
    try {
      size_t used = 0;
      address = std::stoull(spec.substr(2), &used, 16);
      if (used != spec.size() - 2) throw std::invalid_argument(spec);
    } catch (const std::exception&) {
      return usage_error("\"" + spec + "\" is not a hex address");
    }
    auto o = g.find(address);
    if (!o) return usage_error("no object at " + spec + " in " + path);
    t.object = *o;
    return t;
  }
  for (uint32_t i = 0; i < g.object_count(); ++i)
    if (g.class_name(g.class_of(ObjectId(i))) == spec) t.instances.push_back(ObjectId(i));
  if (t.instances.empty())
    return usage_error("no instances of " + spec + " in " + path + " (TARGET is an address 0x... or a class name as heapq stats shows it)");
  return t;
}

// Referrers grouped by the referrer's class and the reference's name (indexes generalized).
std::map<std::pair<std::string, std::string>, uint64_t> grouped_referrers(const HeapGraph& g, const Referrers& r,
                                                                           const std::vector<ObjectId>& targets) {
  std::map<std::pair<std::string, std::string>, uint64_t> groups;
  for (ObjectId t : targets) {
    for (ObjectId from : r.of(t)) {
      if (from == g.virtual_root()) {
        ++groups[{"ROOT", ""}];
        continue;
      }
      std::string edge(g.string(edge_name(g, from, t)));
      if (edge.starts_with("[")) edge = "[]";
      ++groups[{describe(g, from), edge}];
    }
  }
  return groups;
}

// Both renderings are built side by side; the caller emits the one asked for.
struct Output {
  rapidjson::StringBuffer buffer;
  JsonWriter w{buffer};
  std::string text;
};

void object_target(const HeapGraph& g, ObjectId o, size_t max_paths, size_t max_depth, bool want_referrers, Output& out) {
  JsonWriter& w = out.w;
  std::string& text = out.text;
  Referrers referrers = Referrers::build(g);
  json_key(w, "target");
  w.StartObject();
  json_key(w, "address");
  json_string(w, hex_address(g.address(o)));
  json_key(w, "class");
  json_string(w, describe(g, o));
  json_key(w, "bytes");
  w.Uint64(g.memsize(o));
  json_key(w, "site");
  site_json(w, g, o);
  w.EndObject();

  std::vector<RetentionPath> paths = shortest_paths(g, referrers, o, max_paths, max_depth);
  text = describe(g, o) + " " + hex_address(g.address(o)) + " (" + format_bytes(g.memsize(o));
  if (std::string site = site_text(g, o); !site.empty()) text += ", allocated at " + site;
  text += ")\n";
  if (paths.empty())
    text += "no path from the GC roots within " + std::to_string(max_depth) +
            " steps: it is garbage not yet swept, or held only through weak references\n";
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
  for (ObjectId from : referrers.of(o)) {
    w.StartObject();
    json_key(w, "address");
    if (from == g.virtual_root()) {
      w.Null();
      json_key(w, "class");
      json_string(w, "ROOT");
      text += "  ROOT\n";
    } else {
      std::string edge(g.string(edge_name(g, from, o)));
      json_string(w, hex_address(g.address(from)));
      json_key(w, "class");
      json_string(w, describe(g, from));
      json_key(w, "edge");
      json_string_or_null(w, edge);
      text += "  " + describe(g, from) + " " + hex_address(g.address(from)) + (edge.empty() ? "" : " " + edge) + "\n";
    }
    w.EndObject();
  }
  w.EndArray();
}

void class_target(const HeapGraph& g, const Target& target, size_t max_paths, bool want_referrers, Output& out) {
  JsonWriter& w = out.w;
  std::string& text = out.text;
  const std::vector<ObjectId>& instances = target.instances;
  uint64_t bytes = 0;
  for (ObjectId o : instances) bytes += g.memsize(o);
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

  uint64_t unreachable = 0;
  std::vector<PathGroup> groups = merge_paths(g, ShortestPathTree::compute(g), instances, &unreachable);
  text = target.label + ": " + format_count(instances.size()) + " instances, " + format_bytes(bytes) +
         "\nshortest paths from the GC roots, merged by shape (count, bytes, an example):\n";
  const size_t shown = std::min(groups.size(), max_paths);
  json_key(w, "paths");
  w.StartArray();
  for (size_t i = 0; i < shown; ++i) path_json(w, g, groups[i].example);
  w.EndArray();
  json_key(w, "groups");
  w.StartArray();
  for (size_t i = 0; i < shown; ++i) {
    const PathGroup& grp = groups[i];
    text += format_count(grp.count) + "  " + format_bytes(grp.bytes) + "  " + path_text(g, grp.example) + "\n";
    w.StartObject();
    json_key(w, "count");
    w.Uint64(grp.count);
    json_key(w, "bytes");
    w.Uint64(grp.bytes);
    json_key(w, "path");
    path_json(w, g, grp.example);
    w.EndObject();
  }
  w.EndArray();
  if (groups.size() > shown) text += "(" + format_count(groups.size() - shown) + " more shapes; --paths N shows more)\n";
  json_key(w, "unreachable");
  w.Uint64(unreachable);
  if (unreachable) text += format_count(unreachable) + " instances are not reachable from the roots (garbage not yet swept)\n";
  if (!want_referrers) return;

  text += "referenced by (class, reference, count):\n";
  json_key(w, "referrers");
  w.StartArray();
  for (const auto& [key, count] : grouped_referrers(g, Referrers::build(g), instances)) {
    text += "  " + key.first + (key.second.empty() ? "" : " " + key.second) + "  " + format_count(count) + "\n";
    w.StartObject();
    json_key(w, "class");
    json_string(w, key.first);
    json_key(w, "edge");
    json_string_or_null(w, key.second);
    json_key(w, "count");
    w.Uint64(count);
    w.EndObject();
  }
  w.EndArray();
}

int run(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().size() != 2) return report_error(usage_error("retainers takes INPUT and TARGET (see heapq retainers --help)"));
  auto max_paths = get_count(args, "paths", 3);
  if (!max_paths) return report_error(max_paths.error());
  auto max_depth = get_count(args, "max-depth", 64);
  if (!max_depth) return report_error(max_depth.error());
  auto dump = load_input(args.positional()[0], global);
  if (!dump) return report_error(dump.error());
  const HeapGraph& g = dump->graph;
  auto target = find_target(g, args.positional()[1], dump->path);
  if (!target) return report_error(target.error());

  Output out;
  out.w.StartObject();
  write_input_json(out.w, *dump);
  if (target->object) object_target(g, *target->object, *max_paths, *max_depth, args.has("referrers"), out);
  else class_target(g, *target, *max_paths, args.has("referrers"), out);
  out.w.EndObject();
  bool ok = global.format == OutputFormat::kJson ? emit_json(out.buffer) : emit_text(out.text);
  return ok ? 0 : static_cast<int>(ExitCode::kIo);
}

}  // namespace

const Command kRetainersCommand = {
    "retainers",
    "why is an object alive: shortest paths from the GC roots, referrers",
    "heapq retainers [--paths N] [--max-depth D] [--referrers] INPUT TARGET",
    "TARGET is an object's address (0x...) or a class name as heapq stats shows it.\n"
    "For an address: the N shortest paths from the GC roots to the object, each through a\n"
    "different root-held object, as ROOT(category) -> Class @ivar -> Hash [\"key\"] -> ...;\n"
    "reference names come from memprof dumps, class names always. For a class: the shortest\n"
    "path of every instance, merged by shape (same root, classes and reference names, with\n"
    "indexes and hash keys generalized), most instances first. --referrers lists the direct\n"
    "referrers too. References held by weak maps do not retain and are never on a path.\n",
    kOptions,
    run,
};

}  // namespace heapq::cli
