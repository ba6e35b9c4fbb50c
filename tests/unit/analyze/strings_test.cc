// Duplicate strings by value, on hand-built dumps.
#include "heapq/analyze/strings.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "test_dumps.h"

namespace heapq {
namespace {

// A STRING record with a value; extra: more fields, each followed by ", ".
std::string string_record(uint64_t address, const std::string& value, uint64_t memsize,
                          const std::string& extra = "") {
  char head[64];
  std::snprintf(head, sizeof head, R"({"address":"0x%llx", "type":"STRING", )",
                (unsigned long long)address);
  return head + extra + R"("bytesize":)" + std::to_string(value.size()) + R"(, "value":")" + value +
         R"(", "memsize":)" + std::to_string(memsize) + "}\n";
}

HeapGraph load_values(const std::string& text) {
  LoadOptions options;
  options.values = true;
  auto loaded = testing::load_text(text, options);
  EXPECT_TRUE(loaded.graph.ok()) << loaded.graph.error().message;
  return std::move(loaded.graph.value());
}

const char* kAt5 = R"("file":"app/cart.rb", "line":5, "method":"add", )";
const char* kAt9 = R"("file":"app/tags.rb", "line":9, "method":"tag", )";

TEST(DuplicateStrings, GroupsByValueMostWastedFirst) {
  const std::string dump =
      string_record(0x100, "sku", 40, kAt5) + string_record(0x110, "sku", 40, kAt5) +
      string_record(0x120, "sku", 40, std::string(kAt9) + R"("frozen":true, "fstring":true, )") +
      string_record(0x200, "a long description", 90, kAt9) +
      string_record(0x210, "a long description", 60, kAt9) + string_record(0x300, "once", 40) +
      R"({"address":"0x400", "type":"STRING", "shared":true, "bytesize":3, "memsize":40})"
      "\n";
  const HeapGraph g = load_values(dump);
  const StringReport r = compute_duplicate_strings(g, 10, 3);
  EXPECT_EQ(r.strings, 7u);
  EXPECT_EQ(r.with_value, 6u) << "the shared string has no value of its own";
  EXPECT_EQ(r.distinct, 3u);
  EXPECT_EQ(r.duplicated, 2u);
  EXPECT_EQ(r.copies, 5u);
  EXPECT_EQ(r.wasted_bytes, 80u + 90u);
  ASSERT_EQ(r.duplicates.size(), 2u);
  const DuplicateString& description = r.duplicates[0];
  EXPECT_EQ(description.value, "a long description");
  EXPECT_EQ(description.wasted_bytes, 90u) << "all but the smallest copy";
  const DuplicateString& sku = r.duplicates[1];
  EXPECT_EQ(sku.value, "sku");
  EXPECT_EQ(sku.count, 3u);
  EXPECT_EQ(sku.bytes, 120u);
  EXPECT_EQ(sku.wasted_bytes, 80u);
  EXPECT_EQ(sku.frozen, 1u);
  EXPECT_EQ(sku.interned, 1u);
  ASSERT_EQ(sku.sites.size(), 2u);
  EXPECT_EQ(g.site_info(sku.sites[0].first).line, 5u);
  EXPECT_EQ(sku.sites[0].second, 2u);
  // Lines that make copies of one value: app/tags.rb:9 two descriptions, app/cart.rb:5 two skus.
  ASSERT_EQ(r.copying_sites.size(), 2u);
  EXPECT_EQ(r.copying_sites[0].count, 2u);
  EXPECT_EQ(r.copying_sites[1].count, 2u);
}

