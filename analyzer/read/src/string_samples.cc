#include "heapq/read/string_samples.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <memory>
#include <string_view>

#include "heapq/read/byte_source.h"

namespace heapq {

namespace {

// The address a record line starts with ({"address":"0x...", ...), or 0.
uint64_t line_address(std::string_view line) {
  constexpr std::string_view kKey = "\"address\":";
  const size_t at = line.substr(0, 64).find(kKey);
  if (at == std::string_view::npos) return 0;
  size_t i = at + kKey.size();
  while (i < line.size() && line[i] == ' ') ++i;
  if (line.substr(i, 3) != "\"0x") return 0;
  uint64_t address = 0;
  for (i += 3; i < line.size(); ++i) {
    const char c = static_cast<char>(line[i] | 0x20);  // lower case
    if (c >= '0' && c <= '9')
      address = address << 4 | static_cast<uint64_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      address = address << 4 | static_cast<uint64_t>(c - 'a' + 10);
    else
      break;
  }
  return address;
}

}  // namespace

Result<std::unordered_map<uint64_t, std::string>> read_string_samples(
    ByteSource& source, const std::vector<uint64_t>& addresses, size_t max_bytes,
    size_t max_line_bytes) {
  std::unordered_map<uint64_t, std::string> out;
  if (addresses.empty()) return out;
  std::vector<uint64_t> wanted = addresses;
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::string line;       // a line begun in one block and ended in another
  bool skipping = false;  // the rest of a line longer than max_line_bytes
  auto take = [&](std::string_view l) {
    const uint64_t address = line_address(l);
    if (address == 0 || !std::binary_search(wanted.begin(), wanted.end(), address)) return;
    rapidjson::Document doc;
    doc.Parse(l.data(), l.size());
    if (doc.HasParseError() || !doc.IsObject()) return;
    // Const iterators on both sides: a non-const one against MemberEnd() is an ambiguous
    // comparison in C++20 (clang warns).
    const rapidjson::Document& d = doc;
    auto type = d.FindMember("type");
    auto value = d.FindMember("value");
    if (type == d.MemberEnd() || !type->value.IsString() || value == d.MemberEnd() ||
        !value->value.IsString())
      return;
    const std::string_view t(type->value.GetString(), type->value.GetStringLength());
    if (t != "STRING" && t != "SYMBOL") return;
    out[address] = std::string(value->value.GetString(),
                               std::min<size_t>(value->value.GetStringLength(), max_bytes));
  };
  std::vector<char> block(1 << 20);
  while (out.size() < wanted.size()) {
    HEAPQ_ASSIGN_OR_RETURN(const size_t n, source.read(block.data(), block.size()));
    if (n == 0) break;
    std::string_view rest(block.data(), n);
    for (size_t nl; (nl = rest.find('\n')) != std::string_view::npos; rest.remove_prefix(nl + 1)) {
      if (skipping) {
        skipping = false;
      } else if (line.empty()) {
        take(rest.substr(0, nl));
      } else {
        line.append(rest.data(), nl);
        take(line);
      }
      line.clear();
    }
    if (!skipping) line.append(rest);
    if (line.size() > max_line_bytes) {
      skipping = true;
      line.clear();
    }
  }
  if (!skipping && !line.empty()) take(line);
  return out;
}

}  // namespace heapq
