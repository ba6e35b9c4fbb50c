// The JSON writer every renderer uses: pretty-printed, and valid UTF-8 whatever it is given.
#pragma once

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace heapq::render {

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

// The document the buffer holds, with a final newline.
inline std::string json_text(const rapidjson::StringBuffer& buffer) {
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace heapq::render
