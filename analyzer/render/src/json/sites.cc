#include "heapq/render/render.h"
#include "json/common.h"

namespace heapq::render {

std::string json(const SitesAnswer& a) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_input(w, a.input);
  json_key(w, "objects_with_site");
  w.Uint64(a.objects_with_site);
  json_key(w, "groups");
  w.Uint64(a.groups);
  json_key(w, "sites");
  w.StartArray();
  for (const SitesAnswer::Row& r : a.rows) {
    w.StartObject();
    json_key(w, "file");
    json_string_or_null(w, r.file.value_or(""));
    json_key(w, "line");
    if (r.line)
      w.Uint(r.line);
    else
      w.Null();
    json_key(w, "method");
    json_string_or_null(w, r.method);
    json_key(w, "class");
    if (r.has_class)
      json_string(w, r.cls);
    else
      w.Null();
    if (a.by == SiteGrouping::kGem) {
      json_key(w, "gem");
      json_string(w, r.gem_name);
      json_key(w, "version");
      json_string_or_null(w, r.gem_version);
    }
    json_key(w, "count");
    w.Uint64(r.count);
    json_key(w, "bytes");
    w.Uint64(r.bytes);
    json_key(w, "retained_bytes");
    json_optional(w, r.retained_bytes);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return json_text(buffer);
}

}  // namespace heapq::render
