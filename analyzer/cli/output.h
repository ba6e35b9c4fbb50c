// Renderers' tools: aligned text tables, human-readable numbers, and the JSON writer.
#pragma once

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/input.h"
#include "cli/terminal_text.h"

namespace heapq::cli {

std::string format_count(uint64_t n);  // 1234567 -> "1,234,567"
// A count and its noun: counted(1, "object", "objects") -> "1 object", (2, ...) -> "2 objects".
std::string counted(uint64_t n, std::string_view one, std::string_view many);
std::string format_bytes(uint64_t n);  // 1536 -> "1.5 KiB"

// Columns are left-aligned unless marked numeric (right-aligned). Cells are escaped for the
// terminal. A table wider than the output (output_width(), 80 by default) narrows its widest
// text columns, down to kMinTextWidth, cutting their cells in the middle ("/srv/app/…/cart.rb:12");
// one that does not fit even so is shown a row at a time, a column a line.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header, std::vector<bool> numeric);
  void add(std::vector<std::string> row);
  size_t size() const { return rows_.size() - 1; }  // rows, the header aside
  // The table's lines: no control character, none wider than width (0: no limit).
  std::string render() const { return render(output_width()); }
  std::string render(size_t width) const;
  static constexpr size_t kMinTextWidth = 12;

 private:
  std::vector<bool> numeric_;
  std::vector<std::vector<std::string>> rows_;  // the header first; cells escaped
  std::vector<size_t> width_;                   // by column: its widest cell
};

using JsonWriter = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

// Keys and strings are written as valid UTF-8 whatever they hold (a path from the command
// line, a value from SQL): ill-formed bytes become U+FFFD. JSON escapes control characters.
void json_key(JsonWriter& w, std::string_view key);
void json_string(JsonWriter& w, std::string_view s);
// A string, or null when it is empty (a missing file or method).
inline void json_string_or_null(JsonWriter& w, std::string_view s) {
  if (s.empty())
    w.Null();
  else
    json_string(w, s);
}
inline void json_optional(JsonWriter& w, std::optional<uint64_t> v) {
  if (v)
    w.Uint64(*v);
  else
    w.Null();
}

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

// Refuses (usage error) an output that is one of the command's inputs: the same file (device
// and inode, whatever the names: a hard link, a symlink, "./x"), a store's dump ("app.db#2")
// included. Inputs that do not exist or are stdin ("-") are skipped.
Status refuse_output_over_inputs(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace heapq::cli
