// The JSON parsers on a dump's records, side by side in one run: rapidjson in situ (heapq's),
// and simdjson's On Demand API a line at a time and over the whole text (iterate_many). Each
// touches every key and value, as the reader must; neither builds anything. Prints each one's
// time and rate, and simdjson's as a multiple of rapidjson's.
// Usage: heapq-parser-bench DUMP [ROUNDS]
#include <rapidjson/reader.h>
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

namespace {

// What was seen, so that no parser's work can be left out by the compiler, and so that the
// parsers can be checked to have seen the same.
struct Seen {
  uint64_t strings = 0, numbers = 0, sum = 0;
  bool operator==(const Seen&) const = default;
};

struct RapidHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, RapidHandler> {
  Seen& seen;
  explicit RapidHandler(Seen& s) : seen(s) {}
  bool number(uint64_t v) {
    ++seen.numbers;
    seen.sum += v;
    return true;
  }
  bool Null() { return true; }
  bool Bool(bool b) {
    seen.sum += b;
    return true;
  }
  bool Int(int i) { return number(static_cast<uint64_t>(i)); }
  bool Uint(unsigned i) { return number(i); }
  bool Int64(int64_t i) { return number(static_cast<uint64_t>(i)); }
  bool Uint64(uint64_t i) { return number(i); }
  bool Double(double d) { return number(static_cast<uint64_t>(d)); }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    ++seen.strings;
    seen.sum += n + (n ? static_cast<unsigned char>(s[0]) : 0);
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    seen.sum += n + (n ? static_cast<unsigned char>(s[0]) : 0);
    return true;
  }
};

void walk(simdjson::ondemand::value v, Seen& seen);

void walk_object(simdjson::ondemand::object o, Seen& seen) {
  for (auto field : o) {
    const std::string_view key = field.unescaped_key();
    seen.sum += key.size() + (key.empty() ? 0 : static_cast<unsigned char>(key[0]));
    walk(field.value(), seen);
  }
}

void walk(simdjson::ondemand::value v, Seen& seen) {
  using simdjson::ondemand::json_type;
  using simdjson::ondemand::number_type;
  switch (json_type(v.type())) {
    case json_type::object:
      walk_object(v.get_object(), seen);
      break;
    case json_type::array:
      for (auto e : v.get_array()) walk(e.value(), seen);
      break;
    case json_type::string: {
      const std::string_view s = v.get_string();
      ++seen.strings;
      seen.sum += s.size() + (s.empty() ? 0 : static_cast<unsigned char>(s[0]));
      break;
    }
    case json_type::number:
      ++seen.numbers;
      if (number_type(v.get_number_type()) == number_type::unsigned_integer)
        seen.sum += uint64_t(v.get_uint64());
      else if (number_type(v.get_number_type()) == number_type::signed_integer)
        seen.sum += static_cast<uint64_t>(int64_t(v.get_int64()));
      else
        seen.sum += static_cast<uint64_t>(double(v.get_double()));
      break;
    case json_type::boolean:
      seen.sum += bool(v.get_bool());
      break;
    case json_type::null:
      break;
  }
}

double seconds(const std::function<void()>& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: heapq-parser-bench DUMP [ROUNDS]\n");
    return 2;
  }
  std::ifstream file(argv[1], std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(file)), {});
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  std::vector<size_t> starts{0};  // of each line, then one past the text
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  if (starts.back() != text.size()) starts.push_back(text.size() + 1);
  const size_t lines = starts.size() - 1;
  std::printf("%s: %.0f MB, %zu lines, %s's On Demand on %s\n", argv[1], text.size() / 1e6, lines,
              "simdjson", std::string(simdjson::builtin_implementation()->name()).c_str());

  for (int round = 0; round < rounds; ++round) {
    Seen rapid, one, many;
    std::vector<char> insitu(text.size() + 1);
    std::memcpy(insitu.data(), text.data(), text.size());
    const double rapid_s = seconds([&] {
      rapidjson::Reader reader;
      RapidHandler handler(rapid);
      for (size_t l = 0; l < lines; ++l) {
        char* line = insitu.data() + starts[l];
        line[starts[l + 1] - starts[l] - 1] = '\0';
        rapidjson::InsituStringStream stream(line);
        if (reader.Parse<rapidjson::kParseInsituFlag>(stream, handler).IsError())
          std::fprintf(stderr, "rapidjson: line %zu is not JSON\n", l + 1);
      }
    });
    const simdjson::padded_string padded(text);
    const double one_s = seconds([&] {
      simdjson::ondemand::parser parser;
      for (size_t l = 0; l < lines; ++l) {
        // The lines after this one are its padding (and the padded string's for the last).
        auto doc = parser.iterate(padded.data() + starts[l], starts[l + 1] - starts[l] - 1,
                                  padded.size() + simdjson::SIMDJSON_PADDING - starts[l]);
        simdjson::ondemand::object o;
        if (doc.get_object().get(o) == simdjson::SUCCESS)
          walk_object(o, one);
        else
          std::fprintf(stderr, "simdjson: line %zu is not an object\n", l + 1);
      }
    });
    const double many_s = seconds([&] {
      simdjson::ondemand::parser parser;
      simdjson::ondemand::document_stream stream;
      if (parser.iterate_many(padded, size_t{64} << 20).get(stream) != simdjson::SUCCESS) return;
      for (auto doc : stream) {
        simdjson::ondemand::object o;
        if (doc.get_object().get(o) == simdjson::SUCCESS) walk_object(o, many);
      }
    });
    auto row = [&](const char* name, double s, const Seen& seen) {
      std::printf("  %-26s %6.3f s %6.0f MB/s  %5.2fx rapidjson's time%s\n", name, s,
                  text.size() / s / 1e6, s / rapid_s, seen == rapid ? "" : "  (saw other values)");
    };
    std::printf("round %d\n", round + 1);
    row("rapidjson in situ", rapid_s, rapid);
    row("simdjson a line at a time", one_s, one);
    row("simdjson iterate_many", many_s, many);
  }
}
