// Rendering retention paths and objects, shared by retainers and dominators.
#pragma once

#include <string>

#include "cli/output.h"
#include "heapq/retainers.h"

namespace heapq::cli {

// Text output cuts names from the dump (classes, references, sites) to this many columns;
// JSON keeps them whole.
constexpr size_t kNameWidth = 100;

// A name from the dump (class, reference, file) for text: control characters escaped (a raw
// newline in a class name must not start a line of its own), cut to kNameWidth.
std::string name_text(std::string_view name);

// describe() for text, as name_text; a Proc says where its block is written.
std::string describe_text(const HeapGraph& g, ObjectId o);

// "0x7f3a9c0b1e28"
std::string hex_address(uint64_t address);

// ROOT(global_tbl) -> Catalog::PriceCache @store -> Hash ["sku-42"] -> Catalog::Quote 0x...;
// an elided middle reads "-> ... (N steps) ...".
std::string path_text(const HeapGraph& g, const RetentionPath& path);

// [{"address","class","edge","root"}, ...]: edge names the reference into each step (for the
// first step, the root category, also given as "root"); an elided middle is {"elided": N}.
void path_json(JsonWriter& w, const HeapGraph& g, const RetentionPath& path);

// "samples/app.rb:12", or the file alone when the site has no line (0: allocated by C code).
std::string site_location(std::string_view file, uint32_t line);
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
