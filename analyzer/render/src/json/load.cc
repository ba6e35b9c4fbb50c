#include "heapq/render/render.h"
#include "json/writer.h"

namespace heapq::render {

std::string json(const LoadAnswer& a) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  json_key(w, "store");
  json_string(w, a.store);
  if (!a.server) {
    json_key(w, "bytes");
    w.Uint64(a.bytes);
  }
  json_key(w, "dumps");
  w.StartArray();
  for (const LoadAnswer::Dump& d : a.dumps) {
    w.StartObject();
    json_key(w, "id");
    w.Int64(d.id);
    json_key(w, "path");
    json_string(w, d.path);
    json_key(w, "objects");
    w.Uint64(d.objects);
    json_key(w, "references");
    w.Uint64(d.references);
    w.EndObject();
  }
  w.EndArray();
  json_key(w, "profiles");
  w.StartArray();
  for (const LoadAnswer::Profile& p : a.profiles) {
    w.StartObject();
    json_key(w, "id");
    w.Int64(p.id);
    json_key(w, "path");
    json_string(w, p.path);
    json_key(w, "samples");
    w.Uint64(p.samples);
    json_key(w, "objects");
    w.Uint64(p.objects);
    json_key(w, "bytes");
    w.Uint64(p.bytes);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return json_text(buffer);
}

}  // namespace heapq::render
