// JSON of the parts answers share (heapq/answer/common.h), written once for every command.
#pragma once

#include <string_view>

#include "heapq/answer/common.h"
#include "json/writer.h"

namespace heapq::render {

// The "input" object (schemas/input.schema.json), with its key.
void write_input(JsonWriter& w, const InputSummary& input);
// The same object without its key, for answers that read several inputs.
void write_input_object(JsonWriter& w, const InputSummary& input);

// key: {"count": count, "bytes": bytes}, as every answer writes totals.
void count_and_bytes(JsonWriter& w, std::string_view key, uint64_t count, uint64_t bytes);

// The "address" and "class" keys of an object, as every command's JSON names objects.
void object_json(JsonWriter& w, const ObjectRef& object);
// {"file","line","method"}, or null without a site.
void site_json(JsonWriter& w, const std::optional<SiteRef>& site);
// [{"address","class","edge","root"}, ...]: edge names the reference into each step (for the
// first step, the root category, also given as "root"); an elided middle is {"elided": N}.
void path_json(JsonWriter& w, const PathRef& path);

}  // namespace heapq::render
