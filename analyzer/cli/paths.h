// Retention paths, objects and sites of a graph as text and JSON: the render layer's
// (render/text/common.h, render/json/common.h) on the graph's resolved parts.
#pragma once

#include <string>

#include "cli/output.h"
#include "heapq/retainers.h"
#include "render/text/common.h"

namespace heapq::cli {

// describe() for text, as name_text; a Proc says where its block is written.
std::string describe_text(const HeapGraph& g, ObjectId o);

// ROOT(global_tbl) -> Catalog::PriceCache @store -> Hash ["sku-42"] -> Catalog::Quote 0x...;
// an elided middle reads "-> ... (N steps) ...".
std::string path_text(const HeapGraph& g, const RetentionPath& path);

// [{"address","class","edge","root"}, ...]: edge names the reference into each step (for the
// first step, the root category, also given as "root"); an elided middle is {"elided": N}.
void path_json(JsonWriter& w, const HeapGraph& g, const RetentionPath& path);

// Writes the line, or null when the site has none.
void line_json(JsonWriter& w, uint32_t line);

// "samples/app.rb:12 in fetch", or empty without a site.
std::string site_text(const HeapGraph& g, ObjectId o);
std::string site_text(std::string_view file, uint32_t line, std::string_view method);
// site_text for text output, as name_text: a file name holding a newline stays on its line.
std::string site_name_text(const HeapGraph& g, ObjectId o);
// The "address" and "class" keys of an object, as every command's JSON names objects.
void object_json(JsonWriter& w, const HeapGraph& g, ObjectId o);

// {"file","line","method"} or null.
void site_json(JsonWriter& w, const HeapGraph& g, ObjectId o);
void site_json(JsonWriter& w, std::string_view file, uint32_t line, std::string_view method);

}  // namespace heapq::cli
