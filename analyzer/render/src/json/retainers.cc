#include "heapq/render/render.h"
#include "json/common.h"

namespace heapq::render {

namespace {

// The object asked about, or the class and its instances.
void target_json(JsonWriter& w, const RetainersAnswer& a) {
  w.StartObject();
  if (a.object) {
    object_json(w, *a.object);
    json_key(w, "bytes");
    w.Uint64(a.bytes);
    json_key(w, "site");
    site_json(w, a.object->site);
  } else {
    json_key(w, "address");
    w.Null();
    json_key(w, "class");
    json_string(w, a.cls);
    json_key(w, "instances");
    w.Uint64(a.instances);
    json_key(w, "bytes");
    w.Uint64(a.bytes);
  }
  w.EndObject();
}

// What references the target directly: each object, or by class and edge.
void referrers_json(JsonWriter& w, const RetainersAnswer& a) {
  w.StartArray();
  for (const RetainersAnswer::Referrer& r : a.referrers) {
    w.StartObject();
    if (r.object) {
      object_json(w, *r.object);
    } else {
      json_key(w, "address");
      w.Null();
      json_key(w, "class");
      json_string(w, "ROOT");
    }
    json_key(w, "edge");
    json_string_or_null(w, r.edge);
    w.EndObject();
  }
  for (const RetainersAnswer::ReferrerGroup& r : a.referrer_groups) {
    w.StartObject();
    json_key(w, "class");
    json_string(w, r.cls);
    json_key(w, "edge");
    json_string_or_null(w, r.edge);
    json_key(w, "count");
    w.Uint64(r.count);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string json(const RetainersAnswer& a) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_input(w, a.input);
  json_key(w, "target");
  target_json(w, a);
  json_key(w, "paths");
  w.StartArray();
  for (const PathRef& p : a.paths) path_json(w, p);
  for (const RetainersAnswer::Group& g : a.groups) path_json(w, g.path);
  w.EndArray();
  if (!a.object) {
    json_key(w, "groups");
    w.StartArray();
    for (const RetainersAnswer::Group& g : a.groups) {
      w.StartObject();
      json_key(w, "count");
      w.Uint64(g.count);
      json_key(w, "bytes");
      w.Uint64(g.bytes);
      json_key(w, "repeats");
      w.Bool(g.repeats);
      json_key(w, "deeper");
      w.Bool(g.deeper);
      json_key(w, "path");
      path_json(w, g.path);
      w.EndObject();
    }
    w.EndArray();
    json_key(w, "unreachable");
    w.Uint64(a.unreachable);
  }
  if (a.referrers_asked) {
    json_key(w, "referrers");
    referrers_json(w, a);
  }
  w.EndObject();
  return json_text(buffer);
}

}  // namespace heapq::render
