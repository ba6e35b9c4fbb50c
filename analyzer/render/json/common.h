// JSON of the parts answers share (heapq/answer/common.h), written once for every command.
#pragma once

#include <string_view>

#include "heapq/answer/common.h"
#include "render/json/writer.h"

namespace heapq::render {

// The "input" object (schemas/input.schema.json), with its key.
void write_input(JsonWriter& w, const InputSummary& input);
// The same object without its key, for answers that read several inputs.
void write_input_object(JsonWriter& w, const InputSummary& input);

}  // namespace heapq::render
