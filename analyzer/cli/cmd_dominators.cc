// heapq dominators: the objects that keep the most memory alive, and the dominator tree.
#include <algorithm>
#include <optional>

#include "cli/command.h"
#include "cli/input.h"
#include "cli/output.h"
#include "cli/paths.h"
#include "heapq/dominators.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"top", "N", "objects to list by retained bytes (default 10); with --depth, children per node"},
    {"depth", "D", "print the top D levels of the dominator tree instead"},
};

// Steps shown of a long path: its first and last ones, the middle elided.
constexpr size_t kPathSteps = 64;

struct Analysis {
  const HeapGraph& g;
  const HeapDominators& dom;
  const ShortestPathTree* paths;  // for the top list only: --depth prints no paths
};

// The objects with the most retained bytes, the virtual root left out.
std::vector<ObjectId> top_objects(const HeapGraph& g, const HeapDominators& dom, size_t top) {
  std::vector<ObjectId> all;
  all.reserve(g.object_count());
  for (uint32_t i = 0; i < g.object_count(); ++i)
    if (dom.reachable(ObjectId(i))) all.push_back(ObjectId(i));
  auto larger = [&](ObjectId a, ObjectId b) {
    if (dom.retained_bytes(a) != dom.retained_bytes(b))
      return dom.retained_bytes(a) > dom.retained_bytes(b);
    return a < b;
  };
  top = std::min(top, all.size());
  std::partial_sort(all.begin(), all.begin() + top, all.end(), larger);
  all.resize(top);
  return all;
}

std::string object_line(const Analysis& a, ObjectId o) {
  std::string line = format_bytes(a.dom.retained_bytes(o)) + " in " +
                     counted(a.dom.retained_count(o), "object", "objects") + ": " +
                     describe_text(a.g, o) + " " + hex_address(a.g.address(o));
  if (std::string site = site_name_text(a.g, o); !site.empty()) line += " (" + site + ")";
  return line;
}

std::string render_text(const LoadedDump& dump, const Analysis& a,
                        const std::vector<ObjectId>& top) {
  const HeapGraph& g = a.g;
  std::string out = dump.name + ": " + format_bytes(a.dom.retained_bytes(g.virtual_root())) +
                    " in " +
                    counted(a.dom.retained_count(g.virtual_root()) - 1, "object", "objects") +
                    " reachable from the roots";
  if (a.dom.unreachable_count())
    out += "; " + counted(a.dom.unreachable_count(), "unreachable object", "unreachable objects") +
           " (" + format_bytes(a.dom.unreachable_bytes()) + ", garbage not yet swept) left out";
  out += "\n\n";
  for (size_t i = 0; i < top.size(); ++i) {
    out += std::to_string(i + 1) + ". " + object_line(a, top[i]) + "\n";
    out += "   " + path_text(g, a.paths->path_to(g, top[i], kPathSteps)) + "\n";
  }
  return out;
}

// Output goes out in pieces of about a megabyte, so that a deep tree is never held whole.
constexpr size_t kFlushBytes = 1 << 20;
// Deeper levels are indented no further (their depth is written instead): indentation would
// make the output quadratic in the depth of a chain.
constexpr size_t kMaxIndent = 12;  // 24 columns: a line keeps 56 of 80

bool tree_text(const Analysis& a, ObjectId node, size_t depth, size_t max_depth, size_t top,
               std::string& out) {
  // Iterative: an explicit stack of (node, depth), children pushed largest last.
  struct Item {
    ObjectId node;
    size_t depth;
    size_t hidden;  // > 0: a "(N more)" line instead of a node
  };
  std::vector<Item> stack{{node, depth, 0}};
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    if (out.size() > kFlushBytes) {
      if (!emit_text(out)) return false;
      out.clear();
    }
    std::string indent(2 * std::min(it.depth, kMaxIndent), ' ');
    if (it.depth > kMaxIndent) indent += "[" + std::to_string(it.depth) + "] ";
    if (it.hidden) {
      out += indent + "(" + format_count(it.hidden) + " more)\n";
      continue;
    }
    if (it.node == a.g.virtual_root())
      out += "(roots) " + format_bytes(a.dom.retained_bytes(it.node)) + "\n";
    else
      out += indent + object_line(a, it.node) + "\n";
    if (it.depth >= max_depth) continue;
    std::vector<ObjectId> kids = a.dom.children(it.node);
    if (kids.size() > top) stack.push_back({ObjectId::none(), it.depth + 1, kids.size() - top});
    for (size_t i = std::min(top, kids.size()); i-- > 0;)
      stack.push_back({kids[i], it.depth + 1, 0});
  }
  return true;
}

void dominator_json(JsonWriter& w, const Analysis& a, ObjectId o) {
  object_json(w, a.g, o);
  json_key(w, "bytes");
  w.Uint64(a.g.memsize(o));
  json_key(w, "retained_bytes");
  w.Uint64(a.dom.retained_bytes(o));
  json_key(w, "retained_count");
  w.Uint64(a.dom.retained_count(o));
}

