#include "json/writer.h"

#include "heapq/base/utf8.h"

namespace heapq::render {

void json_key(JsonWriter& w, std::string_view key) {
  if (valid_utf8(key)) {
    w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    return;
  }
  std::string repaired = repair_utf8(key);
  w.Key(repaired.data(), static_cast<rapidjson::SizeType>(repaired.size()));
}

void json_string(JsonWriter& w, std::string_view s) {
  if (valid_utf8(s)) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    return;
  }
  std::string repaired = repair_utf8(s);
  w.String(repaired.data(), static_cast<rapidjson::SizeType>(repaired.size()));
}

}  // namespace heapq::render
