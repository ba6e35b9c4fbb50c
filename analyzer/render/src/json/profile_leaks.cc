// heapq leaks over sampled profiles, as JSON (schemas/leaks.schema.json, "profiles").
#include <algorithm>

#include "heapq/render/render.h"
#include "json/common.h"

namespace heapq::render {

namespace {

void series_json(JsonWriter& w, std::string_view key, const std::vector<int64_t>& values) {
  json_key(w, key);
  w.StartArray();
  for (int64_t v : values) w.Int64(v);
  w.EndArray();
}

void site_growth_json(JsonWriter& w, const SiteGrowth& s) {
  w.StartObject();
  json_key(w, "class");
  json_string_or_null(w, s.class_name);
  json_key(w, "site");
  std::optional<SiteRef> site;
  if (!s.file.empty())
    site = SiteRef{s.file, static_cast<uint32_t>(std::clamp<int64_t>(s.line, 0, UINT32_MAX)),
                   s.function};
  site_json(w, site);
  series_json(w, "objects", s.objects);
  series_json(w, "bytes", s.bytes);
  json_key(w, "objects_per_hour");
  w.Double(s.objects_per_hour);
  json_key(w, "bytes_per_hour");
  w.Double(s.bytes_per_hour);
  w.EndObject();
}

void process_json(JsonWriter& w, const ProfileLeaksAnswer::Process& p) {
  w.StartObject();
  json_key(w, "host");
  json_string_or_null(w, p.host);
  json_key(w, "pid");
  if (p.pid != 0)
    w.Uint64(p.pid);
  else
    w.Null();
  json_key(w, "started");
  json_string_or_null(w, p.started);
  json_key(w, "profiles");
  w.StartArray();
  for (const ProfileLeaksAnswer::Input& in : p.inputs) {
    w.StartObject();
    json_key(w, "path");
    json_string(w, in.path);
    json_key(w, "time");
    json_string_or_null(w, in.time);
    json_key(w, "period");
    w.Int64(in.period);
    json_key(w, "samples");
    w.Uint64(in.samples);
    w.EndObject();
  }
  w.EndArray();
  series_json(w, "heap_bytes", p.heap_bytes);
  json_key(w, "found");
  w.Uint64(p.found);
  json_key(w, "growing");
  w.StartArray();
  for (const SiteGrowth& s : p.growing) site_growth_json(w, s);
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string json(const ProfileLeaksAnswer& a) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  json_key(w, "from");
  json_string(w, "profiles");
  json_key(w, "processes");
  w.StartArray();
  for (const ProfileLeaksAnswer::Process& p : a.processes) process_json(w, p);
  w.EndArray();
  w.EndObject();
  return json_text(buffer);
}

}  // namespace heapq::render