// Writes the buffer out once it holds a megabyte (or at the end); false when stdout fails.
struct JsonFlush {
  rapidjson::StringBuffer& buffer;
  bool ok = true;
  void operator()(bool force) {
    if (!ok || (!force && buffer.GetSize() < kFlushBytes)) return;
    ok = emit(std::string_view(buffer.GetString(), buffer.GetSize()));
    buffer.Clear();
  }
};

void tree_json(JsonWriter& w, const Analysis& a, ObjectId root, size_t max_depth, size_t top,
               JsonFlush& flush) {
  // A tree deeper than a few levels is written without indentation: linear, not quadratic.
  if (max_depth > kMaxIndent) w.SetIndent(' ', 0);
  // Iterative pre-order with explicit closing marks, so deep trees never recurse.
  struct Item {
    ObjectId node;
    size_t depth;
    bool close;
  };
  std::vector<Item> stack{{root, 0, false}};
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    flush(false);
    if (!flush.ok) return;
    if (it.close) {
      w.EndArray();
      w.EndObject();
      continue;
    }
    w.StartObject();
    if (it.node == a.g.virtual_root()) {
      json_key(w, "address");
      w.Null();
      json_key(w, "class");
      json_string(w, "(roots)");
      json_key(w, "retained_bytes");
      w.Uint64(a.dom.retained_bytes(it.node));
    } else {
      dominator_json(w, a, it.node);
    }
    json_key(w, "children");
    w.StartArray();
    stack.push_back({it.node, it.depth, true});
    if (it.depth < max_depth) {
      std::vector<ObjectId> kids = a.dom.children(it.node);
      for (size_t i = std::min(top, kids.size()); i-- > 0;)
        stack.push_back({kids[i], it.depth + 1, false});
    }
  }
}

bool write_json(const LoadedDump& dump, const Analysis& a, const std::vector<ObjectId>& top,
                std::optional<size_t> depth, size_t per_node) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  JsonFlush flush{buffer};
  w.StartObject();
  write_input_json(w, dump);
  json_key(w, "reachable");
  w.StartObject();
  json_key(w, "count");
  w.Uint64(a.dom.retained_count(a.g.virtual_root()) - 1);
  json_key(w, "bytes");
  w.Uint64(a.dom.retained_bytes(a.g.virtual_root()));
  w.EndObject();
  json_key(w, "unreachable");
  w.StartObject();
  json_key(w, "count");
  w.Uint64(a.dom.unreachable_count());
  json_key(w, "bytes");
  w.Uint64(a.dom.unreachable_bytes());
  w.EndObject();
  json_key(w, "dominators");
  w.StartArray();
  for (ObjectId o : top) {
    w.StartObject();
    dominator_json(w, a, o);
    json_key(w, "site");
    site_json(w, a.g, o);
    json_key(w, "path");
    path_json(w, a.g, a.paths->path_to(a.g, o, kPathSteps));
    w.EndObject();
  }
  w.EndArray();
  if (depth) {
    json_key(w, "tree");
    tree_json(w, a, a.g.virtual_root(), *depth, per_node, flush);
    if (!flush.ok) return false;
  }
  w.EndObject();
  buffer.Put('\n');
  flush(true);
  return flush.ok;
}

int run(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().size() != 1)
    return report_error(usage_error("dominators takes one INPUT (see heapq dominators --help)"));
  auto top = get_limit(args, "top", 10);
  if (!top) return report_error(top.error());
  std::optional<size_t> depth;
  if (args.has("depth")) {
    auto d = get_count(args, "depth", 0);
    if (!d) return report_error(d.error());
    depth = *d;
  }
  auto dump = load_input(args.positional()[0], global);
  if (!dump) return report_error(dump.error());
  const HeapGraph& g = dump->graph;
  HeapDominators dom = HeapDominators::compute(g);
  std::optional<ShortestPathTree> paths;
  if (!depth) paths = ShortestPathTree::compute(g);
  Analysis a{g, dom, paths ? &*paths : nullptr};
  const size_t n = *top;
  std::vector<ObjectId> best = depth ? std::vector<ObjectId>() : top_objects(g, dom, n);
  std::string text;
  bool ok = true;
  if (global.format == OutputFormat::kJson) {
    ok = write_json(*dump, a, best, depth, n);
  } else if (depth) {
    ok = tree_text(a, g.virtual_root(), 0, *depth, n, text) && emit_text(text);
  } else {
    ok = emit_text(render_text(*dump, a, best));
  }
  return ok ? 0 : static_cast<int>(ExitCode::kIo);
}

}  // namespace

const Command kDominatorsCommand = {
    "dominators",
    "the objects that keep the most memory alive (retained sizes, dominator tree)",
    "heapq dominators [--top N] [--depth D] INPUT",
    "An object dominates another when every path from the GC roots to the other passes through\n"
    "it: freeing it would free the other. Its retained size is the memory of all it dominates,\n"
    "itself included. Lists the objects with the largest retained size, each with its class,\n"
    "allocation site and a shortest path from the roots; --depth D prints the top of the\n"
    "dominator tree instead, --top N children per node. Objects the roots do not reach\n"
    "(garbage not yet swept) are counted apart. References held by ObjectSpace::WeakMap (and\n"
    "WeakRef, which uses one) do not retain.\n",
    kOptions,
    run,
};

}  // namespace heapq::cli
