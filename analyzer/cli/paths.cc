#include "cli/paths.h"

#include <cstdio>

#include "heapq/answer/common.h"
#include "render/json/common.h"
#include "render/text/terminal_text.h"

namespace heapq::cli {

std::string describe_text(const HeapGraph& g, ObjectId o) {
  return object_text(object_ref(g, o));
}

std::string path_text(const HeapGraph& g, const RetentionPath& path) {
  return render::path_text(path_ref(g, path));
}

void path_json(JsonWriter& w, const HeapGraph& g, const RetentionPath& path) {
  render::path_json(w, path_ref(g, path));
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
  render::object_json(w, object_ref(g, o));
}

void site_json(JsonWriter& w, std::string_view file, uint32_t line, std::string_view method) {
  render::site_json(w, SiteRef{std::string(file), line, std::string(method)});
}

void site_json(JsonWriter& w, const HeapGraph& g, ObjectId o) {
  render::site_json(w, site_ref(g, g.site(o)));
}

}  // namespace heapq::cli
