#include "cli/paths.h"

#include <cstdio>

#include "render/text/terminal_text.h"

namespace heapq::cli {

std::string hex_address(uint64_t address) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(address));
  return buf;
}

std::string name_text(std::string_view name) {
  return fit_width(escape_controls(name), kNameWidth);
}

std::string describe_text(const HeapGraph& g, ObjectId o) {
  std::string out = name_text(describe(g, o));
  if (SiteId b = g.block_site(o); b.valid()) {
    const Site& s = g.site_info(b);
    out += " (block at " + name_text(site_text(g.string(s.file), s.line, "")) + ")";
  }
  return out;
}

std::string path_text(const HeapGraph& g, const RetentionPath& path) {
  std::string out = "ROOT(" + name_text(g.string(path.root)) + ")";
  for (size_t i = 0; i < path.steps.size(); ++i) {
    if (path.elided && i == path.elided_after)
      out += " -> ... (" + counted(path.elided, "step", "steps") + ") ...";
    out += " -> " + describe_text(g, path.steps[i].object);
    if (i + 1 < path.steps.size()) {
      std::string_view edge = g.string(path.steps[i + 1].edge);
      if (!edge.empty()) out += " " + name_text(edge);
    } else {
      out += " " + hex_address(g.address(path.steps[i].object));
    }
  }
  return out;
}

void path_json(JsonWriter& w, const HeapGraph& g, const RetentionPath& path) {
  w.StartArray();
  for (size_t i = 0; i < path.steps.size(); ++i) {
    if (path.elided && i == path.elided_after) {
      w.StartObject();
      json_key(w, "elided");
      w.Uint64(path.elided);
      w.EndObject();
    }
    const PathStep& s = path.steps[i];
    w.StartObject();
    object_json(w, g, s.object);
    json_key(w, "edge");
    json_string_or_null(w, g.string(i == 0 ? path.root : s.edge));
    if (i == 0) {
      json_key(w, "root");
      json_string_or_null(w, g.string(path.root));
    }
    if (SiteId b = g.block_site(s.object); b.valid()) {
      const Site& site = g.site_info(b);
      json_key(w, "block");
      site_json(w, g.string(site.file), site.line, g.string(site.method));
    }
    w.EndObject();
  }
  w.EndArray();
}

std::string site_location(std::string_view file, uint32_t line) {
  return line ? std::string(file) + ":" + std::to_string(line) : std::string(file);
}

void line_json(JsonWriter& w, uint32_t line) {
  if (line)
    w.Uint(line);
  else
    w.Null();
}

std::string site_text(std::string_view file, uint32_t line, std::string_view method) {
  std::string out = site_location(file, line);
  if (!method.empty()) out += " in " + std::string(method);
  return out;
}

std::string site_text(const HeapGraph& g, ObjectId o) {
  SiteId s = g.site(o);
  if (!s.valid()) return {};
  const Site& site = g.site_info(s);
  return site_text(g.string(site.file), site.line, g.string(site.method));
}

std::string site_name_text(const HeapGraph& g, ObjectId o) {
  std::string site = site_text(g, o);
  return site.empty() ? site : name_text(site);
}

void object_json(JsonWriter& w, const HeapGraph& g, ObjectId o) {
  json_key(w, "address");
  json_string(w, hex_address(g.address(o)));
  json_key(w, "class");
  json_string(w, describe(g, o));
}

void site_json(JsonWriter& w, std::string_view file, uint32_t line, std::string_view method) {
  w.StartObject();
  json_key(w, "file");
  json_string(w, file);
  json_key(w, "line");
  line_json(w, line);
  json_key(w, "method");
  json_string_or_null(w, method);
  w.EndObject();
}

void site_json(JsonWriter& w, const HeapGraph& g, ObjectId o) {
  SiteId s = g.site(o);
  if (!s.valid()) {
    w.Null();
    return;
  }
  const Site& site = g.site_info(s);
  site_json(w, g.string(site.file), site.line, g.string(site.method));
}

}  // namespace heapq::cli
