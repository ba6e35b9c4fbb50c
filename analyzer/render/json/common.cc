#include "render/json/common.h"

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
  w.EndObject();
}

}  // namespace heapq::render
