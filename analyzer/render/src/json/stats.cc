#include "heapq/render/render.h"
#include "json/common.h"

namespace heapq::render {

std::string json(const StatsAnswer& a) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_input(w, a.input);
  json_key(w, "objects");
  w.Uint64(a.objects);
  json_key(w, "bytes");
  w.Uint64(a.bytes);
  json_key(w, "by_type");
  w.StartArray();
  for (const StatsAnswer::TypeRow& t : a.by_type) {
    w.StartObject();
    json_key(w, "type");
    json_string(w, t.type);
    json_key(w, "count");
    w.Uint64(t.count);
    json_key(w, "bytes");
    w.Uint64(t.bytes);
    w.EndObject();
  }
  w.EndArray();
  json_key(w, "classes");
  w.Uint64(a.classes);
  json_key(w, "by_class");
  w.StartArray();
  for (const StatsAnswer::ClassRow& c : a.by_class) {
    w.StartObject();
    json_key(w, "class");
    json_string(w, c.cls);
    json_key(w, "count");
    w.Uint64(c.count);
    json_key(w, "bytes");
    w.Uint64(c.bytes);
    json_key(w, "retained_bytes");
    json_optional(w, c.retained_bytes);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return json_text(buffer);
}

}  // namespace heapq::render
