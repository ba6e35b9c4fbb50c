#include "render/json/common.h"
#include "render/render.h"
#include "render/text/common.h"

namespace heapq::render {

std::string json(const LeaksAnswer& a) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_input(w, a.input);
  json_key(w, "inputs");
  w.StartArray();
  for (const InputSummary& input : a.inputs) write_input_object(w, input);
  w.EndArray();
  json_key(w, "heap_bytes");
  w.Uint64(a.heap_bytes);
  json_key(w, "profiler_bytes");
  w.Uint64(a.profiler_bytes);
  if (!a.several) {
    json_key(w, "below_threshold");
    w.Bool(a.below_threshold);
  }
  if (a.several) {
    json_key(w, "matched_by");
    json_string(w, match_method_name(a.match));
    json_key(w, "born");
    w.Uint64(a.born);
    json_key(w, "groups_growing");
    w.Uint64(a.groups_growing);
  }
  json_key(w, "suspects");
  w.StartArray();
  for (const LeaksAnswer::Suspect& s : a.suspects) {
    w.StartObject();
    json_key(w, "class");
    json_string(w, s.cls);
    json_key(w, "site");
    site_json(w, s.site);
    json_key(w, "count");
    w.Uint64(s.count);
    json_key(w, "bytes");
    w.Uint64(s.bytes);
    json_key(w, "retained_bytes");
    w.Uint64(s.retained_bytes);
    json_key(w, "growth");
    w.StartArray();
    for (uint64_t n : s.growth) w.Uint64(n);
    w.EndArray();
    json_key(w, "growing");
    w.Bool(s.growing);
    json_key(w, "steady");
    w.Bool(s.steady);
    json_key(w, "example");
    json_string(w, hex_address(s.example));
    if (!a.several) {
      json_key(w, "sites");
      w.StartArray();
      for (const auto& [site, n] : s.sites) {
        w.StartObject();
        json_key(w, "site");
        site_json(w, site);
        json_key(w, "count");
        w.Uint64(n);
        w.EndObject();
      }
      w.EndArray();
    }
    json_key(w, "holder");
    if (s.holder) {
      w.StartObject();
      object_json(w, *s.holder);
      json_key(w, "edge");
      json_string_or_null(w, s.holder_edge);
      json_key(w, "holds");
      w.Uint64(s.holder_share);
      w.EndObject();
    } else {
      w.Null();
    }
    json_key(w, "path");
    if (s.path)
      path_json(w, *s.path);
    else
      w.Null();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return json_text(buffer);
}

}  // namespace heapq::render
