// Dumps of one small heap by ObjectSpace and by memprof on each Ruby of the matrix
// (tests/fixtures/version-dumps, made by its make-dumps.rb).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "heapq/analyze/stats.h"
#include "heapq/model/load.h"
#include "heapq/read/byte_source.h"

namespace heapq {
namespace {

struct VersionDump {
  HeapGraph graph;
  LoadReport report;
  std::map<std::string, uint64_t> types;  // heapq's counts by type
  std::map<std::string, uint64_t> lines;  // the file's records by "type", read apart from heapq
};

std::string path_of(const std::string& name) {
  return std::string(HEAPQ_FIXTURES_DIR) + "/version-dumps/" + name + ".gz";
}

// Counts records by their "type" value with a plain text scan: the reader is what is tested.
std::map<std::string, uint64_t> count_lines(const std::string& path) {
  std::map<std::string, uint64_t> counts;
  auto input = open_input(path);
  if (!input.ok()) return counts;
  std::string text, line;
  char buf[1 << 16];
  for (auto n = (*input)->read(buf, sizeof buf); n.ok() && *n > 0;
       n = (*input)->read(buf, sizeof buf))
    text.append(buf, *n);
  for (size_t at = 0, end; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    line = text.substr(at, end - at);
    const size_t key = line.find("\"type\":\"");
    if (key == std::string::npos) continue;
    const size_t from = key + 8;
    ++counts[line.substr(from, line.find('"', from) - from)];
  }
  return counts;
}

VersionDump load_fixture(const std::string& name) {
  VersionDump d;
  auto input = open_input(path_of(name));
  EXPECT_TRUE(input.ok()) << path_of(name);
  if (!input.ok()) return d;
  auto graph = load_dump(**input, {}, d.report);
  EXPECT_TRUE(graph.ok()) << graph.error().message;
  if (!graph.ok()) return d;
  d.graph = std::move(graph.value());
  for (const TypeTotals& t : compute_stats(d.graph).by_type)
    d.types[std::string(object_type_name(t.type))] = t.count;
  d.lines = count_lines(path_of(name));
  return d;
}

// Objects of the class named `name` (a CLASS record of the dump).
std::vector<ObjectId> instances_of(const HeapGraph& g, std::string_view name) {
  std::vector<ObjectId> found;
  for (uint32_t i = 0; i < g.object_count(); ++i)
    if (g.class_name(g.class_of(ObjectId(i))) == name) found.push_back(ObjectId(i));
  return found;
}

void expect_read_whole(const VersionDump& d, bool shapes) {
  ASSERT_GT(d.graph.object_count(), 0u);
  EXPECT_EQ(d.report.bad_lines, 0u);
  EXPECT_EQ(d.report.repaired_strings, 0u);
  EXPECT_EQ(d.types.count("SHAPE"), 0u) << "a shape is no object";
  const uint64_t shape_lines = d.lines.count("SHAPE") ? d.lines.at("SHAPE") : 0;
  EXPECT_EQ(d.report.shapes, shape_lines);
  EXPECT_EQ(shapes, shape_lines > 0);
  for (const auto& [type, count] : d.types) EXPECT_EQ(count, d.lines.at(type)) << type;
  // The program's objects and what they hold: 20 Items, each with its @name and @tags.
  const auto items = instances_of(d.graph, "Item");
  EXPECT_EQ(items.size(), 20u);
  for (ObjectId item : items) EXPECT_GE(d.graph.references(item).size(), 2u);
  EXPECT_EQ(instances_of(d.graph, "Shapeless").size(), 12u);
}

void expect_named(const VersionDump& d) {
  EXPECT_FALSE(d.report.missing_end);
  ASSERT_TRUE(d.graph.has_reference_names());
  const auto items = instances_of(d.graph, "Item");
  ASSERT_FALSE(items.empty());
  bool named_ivar = false;
  for (size_t i = 0; i < d.graph.references(items[0]).size(); ++i)
    named_ivar = named_ivar || d.graph.string(d.graph.reference_name(items[0], i)) == "@name";
  EXPECT_TRUE(named_ivar);
  bool singleton = false;  // its object's class: the singleton class, named for that object
  for (uint32_t c = 0; c < d.graph.class_count(); ++c)
    singleton = singleton || d.graph.class_name(ClassId(c)).starts_with("#<Class:#<Object:0x");
  EXPECT_TRUE(singleton);
}

// Both dumps of one Ruby read whole; memprof's names what it should; from 3.3 on both dumpers
// write the same SHAPE records.
void expect_version(const std::string& tag, bool shapes) {
  VersionDump os = load_fixture(tag + "-objectspace.json");
  expect_read_whole(os, shapes);
  VersionDump mp = load_fixture(tag + "-memprof.jsonl");
  expect_read_whole(mp, shapes);
  expect_named(mp);
  if (shapes) {
    EXPECT_EQ(mp.report.shapes, os.report.shapes);
  }
}

TEST(VersionDumps, Ruby31) {
  expect_version("ruby31", false);
}

TEST(VersionDumps, Ruby33) {
  expect_version("ruby33", true);
}

// 3.4: chilled Strings, ELTS_SHARED moved.
TEST(VersionDumps, Ruby34) {
  expect_version("ruby34", true);
}

}  // namespace
}  // namespace heapq
