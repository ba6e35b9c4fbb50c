#include "heapq/render/render.h"
#include "json/common.h"

namespace heapq::render {

namespace {

constexpr size_t kMaxIndent = 12;

void node_json(JsonWriter& w, const DominatorsAnswer::Node& n) {
  object_json(w, n.object);
  json_key(w, "bytes");
  w.Uint64(n.bytes);
  json_key(w, "retained_bytes");
  w.Uint64(n.retained_bytes);
  json_key(w, "retained_count");
  w.Uint64(n.retained_count);
}

// The entries, depth first, as nested objects: each node's "children" stays open until an entry
// no deeper than it comes.
void tree_json(JsonWriter& w, const DominatorsAnswer& a) {
  size_t open = 0;
  for (const DominatorsAnswer::TreeEntry& e : a.entries) {
    if (e.hidden) continue;
    for (; open > e.depth; --open) {
      w.EndArray();
      w.EndObject();
    }
    w.StartObject();
    if (e.roots) {
      json_key(w, "address");
      w.Null();
      json_key(w, "class");
      json_string(w, "(roots)");
      json_key(w, "retained_bytes");
      w.Uint64(e.node.retained_bytes);
    } else {
      node_json(w, e.node);
    }
    json_key(w, "children");
    w.StartArray();
    ++open;
  }
  for (; open > 0; --open) {
    w.EndArray();
    w.EndObject();
  }
}

}  // namespace

std::string json(const DominatorsAnswer& a) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_input(w, a.input);
  count_and_bytes(w, "reachable", a.reachable_count, a.reachable_bytes);
  count_and_bytes(w, "unreachable", a.unreachable_count, a.unreachable_bytes);
  json_key(w, "dominators");
  w.StartArray();
  for (const DominatorsAnswer::Dominator& d : a.dominators) {
    w.StartObject();
    node_json(w, d.node);
    json_key(w, "site");
    site_json(w, d.node.object.site);
    json_key(w, "path");
    path_json(w, d.path);
    w.EndObject();
  }
  w.EndArray();
  if (a.tree) {
    json_key(w, "tree");
    // A tree deeper than a few levels is written without indentation: linear, not quadratic.
    if (a.tree_depth > kMaxIndent) w.SetIndent(' ', 0);
    tree_json(w, a);
  }
  w.EndObject();
  return json_text(buffer);
}

}  // namespace heapq::render
