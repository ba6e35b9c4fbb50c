// Writing a command's output: stdout, files written whole, the "input" object of JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/input.h"
#include "heapq/wording.h"
#include "render/json/writer.h"
#include "render/text/table.h"
#include "render/text/terminal_text.h"

namespace heapq::cli {

// The "input" object every command's JSON carries: what was read and what was skipped.
void write_input_json(JsonWriter& w, const LoadedDump& dump);
// The same object without its key, for commands that read several inputs.
void write_input_object(JsonWriter& w, const LoadedDump& dump);

// Writes the text to stdout; false (and a message on stderr) when stdout fails.
bool emit(std::string_view text);

// The same for text meant for a terminal: control characters in it (from dump strings) are
// escaped, newlines aside, and its lines made to fit output_width() (terminal_text.h).
bool emit_text(std::string_view text);

// Writes a finished JSON document with a final newline.
bool emit_json(const rapidjson::StringBuffer& buffer);

// A command's answer in both forms, built side by side: JSON and text.
struct Rendering {
  rapidjson::StringBuffer buffer;
  JsonWriter w{buffer};
  std::string text;
  // Writes the form asked for to stdout; the exit status.
  int emit(OutputFormat format) const {
    const bool ok = format == OutputFormat::kJson ? emit_json(buffer) : emit_text(text);
    return ok ? 0 : static_cast<int>(ExitCode::kIo);
  }
};

// Writes a file whole: to a temporary file created exclusively beside it (heapq/temp_file.h),
// renamed to `path` once complete, so that a reader never finds half of it there and a link
// planted in a shared directory is never followed (a device or FIFO, such as /dev/stdout, is
// written in place). Says "heapq: wrote PATH" on stderr unless quiet.
Status write_file(const std::string& path, std::string_view contents, bool quiet);

}  // namespace heapq::cli
