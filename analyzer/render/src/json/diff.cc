#include "heapq/render/render.h"
#include "json/common.h"

namespace heapq::render {

namespace {

void rows_json(JsonWriter& w, std::string_view key, const DiffAnswer::Rows& rows, GroupBy by) {
  json_key(w, key);
  w.StartArray();
  for (const DiffAnswer::Row& row : rows.rows) {
    const DiffRow& r = row.change;
    w.StartObject();
    if (by == GroupBy::kGem) {
      // As heapq sites --by gem writes it: the name, and the version apart.
      json_key(w, "gem");
      json_string(w, row.gem_name);
      json_key(w, "version");
      json_string_or_null(w, row.gem_version);
    } else {
      json_key(w, "class");
      json_string(w, r.group.cls);
    }
    if (by == GroupBy::kClassAndSite) {
      json_key(w, "file");
      json_string_or_null(w, r.group.file);
      json_key(w, "line");
      if (r.group.has_site() && r.group.line)
        w.Uint(r.group.line);
      else
        w.Null();
      json_key(w, "method");
      json_string_or_null(w, r.group.method);
    }
    count_and_bytes(w, "before", r.before_count, r.before_bytes);
    count_and_bytes(w, "after", r.after_count, r.after_bytes);
    json_key(w, "change");
    w.StartObject();
    json_key(w, "count");
    w.Int64(r.count_change());
    json_key(w, "bytes");
    w.Int64(r.bytes_change());
    w.EndObject();
    json_key(w, "born");
    w.Uint64(r.born);
    json_key(w, "freed");
    w.Uint64(r.freed);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string json(const DiffAnswer& a) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_input(w, a.input);
  json_key(w, "before");
  write_input_object(w, a.before);
  json_key(w, "matched_by");
  json_string(w, match_method_name(a.match));
  json_key(w, "born");
  w.Uint64(a.born);
  json_key(w, "freed");
  w.Uint64(a.freed);
  json_key(w, "warnings");
  w.StartArray();
  for (const std::string& warning : a.warnings) json_string(w, warning);
  w.EndArray();
  rows_json(w, "by_class", a.by_class, GroupBy::kClass);
  rows_json(w, "by_site", a.by_site, GroupBy::kClassAndSite);
  if (a.by == GroupBy::kGem) rows_json(w, "by_gem", a.by_gem, GroupBy::kGem);
  w.EndObject();
  return json_text(buffer);
}

}  // namespace heapq::render
