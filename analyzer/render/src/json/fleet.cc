#include "heapq/render/render.h"
#include "json/common.h"

namespace heapq::render {

namespace {

void process_json(JsonWriter& w, const FleetAnswer::Process& p) {
  w.StartObject();
  json_key(w, "host");
  json_string_or_null(w, p.host);
  json_key(w, "pid");
  w.Uint64(p.pid);
  json_key(w, "started");
  json_string_or_null(w, p.started);
  json_key(w, "app");
  json_string_or_null(w, p.app);
  json_key(w, "profiles");
  w.Bool(p.profiles);
  w.EndObject();
}

void double_or_null(JsonWriter& w, const std::optional<double>& x) {
  if (x)
    w.Double(*x);
  else
    w.Null();
}

// A group growing across processes, with the processes it grows fastest in.
void group_json(JsonWriter& w, const FleetAnswer::Group& g) {
  w.StartObject();
  json_key(w, "class");
  json_string(w, g.class_name);
  json_key(w, "site");
  site_json(w, g.site);
  for (auto [key, n] : {std::pair{"processes", g.growing_in},
                        {"processes_holding", g.seen_in},
                        {"count", g.count},
                        {"bytes", g.bytes}}) {
    json_key(w, key);
    w.Uint64(n);
  }
  json_key(w, "processes_rated");
  w.Uint64(g.rated_in);
  json_key(w, "objects_per_hour");
  double_or_null(w, g.objects_per_hour);
  json_key(w, "bytes_per_hour");
  double_or_null(w, g.bytes_per_hour);
  json_key(w, "share");
  w.Double(g.share);
  json_key(w, "worst");
  w.StartArray();
  for (const FleetAnswer::Worst& x : g.worst) {
    w.StartObject();
    json_key(w, "process");
    process_json(w, x.process);
    json_key(w, "growth");
    w.Int64(x.growth);
    json_key(w, "seconds");
    double_or_null(w, x.seconds);
    json_key(w, "objects_per_hour");
    double_or_null(w, x.per_hour);
    w.EndObject();
  }
  w.EndArray();
  json_key(w, "hosts");
  w.StartArray();
  for (const std::string& h : g.hosts) json_string(w, h);
  w.EndArray();
  json_key(w, "more_hosts");
  w.Uint64(g.more_hosts);
  w.EndObject();
}

// One process's heap, from its first dump to its last.
void heap_json(JsonWriter& w, const FleetAnswer::ProcessHeap& p) {
  w.StartObject();
  json_key(w, "process");
  process_json(w, p.process);
  json_key(w, "heap");
  w.StartArray();
  for (const FleetAnswer::Point& pt : p.heap) {
    w.StartObject();
    json_key(w, "time");
    json_string_or_null(w, pt.time);
    json_key(w, "objects");
    w.Uint64(pt.objects);
    json_key(w, "bytes");
    w.Uint64(pt.bytes);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string json(const FleetAnswer& a) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  json_key(w, "store");
  json_string(w, a.store);
  json_key(w, "app");
  json_string_or_null(w, a.options.app);
  json_key(w, "since");
  json_string_or_null(w, a.options.since);
  for (auto [key, n] : {std::pair{"dumps", a.dumps},
                        {"profiles", a.profiles},
                        {"processes", a.processes},
                        {"hosts", a.hosts},
                        {"unattributed_dumps", a.unattributed_dumps},
                        {"more", a.more_groups}}) {
    json_key(w, key);
    w.Uint64(n);
  }
  json_key(w, "first_time");
  json_string_or_null(w, a.first_time);
  json_key(w, "last_time");
  json_string_or_null(w, a.last_time);
  json_key(w, "growing");
  w.StartArray();
  for (const FleetAnswer::Group& g : a.groups) group_json(w, g);
  w.EndArray();
  json_key(w, "processes_over_time");
  w.StartArray();
  for (const FleetAnswer::ProcessHeap& p : a.heaps) heap_json(w, p);
  w.EndArray();
  w.EndObject();
  return json_text(buffer);
}

}  // namespace heapq::render