TEST(DuplicateStrings, CutValuesAreToldApartByTheirHash) {
  // memprof cut three 2,000-byte values to "abc": two are the same value, one is not.
  auto cut = [](uint64_t address, const char* hash) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  R"({"address":"0x%llx", "type":"STRING", "bytesize":2000, "value":"abc", )"
                  R"("value_hash":"%s", "memsize":2041})"
                  "\n",
                  (unsigned long long)address, hash);
    return std::string(buf);
  };
  const HeapGraph g = load_values(cut(0x100, "00000000deadbeef") + cut(0x110, "00000000deadbeef") +
                                  cut(0x120, "0123456789abcdef") + string_record(0x130, "abc", 40) +
                                  string_record(0x140, "abc", 40));
  const StringReport r = compute_duplicate_strings(g, 10, 3);
  EXPECT_EQ(r.distinct, 3u) << "the two hashes, and the short \"abc\"";
  ASSERT_EQ(r.duplicates.size(), 2u);
  EXPECT_EQ(r.duplicates[0].count, 2u);
  EXPECT_TRUE(r.duplicates[0].cut);
  EXPECT_EQ(r.duplicates[0].bytesize, 2000u);
  EXPECT_EQ(r.duplicates[0].hash, 0xdeadbeefu);
  EXPECT_FALSE(r.duplicates[1].cut);
}

TEST(DuplicateStrings, CopiesAgreeOnEverythingTheDumpSays) {
  // Two different beginnings of 2,000-byte values with one (forged) hash are two values.
  auto cut = [](uint64_t address, const char* value) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  R"({"address":"0x%llx", "type":"STRING", "bytesize":2000, "value":"%s", )"
                  R"("value_hash":"00000000deadbeef", "memsize":2041})"
                  "\n",
                  (unsigned long long)address, value);
    return std::string(buf);
  };
  // memprof writes the binary "\xFF\xFE" (2 bytes) as the UTF-8 "\u00ff\u00fe" (4 bytes):
  // its bytesize tells it from the UTF-8 string of those two characters.
  auto binary = [](uint64_t address) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  R"({"address":"0x%llx", "type":"STRING", "bytesize":2, )"
                  R"("value":"\u00ff\u00fe", "memsize":40})"
                  "\n",
                  (unsigned long long)address);
    return std::string(buf);
  };
  const HeapGraph g = load_values(cut(0x100, "abc") + cut(0x110, "abd") + binary(0x200) +
                                  binary(0x210) + string_record(0x300, "\u00ff\u00fe", 40) +
                                  string_record(0x310, "\u00ff\u00fe", 40));
  const StringReport r = compute_duplicate_strings(g, 10, 3);
  EXPECT_EQ(r.distinct, 4u) << "two cut values, the binary one, the UTF-8 one";
  ASSERT_EQ(r.duplicates.size(), 2u);
  for (const DuplicateString& d : r.duplicates) {
    EXPECT_EQ(d.count, 2u);
    EXPECT_EQ(d.value, "\u00ff\u00fe");
  }
  EXPECT_EQ(std::min(r.duplicates[0].bytesize, r.duplicates[1].bytesize), 2u);
  EXPECT_EQ(std::max(r.duplicates[0].bytesize, r.duplicates[1].bytesize), 4u);
}

TEST(DuplicateStrings, ValuesAreKeptOnlyWhenAsked) {
  const std::string dump = string_record(0x100, "sku", 40) + string_record(0x110, "sku", 40);
  const HeapGraph g = testing::load_graph(dump);
  EXPECT_TRUE(g.string_values().empty());
  EXPECT_EQ(compute_duplicate_strings(g, 10, 3).duplicated, 0u);
}

TEST(DuplicateStrings, BytesThatAreNotUtf8AreKeptAsTheyAre) {
  // Ruby 3.1's ObjectSpace writes a binary string's bytes raw: two such copies are one value,
  // and a third with other bytes is another, though a repair would make them all alike.
  const std::string dump = string_record(0x100, "\xff\xfe", 40) +
                           string_record(0x110, "\xff\xfe", 40) +
                           string_record(0x120, "\xff\xfd", 40);
  const HeapGraph g = load_values(dump);
  const StringReport r = compute_duplicate_strings(g, 10, 3);
  EXPECT_EQ(r.distinct, 2u);
  ASSERT_EQ(r.duplicates.size(), 1u);
  EXPECT_EQ(r.duplicates[0].value, "\xff\xfe");
}

}  // namespace
}  // namespace heapq
