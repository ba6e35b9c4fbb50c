#include "heapq/answer/wording.h"
#include "heapq/render/render.h"
#include "json/common.h"

namespace heapq::render {

namespace {

void write_counts(JsonWriter& w, const std::vector<uint64_t>& growth) {
  w.StartArray();
  for (uint64_t n : growth) w.Uint64(n);
  w.EndArray();
}

// The answer's figures over the whole heap, before its leaks.
void write_summary(JsonWriter& w, const LeaksAnswer& a) {
  if (a.pid != 0) {
    json_key(w, "pid");
    w.Uint64(a.pid);
    json_key(w, "host");
    json_string_or_null(w, a.host);
    json_key(w, "started");
    json_string_or_null(w, a.started);
  }
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
  json_key(w, "found");
  w.Uint64(a.found);
  if (a.several) {
    json_key(w, "matched_by");
    json_string(w, match_method_name(a.match));
    json_key(w, "born");
    w.Uint64(a.born);
    json_key(w, "warnings");
    w.StartArray();
    for (const std::string& warning : a.warnings) json_string(w, warning);
    w.EndArray();
    json_key(w, "groups");
    w.Uint64(a.groups);
    json_key(w, "groups_growing");
    w.Uint64(a.groups_growing);
  }
}

// The object holding the leak, or null.
void write_holder(JsonWriter& w, const LeaksAnswer::Leak& leak) {
  if (leak.holder) {
    w.StartObject();
    object_json(w, *leak.holder);
    json_key(w, "site");
    site_json(w, leak.holder->site);
    json_key(w, "app");
    site_json(w, leak.holder->app);
    json_key(w, "edge");
    json_string_or_null(w, leak.holder_edge);
    json_key(w, "holds");
    w.Uint64(leak.holder_share);
    json_key(w, "own_memory");
    w.Bool(leak.own_memory);
    w.EndObject();
  } else {
    w.Null();
  }
}

// What the leak holds of one class and site.
void write_held(JsonWriter& w, const LeaksAnswer::Held& h) {
  w.StartObject();
  json_key(w, "class");
  json_string(w, h.cls);
  json_key(w, "site");
  site_json(w, h.site);
  json_key(w, "app");
  site_json(w, h.app);
  json_key(w, "app_count");
  w.Uint64(h.app_count);
  json_key(w, "count");
  w.Uint64(h.count);
  json_key(w, "bytes");
  w.Uint64(h.bytes);
  json_key(w, "retained_bytes");
  w.Uint64(h.retained_bytes);
  json_key(w, "growth");
  write_counts(w, h.growth);
  json_key(w, "growing");
  w.Bool(h.growing);
  json_key(w, "steady");
  w.Bool(h.steady);
  json_key(w, "example");
  json_string(w, hex_address(h.example));
  json_key(w, "sample");
  if (h.sample)
    json_string(w, *h.sample);
  else
    w.Null();
  w.EndObject();
}

void write_leak(JsonWriter& w, const LeaksAnswer::Leak& leak) {
  w.StartObject();
  json_key(w, "holder");
  write_holder(w, leak);
  json_key(w, "holder_root");
  json_string_or_null(w, leak.holder_root);
  json_key(w, "holder_root_names");
  w.StartArray();
  for (const auto& [name, count] : leak.holder_root_names) {
    w.StartObject();
    json_key(w, "name");
    json_string(w, name);
    json_key(w, "count");
    w.Uint64(count);
    w.EndObject();
  }
  w.EndArray();
  json_key(w, "path");
  if (leak.path)
    path_json(w, *leak.path);
  else
    w.Null();
  json_key(w, "path_kind");
  if (leak.path)
    json_string(w, leak.path_kind == LeaksAnswer::Leak::PathKind::kOwners ? "owners" : "shortest");
  else
    w.Null();
  json_key(w, "owner_path");
  if (leak.owner_path)
    path_json(w, *leak.owner_path);
  else
    w.Null();
  json_key(w, "count");
  w.Uint64(leak.count);
  json_key(w, "bytes");
  w.Uint64(leak.bytes);
  json_key(w, "retained_bytes");
  w.Uint64(leak.retained_bytes);
  json_key(w, "growth");
  write_counts(w, leak.growth);
  json_key(w, "growing");
  w.Bool(leak.growing);
  json_key(w, "steady");
  w.Bool(leak.steady);
  json_key(w, "pending_finalizers");
  w.Uint64(leak.pending_finalizers);
  json_key(w, "holds");
  w.StartArray();
  for (const LeaksAnswer::Held& h : leak.holds) write_held(w, h);
  w.EndArray();
  w.EndObject();
}

void write_answer(JsonWriter& w, const LeaksAnswer& a) {
  w.StartObject();
  write_summary(w, a);
  json_key(w, "leaks");
  w.StartArray();
  for (const LeaksAnswer::Leak& leak : a.leaks) write_leak(w, leak);
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string json(const LeaksAnswer& a) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  if (a.processes.empty()) {
    write_answer(w, a);
  } else {
    w.StartObject();
    json_key(w, "processes");
    w.StartArray();
    for (const LeaksAnswer& process : a.processes) write_answer(w, process);
    w.EndArray();
    w.EndObject();
  }
  return json_text(buffer);
}

}  // namespace heapq::render
