#include "json/common.h"

#include "heapq/answer/wording.h"

namespace heapq::render {

void write_input(JsonWriter& w, const InputSummary& input) {
  json_key(w, "input");
  write_input_object(w, input);
}

void write_input_object(JsonWriter& w, const InputSummary& input) {
  const LoadReport& r = input.report;
  w.StartObject();
  json_key(w, "path");
  json_string(w, input.path);
  json_key(w, "format");
  json_string(w, r.format == DumpFormat::kMemprof ? "memprof" : "objectspace");
  json_key(w, "lines");
  w.Uint64(r.lines);
  json_key(w, "objects");
  w.Uint64(r.objects);
  json_key(w, "roots");
  w.Uint64(r.roots);
  json_key(w, "shapes");
  w.Uint64(r.shapes);
  json_key(w, "bad_lines");
  w.Uint64(r.bad_lines);
  json_key(w, "repaired_strings");
  w.Uint64(r.repaired_strings);
  json_key(w, "dangling_references");
  w.Uint64(r.dangling_references);
  json_key(w, "incomplete");
  w.Bool(input.incomplete);
  json_key(w, "dead_finalizers");
  w.Uint64(r.dead_finalizers);
  json_key(w, "references_read");
  w.Bool(r.references_read);
  json_key(w, "dangling_classes");
  w.Uint64(r.dangling_classes);
  json_key(w, "duplicate_addresses");
  w.Uint64(r.duplicate_addresses);
  json_key(w, "warnings");
  w.StartArray();
  for (const std::string& s : input.warnings) json_string(w, s);
  w.EndArray();
  json_key(w, "unnamed");
  w.StartArray();
  for (const std::string& s : r.origin.unnamed) json_string(w, s);
  w.EndArray();
  w.EndObject();
}

void count_and_bytes(JsonWriter& w, std::string_view key, uint64_t count, uint64_t bytes) {
  json_key(w, key);
  w.StartObject();
  json_key(w, "count");
  w.Uint64(count);
  json_key(w, "bytes");
  w.Uint64(bytes);
  w.EndObject();
}

void object_json(JsonWriter& w, const ObjectRef& object) {
  json_key(w, "address");
  json_string(w, hex_address(object.address));
  json_key(w, "class");
  json_string(w, object.description);
}

void site_json(JsonWriter& w, const std::optional<SiteRef>& site) {
  if (!site) {
    w.Null();
    return;
  }
  w.StartObject();
  json_key(w, "file");
  json_string(w, site->file);
  json_key(w, "line");
  if (site->line)
    w.Uint(site->line);
  else
    w.Null();
  json_key(w, "method");
  json_string_or_null(w, site->method);
  w.EndObject();
}

void path_json(JsonWriter& w, const PathRef& path) {
  w.StartArray();
  for (size_t i = 0; i < path.steps.size(); ++i) {
    if (path.elided && i == path.elided_after) {
      w.StartObject();
      json_key(w, "elided");
      w.Uint64(path.elided);
      w.EndObject();
    }
    const PathRef::Step& s = path.steps[i];
    w.StartObject();
    object_json(w, s.object);
    json_key(w, "edge");
    json_string_or_null(w, i == 0 ? path.root : s.edge);
    if (i == 0) {
      json_key(w, "root");
      json_string_or_null(w, path.root);
      if (!path.root_name.empty()) {
        json_key(w, "root_name");
        json_string_or_null(w, path.root_name);
      }
    }
    if (s.object.block) {
      json_key(w, "block");
      site_json(w, s.object.block);
    }
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace heapq::render
