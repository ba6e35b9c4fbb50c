// Real dumps of Ruby versions that cannot be installed here (tests/fixtures/foreign-dumps, gzip).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "heapq/analyze/stats.h"
#include "heapq/model/load.h"

namespace heapq {
namespace {

struct Foreign {
  HeapGraph graph;
  LoadReport report;
  std::map<std::string, uint64_t> types;
};

Foreign load_fixture(const std::string& name) {
  std::string path = std::string(HEAPQ_FIXTURES_DIR) + "/foreign-dumps/" + name + ".gz";
  auto input = open_input(path);
  EXPECT_TRUE(input.ok()) << path;
  if (!input.ok()) return {};
  Foreign f;
  auto graph = load_dump(**input, {}, f.report);
  EXPECT_TRUE(graph.ok()) << graph.error().message;
  f.graph = std::move(graph.value());
  for (const TypeTotals& t : compute_stats(f.graph).by_type)
    f.types[std::string(object_type_name(t.type))] = t.count;
  return f;
}

// The fixtures are part of the tree: a missing one is a failure, not a skipped test.
#define FIXTURE_REQUIRED(f) \
  ASSERT_GT((f).graph.object_count(), 0u) << "fixture not found under " HEAPQ_FIXTURES_DIR

TEST(ForeignDumps, Ruby2x) {
  Foreign f = load_fixture("ruby2x-heapy-diff-1.json");
  FIXTURE_REQUIRED(f);
  EXPECT_EQ(f.types["STRING"], 7292u);
  EXPECT_EQ(f.types["IMEMO"], 4439u);
  EXPECT_EQ(f.types["ARRAY"], 1148u);
  EXPECT_EQ(f.types["CLASS"], 627u);
  EXPECT_EQ(f.types["OBJECT"], 370u);
  EXPECT_EQ(f.types["DATA"], 213u);
  EXPECT_EQ(f.report.bad_lines, 0u);
  EXPECT_GT(f.graph.roots().size(), 0u);
  EXPECT_GT(f.graph.site_count(), 0u);  // it has tracing fields
}

TEST(ForeignDumps, Ruby30SingletonClasses) {
  Foreign f = load_fixture("ruby30-singleton-classes.json");
  FIXTURE_REQUIRED(f);
  EXPECT_EQ(f.types["STRING"], 2986u);
  EXPECT_EQ(f.types["IMEMO"], 2723u);
  EXPECT_EQ(f.types["CLASS"], 478u);
  EXPECT_EQ(f.types["ICLASS"], 26u);
  // Class objects count as instances of Class, not of their metaclasses.
  HeapStats s = compute_stats(f.graph);
  bool has_class = false;
  for (const ClassTotals& c : s.by_class) {
    EXPECT_EQ(f.graph.class_name(c.cls).find("#<Class:#<Class:"), std::string_view::npos)
        << f.graph.class_name(c.cls);
    has_class = has_class || f.graph.class_name(c.cls) == "Class";
    // Modules are not instantiated by the ICLASS records that include them.
    EXPECT_NE(f.graph.class_name(c.cls), "Enumerable");
    EXPECT_NE(f.graph.class_name(c.cls), "Comparable");
  }
  EXPECT_TRUE(has_class);
}

TEST(ForeignDumps, Ruby33ShapesAreNotObjects) {
  Foreign f = load_fixture("ruby33-shapes-retained.json");
  FIXTURE_REQUIRED(f);
  EXPECT_EQ(f.report.shapes, 488u);
  EXPECT_EQ(f.types["IMEMO"], 19u);
  EXPECT_EQ(f.types["STRING"], 5u);
  EXPECT_EQ(f.graph.object_count(), 19u + 5 + 2 + 1 + 1);
  EXPECT_EQ(f.report.roots, 0u);

  Foreign only = load_fixture("ruby33-shapes-only.json");
  EXPECT_GT(only.report.shapes, 0u);
  EXPECT_EQ(only.types.count("SHAPE"), 0u);
}

}  // namespace
}  // namespace heapq
