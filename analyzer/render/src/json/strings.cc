#include <cinttypes>
#include <cstdio>

#include "heapq/render/render.h"
#include "json/common.h"

namespace heapq::render {

namespace {

// "value" (whole as the dump has it; not UTF-8 bytes replaced), "value_cut", "bytesize",
// "value_hash".
void value_json(JsonWriter& w, const StringsAnswer::Value& v) {
  json_key(w, "value");
  json_string(w, v.text);
  json_key(w, "value_cut");
  w.Bool(v.cut);
  json_key(w, "bytesize");
  w.Uint64(v.bytesize);
  if (v.hash) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016" PRIx64, *v.hash);
    json_key(w, "value_hash");
    json_string(w, hex);
  }
}

}  // namespace

std::string json(const StringsAnswer& a) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_input(w, a.input);
  for (auto [key, n] : {std::pair{"strings_total", a.strings},
                        {"with_value", a.with_value},
                        {"distinct", a.distinct},
                        {"duplicated", a.duplicated},
                        {"copies", a.copies},
                        {"wasted_bytes", a.wasted_bytes},
                        {"more", a.more_rows}}) {
    json_key(w, key);
    w.Uint64(n);
  }
  json_key(w, "strings");
  w.StartArray();
  for (const StringsAnswer::Row& r : a.rows) {
    w.StartObject();
    value_json(w, r.value);
    for (auto [key, n] : {std::pair{"count", r.count},
                          {"bytes", r.bytes},
                          {"wasted_bytes", r.wasted_bytes},
                          {"frozen", r.frozen},
                          {"interned", r.interned}}) {
      json_key(w, key);
      w.Uint64(n);
    }
    json_key(w, "sites");
    w.StartArray();
    for (const StringsAnswer::SiteCount& s : r.sites) {
      w.StartObject();
      json_key(w, "site");
      site_json(w, s.site);
      json_key(w, "count");
      w.Uint64(s.count);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  json_key(w, "copying_sites");
  w.StartArray();
  for (const StringsAnswer::CopyingSite& c : a.copying_sites) {
    w.StartObject();
    json_key(w, "site");
    site_json(w, c.site);
    value_json(w, c.value);
    json_key(w, "count");
    w.Uint64(c.count);
    json_key(w, "bytes");
    w.Uint64(c.bytes);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return json_text(buffer);
}

}  // namespace heapq::render
