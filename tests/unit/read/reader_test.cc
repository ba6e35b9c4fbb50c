#include <gtest/gtest.h>

#include <algorithm>

#include "heapq/analyze/retainers.h"
#include "heapq/model/load.h"
#include "test_dumps.h"

namespace heapq {
namespace {

using testing::gzip;
using testing::kSmallDump;
using testing::load_text;

ObjectId find(const HeapGraph& g, uint64_t address) {
  auto id = g.find(address);
  EXPECT_TRUE(id.has_value()) << std::hex << address;
  return id.value_or(ObjectId(0));
}

TEST(Reader, LoadsObjectsReferencesAndRoots) {
  auto [graph, report] = load_text(kSmallDump);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  const HeapGraph& g = graph.value();
  EXPECT_EQ(g.object_count(), 9u);
  EXPECT_EQ(report.roots, 1u);
  EXPECT_EQ(report.bad_lines, 0u);
  EXPECT_EQ(report.format, DumpFormat::kObjectSpace);

  ObjectId foo = find(g, 0x500);
  EXPECT_EQ(g.type(foo), ObjectType::kObject);
  EXPECT_EQ(g.class_name(g.class_of(foo)), "Foo");
  EXPECT_EQ(g.memsize(foo), 40u);
  EXPECT_EQ(g.generation(foo), 7u);
  ASSERT_EQ(g.references(foo).size(), 2u);
  EXPECT_EQ(g.references(foo)[0], find(g, 0x600));
  EXPECT_EQ(g.references(foo)[1], find(g, 0x300)) << "the class edge ObjectSpace leaves out";
  const Site& site = g.site_info(g.site(foo));
  EXPECT_EQ(g.string(site.file), "app/foo.rb");
  EXPECT_EQ(site.line, 3u);
  EXPECT_EQ(g.string(site.method), "new");

  ObjectId hash = find(g, 0x600);
  EXPECT_EQ(g.references(hash).size(), 3u);  // two Strings and the class Hash
  // Two Strings allocated at one site share it.
  EXPECT_EQ(g.site(find(g, 0x700)), g.site(find(g, 0x710)));

  ASSERT_EQ(g.roots().size(), 2u);
  EXPECT_EQ(g.string(g.roots()[0].category), "vm");
  EXPECT_EQ(g.roots()[1].target, foo);
}

// memprof names the finalizers root's references for the objects the finalizers are for; a
// root record without names, and an unnamed entry, keep none.
TEST(Reader, KeepsTheNamesOfRootReferences) {
  const std::string dump =
      R"({"type":"ROOT","root":"vm","references":["0x100"]})"
      "\n"
      R"({"type":"ROOT","root":"finalizers","references":["0x200","0x100"],)"
      R"("reference_names":["finalizers of Upload 0x300",null]})"
      "\n"
      R"({"address":"0x100","type":"OBJECT","class":"0x300","references":[],"reference_names":[]})"
      "\n"
      R"({"address":"0x200","type":"ARRAY","references":[]})"
      "\n"
      R"({"address":"0x300","type":"CLASS","name":"Upload","references":[]})"
      "\n";
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  const HeapGraph& g = graph.value();
  ASSERT_EQ(g.roots().size(), 3u);
  EXPECT_FALSE(g.roots()[0].name.valid());
  EXPECT_EQ(g.string(g.roots()[1].category), "finalizers");
  EXPECT_EQ(g.string(g.roots()[1].name), "finalizers of Upload 0x300");
  EXPECT_FALSE(g.roots()[2].name.valid());
  // The shortest path to the Array says so.
  const ShortestPathTree tree = ShortestPathTree::compute(g);
  const RetentionPath path = tree.path_to(g, find(g, 0x200));
  EXPECT_EQ(g.string(path.root), "finalizers");
  EXPECT_EQ(g.string(path.root_name), "finalizers of Upload 0x300");
}

TEST(Reader, NamesClassesAndPseudoClasses) {
  auto [graph, report] = load_text(kSmallDump);
  ASSERT_TRUE(graph.ok());
  const HeapGraph& g = graph.value();
  // An IMEMO's class slot is not a class (0x8 here): it gets a label, not a dangling class.
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0x800))), "IMEMO:cref");
  // A String class record's own class is its singleton: it counts as a Class... which this
  // tiny dump lacks, so the singleton stays, named after the class it is attached to.
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0x100))), "#<Class:String>");
  // Hash's metaclass 0x210 is not in the dump.
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0x200))), "(unknown class 0x210)");
  EXPECT_EQ(report.dangling_classes, 3u);  // the classes of 0x110, Hash and Foo
}

// Objects Ruby hides (class 0: a finalizer's Array, the symbol table's Strings) are named by
// their type, never a bare "(no class)" shared by all of them.
TEST(Reader, HiddenObjectsAreNamedByTheirType) {
  std::string dump = kSmallDump;
  dump += R"({"address":"0xa00", "type":"ARRAY", "references":[], "memsize":40})"
          "\n"
          R"({"address":"0xa10", "type":"STRING", "class":"0x0", "references":[], "memsize":40})"
          "\n"
          R"({"address":"0xa20", "type":"ZOMBIE", "references":[], "memsize":40})"
          "\n";
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok());
  const HeapGraph& g = graph.value();
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0xa00))), "(hidden Array)");
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0xa10))), "(hidden String)");
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0xa20))), "(no class)");
}

// Ruby 3.1's layout of `class Foo; extend ClassMethods; include Enumerable; end`: Foo's
// singleton class has the ICLASS of ClassMethods for superclass, Foo the ICLASS of Enumerable.
TEST(Reader, ClassesThatExtendOrIncludeModulesCountAsClass) {
  std::string dump =
      R"({"address":"0x10", "type":"CLASS", "class":"0x10", "superclass":"0x30", "name":"Class", "references":[], "memsize":100})"
      "\n"
      R"({"address":"0x20", "type":"CLASS", "class":"0x10", "superclass":"0x30", "name":"Module", "references":[], "memsize":100})"
      "\n"
      R"({"address":"0x30", "type":"CLASS", "class":"0x31", "name":"Object", "references":[], "memsize":100})"
      "\n"
      R"({"address":"0x31", "type":"CLASS", "class":"0x10", "superclass":"0x10", "singleton":true, "references":[], "memsize":100})"
      "\n"
      R"({"address":"0x40", "type":"MODULE", "class":"0x20", "name":"Enumerable", "references":[], "memsize":100})"
      "\n"
      R"({"address":"0x50", "type":"MODULE", "class":"0x20", "name":"Foo::ClassMethods", "references":[], "memsize":100})"
      "\n"
      R"({"address":"0x60", "type":"CLASS", "class":"0x61", "superclass":"0x63", "name":"Foo", "references":["0x63"], "memsize":100})"
      "\n"
      R"({"address":"0x61", "type":"CLASS", "class":"0x10", "superclass":"0x62", "singleton":true, "references":["0x62"], "memsize":100})"
      "\n"
      R"({"address":"0x62", "type":"ICLASS", "class":"0x50", "superclass":"0x31", "references":["0x31"], "memsize":40})"
      "\n"
      R"({"address":"0x63", "type":"ICLASS", "class":"0x40", "superclass":"0x30", "references":["0x30"], "memsize":40})"
      "\n"
      R"({"address":"0x70", "type":"OBJECT", "class":"0x60", "references":[], "memsize":40})"
      "\n";
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  const HeapGraph& g = graph.value();
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0x60))), "Class");
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0x30))), "Class");
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0x40))), "Module");
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0x70))), "Foo");
  for (uint64_t iclass : {0x62, 0x63}) {
    ObjectId o = find(g, iclass);
    EXPECT_EQ(g.class_name(g.class_of(o)), "ICLASS");
    // The module stays referenced: the ICLASS keeps it alive.
    auto refs = g.references(o);
    EXPECT_NE(std::find(refs.begin(), refs.end(), find(g, iclass == 0x62 ? 0x50 : 0x40)),
              refs.end());
  }
  EXPECT_EQ(report.dangling_classes, 0u);
}

// ObjectSpace.trace_object_allocations_start's tracer is a DATA object of class Object, often
// the biggest single object of a traced dump: it is the profiler's, and says so.
TEST(Reader, TheAllocationTracerIsProfilerOverhead) {
  std::string dump =
      std::string(kSmallDump) +
      R"({"address":"0x900", "type":"DATA", "class":"0x300", "struct":"ObjectTracing/allocation_info_tracer", "references":[], "memsize":16777216})"
      "\n" +
      R"({"address":"0x910", "type":"DATA", "class":"0x300", "struct":"other", "references":[], "memsize":40})"
      "\n";
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  const HeapGraph& g = graph.value();
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0x900))),
            "ObjectTracing/allocation_info_tracer (profiler overhead)");
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0x910))), "Foo");
  ASSERT_EQ(g.references(find(g, 0x900)).size(), 1u);  // its class edge stays
  EXPECT_EQ(g.references(find(g, 0x900))[0], find(g, 0x300));
}

// memprof's tracker is a DATA object Ruby hides (no class): the profiler's all the same.
TEST(Reader, MemprofsHiddenTrackerIsProfilerOverhead) {
  std::string dump =
      std::string(kSmallDump) +
      R"({"address":"0x900", "type":"DATA", "struct":"memprof/tracker", "references":[], "memsize":1048576})"
      "\n" +
      R"({"address":"0x910", "type":"DATA", "struct":"other", "references":[], "memsize":40})"
      "\n";
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  const HeapGraph& g = graph.value();
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0x900))), "memprof/tracker (profiler overhead)");
  EXPECT_TRUE(g.class_info(g.class_of(find(g, 0x900))).profiler);
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0x910))), "(hidden Data)");
  EXPECT_FALSE(g.class_info(g.class_of(find(g, 0x910))).profiler);
}

TEST(Reader, CountsDanglingReferencesAndDuplicates) {
  std::string dump = kSmallDump;
  dump +=
      R"J({"address":"0x900", "type":"ARRAY", "class":"0x200", "references":["0xdead", "0x700"], "memsize":40})J"
      "\n";
  dump += R"J({"address":"0x700", "type":"STRING", "class":"0x100", "memsize":40})J"
          "\n";
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(report.dangling_references, 1u);
  EXPECT_EQ(report.duplicate_addresses, 1u);
  EXPECT_EQ(report.bad_lines, 1u);  // the second record of 0x700
  const HeapGraph& g = graph.value();
  EXPECT_EQ(g.object_count(), 10u);
  ObjectId array = find(g, 0x900);
  ASSERT_EQ(g.references(array).size(), 2u);       // 0x700 and its class
  EXPECT_EQ(g.references(array)[0], ObjectId(6));  // the first record of 0x700 is the object
}

// Per-object fields take as few bytes as most objects need: a memsize of 4 GB or more is kept
// aside, and a dump without allocation tracing keeps no sites or generations at all. Chunks
// of one line each: sites and generations first appear in a later chunk.
TEST(Reader, FieldsKeepTheirValuesInFewerBytes) {
  const std::string dump =
      R"J({"address":"0x100", "type":"CLASS", "name":"String", "memsize":5000000000})J"
      "\n"
      R"J({"address":"0x200", "type":"STRING", "class":"0x100", "memsize":4294967295})J"
      "\n"
      R"J({"address":"0x300", "type":"STRING", "class":"0x100", "memsize":40, "file":"a.rb", "line":3, "generation":7})J"
      "\n"
      R"J({"address":"0x400", "type":"STRING", "class":"0x100", "memsize":4294967294})J"
      "\n";
  for (size_t chunk : {size_t(1), size_t(1) << 20}) {
    LoadOptions o;
    o.chunk_bytes = chunk;
    o.threads = 2;
    auto [graph, report] = load_text(dump, o);
    ASSERT_TRUE(graph.ok()) << graph.error().message;
    const HeapGraph& g = graph.value();
    EXPECT_EQ(g.memsize(find(g, 0x100)), 5000000000u);
    EXPECT_EQ(g.memsize(find(g, 0x200)), 4294967295u);
    EXPECT_EQ(g.memsize(find(g, 0x400)), 4294967294u);
    EXPECT_FALSE(g.site(find(g, 0x200)).valid());
    EXPECT_EQ(g.generation(find(g, 0x200)), 0u);
    ASSERT_TRUE(g.site(find(g, 0x300)).valid());
    EXPECT_EQ(g.site_info(g.site(find(g, 0x300))).line, 3u);
    EXPECT_EQ(g.generation(find(g, 0x300)), 7u);
    EXPECT_FALSE(g.site(find(g, 0x400)).valid());
  }
  // Without tracing: no object has a site or a generation.
  std::string untraced = dump;
  const std::string tracing = R"J(, "file":"a.rb", "line":3, "generation":7)J";
  untraced.erase(untraced.find(tracing), tracing.size());
  auto [plain, report] = load_text(untraced);
  ASSERT_TRUE(plain.ok());
  for (uint32_t o = 0; o < plain.value().object_count(); ++o) {
    EXPECT_FALSE(plain.value().site(ObjectId(o)).valid());
    EXPECT_EQ(plain.value().generation(ObjectId(o)), 0u);
  }
  EXPECT_EQ(plain.value().memsize(find(plain.value(), 0x300)), 40u);
}

// References wait as addresses until every object is read, a block per chunk, and are
// resolved a few blocks at a time: however the input is cut and however many threads read
// it, every object ends with the same references, names and class edges. Names first appear
// in a later chunk; a reference dangles; an ICLASS's class slot is not a class.
TEST(Reader, ReferencesAreTheSameHoweverTheInputIsCut) {
  const std::string dump =
      R"J({"type":"META", "format":"memprof", "version":1})J"
      "\n"
      R"J({"address":"0x100", "type":"CLASS", "name":"Thing", "class":"0x110"})J"
      "\n"
      R"J({"address":"0x110", "type":"CLASS", "name":"#<Class:Thing>", "references":["0x100"]})J"
      "\n"
      R"J({"address":"0x200", "type":"OBJECT", "class":"0x100", "references":["0x300", "0x999", "0x300"]})J"
      "\n"
      R"J({"address":"0x300", "type":"STRING", "class":"0x100"})J"
      "\n"
      R"J({"address":"0x400", "type":"OBJECT", "class":"0x100", "references":["0x100", "0x200", "0x300"], "reference_names":["(class)", "@a", null]})J"
      "\n"
      R"J({"address":"0x500", "type":"ICLASS", "class":"0x100", "references":["0x400", "0x400"], "reference_names":["@x", "@y"]})J"
      "\n"
      R"J({"type":"END", "records":7})J"
      "\n";
  // Each object's references as "target-address name" strings, its class edge marked.
  auto edges = [](const HeapGraph& g) {
    std::vector<std::string> out;
    for (uint32_t o = 0; o < g.object_count(); ++o) {
      std::string line = std::to_string(g.address(ObjectId(o))) + ":";
      size_t i = 0;
      for (ObjectId to : g.references(ObjectId(o))) {
        const StringId name = g.reference_name(ObjectId(o), i++);
        line += " " + std::to_string(g.address(to)) + "/" +
                (name.valid() ? std::string(g.string(name)) : "-");
      }
      if (g.added_class_edge(ObjectId(o))) line += " +class";
      out.push_back(line);
    }
    return out;
  };
  // As memprof's, and as ObjectSpace's (no META: heapq adds the class edges it leaves out).
  const std::string objectspace = dump.substr(dump.find('\n') + 1);
  for (bool memprof : {true, false}) {
    const std::string& text = memprof ? dump : objectspace;
    auto [whole, report] = load_text(text);
    ASSERT_TRUE(whole.ok()) << whole.error().message;
    EXPECT_EQ(report.dangling_references, 1u);
    const std::vector<std::string> expected = edges(whole.value());
    const std::string class_edge = memprof ? "" : " " + std::to_string(0x100) + "/- +class";
    EXPECT_EQ(expected[2], std::to_string(0x200) + ": " + std::to_string(0x300) + "/-" + class_edge)
        << "the dangling reference dropped, the repeated one kept once";
    EXPECT_EQ(expected[4], std::to_string(0x400) + ": " + std::to_string(0x100) + "/(class) " +
                               std::to_string(0x200) + "/@a " + std::to_string(0x300) + "/-");
    for (size_t chunk : {size_t(1), size_t(64), size_t(300)}) {
      for (unsigned threads : {1u, 2u, 3u}) {
        LoadOptions o;
        o.chunk_bytes = chunk;
        o.threads = threads;
        auto [graph, r] = load_text(text, o);
        ASSERT_TRUE(graph.ok()) << graph.error().message;
        EXPECT_EQ(edges(graph.value()), expected)
            << "chunks of " << chunk << ", " << threads << " threads";
        EXPECT_EQ(r.dangling_references, 1u);
      }
    }
  }
}

TEST(Reader, SkipsNoneSlotsAndCountsShapes) {
  std::string dump = kSmallDump;
  dump += R"J({"address":"0xa00", "type":"NONE"})J"
          "\n";
  dump +=
      R"J({"address":"0xb00", "type":"SHAPE", "id":1, "parent_id":0, "depth":1, "memsize":120})J"
      "\n";
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(graph.value().object_count(), 9u);
  EXPECT_EQ(report.shapes, 1u);
  EXPECT_EQ(report.skipped_records, 1u);
}

// Every kind of broken line: skipped and counted by default, an error naming the line in
// strict mode.
struct BrokenCase {
  const char* name;
  std::string line;
  const char* message;  // part of the expected message
};

class BrokenInput : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenInput, SkippedByDefaultAndFatalWhenStrict) {
  const BrokenCase& c = GetParam();
  std::string dump = std::string(kSmallDump) + c.line + "\n" +
                     R"J({"address":"0xc00", "type":"STRING", "class":"0x100", "memsize":40})J"
                     "\n";
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  EXPECT_GE(report.bad_lines, 1u);
  ASSERT_FALSE(report.first_bad_lines.empty());
  EXPECT_EQ(report.first_bad_lines[0].line, 11u);
  EXPECT_NE(report.first_bad_lines[0].message.find(c.message), std::string::npos)
      << report.first_bad_lines[0].message;
  EXPECT_TRUE(graph.value().find(0xc00).has_value()) << "the line after a bad one is read";
  EXPECT_FALSE(graph.value().find(0x900).has_value()) << "a bad line is wholly skipped";

  LoadOptions strict;
  strict.strict = true;
  auto [failed, ignored] = load_text(dump, strict);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ExitCode::kBadInput);
  EXPECT_EQ(failed.error().message.rfind("dump.json:11: ", 0), 0u) << failed.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, BrokenInput,
    ::testing::Values(
        BrokenCase{"BadJson", R"J({"address":"0x900", "type":"STRING" "memsize":40})J",
                   "invalid JSON"},
        BrokenCase{"NotAnObject", R"J([1, 2, 3])J", "must be a JSON object"},
        BrokenCase{"NoAddress", R"J({"type":"STRING", "memsize":40})J", "no \"address\""},
        BrokenCase{"BadAddress", R"J({"address":"zz", "type":"STRING"})J", "not a hex address"},
        BrokenCase{"BadReference", R"J({"address":"0x900", "type":"ARRAY", "references":[12]})J",
                   "not an address"},
        BrokenCase{"NegativeMemsize", R"J({"address":"0x900", "type":"ARRAY", "memsize":-4})J",
                   "negative"},
        // Ruby 3.1 writes eval'd file names raw: a quote, then a newline, inside the string.
        BrokenCase{"RawNewlineInString",
                   "{\"address\":\"0x900\", \"type\":\"STRING\", \"file\":\"we\\\"ird\npath.rb\", "
                   "\"line\":1}",
                   "invalid JSON"},
        BrokenCase{"ControlCharacter",
                   "{\"address\":\"0x900\", \"type\":\"STRING\", \"value\":\"a\tb\"}",
                   "invalid JSON"},
        // Junk after a complete record: the record is not kept either.
        BrokenCase{"TrailingComma",
                   R"J({"address":"0x900", "type":"ARRAY", "references":["0x700"]},)J",
                   "invalid JSON"},
        BrokenCase{
            "SecondRecord",
            R"J({"address":"0x900", "type":"ARRAY", "references":["0x700"]} {"address":"0x910", "type":"ARRAY"})J",
            "invalid JSON"},
        BrokenCase{"TrailingText",
                   R"J({"address":"0x900", "type":"ARRAY", "references":["0x700"]} and more)J",
                   "invalid JSON"},
        BrokenCase{"NulByte",
                   std::string(R"J({"address":"0x900", "type":"ARRAY", "references":["0x700"]})J") +
                       '\0' + "junk",
                   "NUL byte"}),
    [](const ::testing::TestParamInfo<BrokenCase>& info) { return std::string(info.param.name); });

TEST(Reader, JunkAfterARecordLeavesTheNextRecordsReferencesAlone) {
  std::string dump =
      std::string(kSmallDump) +
      R"J({"address":"0x900", "type":"ARRAY", "class":"0x100", "references":["0x700", "0x710"]}, "x")J"
      "\n" +
      R"J({"address":"0xc00", "type":"ARRAY", "class":"0x100", "references":["0x600"]})J"
      "\n";
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  const HeapGraph& g = graph.value();
  EXPECT_EQ(report.bad_lines, 1u);
  EXPECT_EQ(g.object_count(), 10u);
  ObjectId next = find(g, 0xc00);
  ASSERT_EQ(g.references(next).size(), 2u);  // the Hash and its class edge
  EXPECT_EQ(g.references(next)[0], find(g, 0x600));
}

// rapidjson recurses per level of nesting: a record nested 120k deep overflowed the stack.
TEST(Reader, DeeplyNestedValuesAreABadLineNotACrash) {
  const size_t kDepth = 200'000;
  std::string deep = R"({"address":"0x900", "type":"OBJECT", "x":)" + std::string(kDepth, '[') +
                     std::string(kDepth, ']') + "}";
  std::string objects = R"({"address":"0x910", "type":"OBJECT", "x":)" + [&] {
    std::string s;
    for (size_t i = 0; i < kDepth; ++i) s += "{\"a\":";
    return s + "1" + std::string(kDepth, '}');
  }() + "}";
  auto [graph, report] = load_text(std::string(kSmallDump) + deep + "\n" + objects + "\n");
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  EXPECT_EQ(report.bad_lines, 2u);
  ASSERT_FALSE(report.first_bad_lines.empty());
  EXPECT_NE(report.first_bad_lines[0].message.find("nested"), std::string::npos)
      << report.first_bad_lines[0].message;
}

// One record far longer than a read (a Hash of many entries) among ordinary ones: the buffer
// that grew to hold it is let go, and the records after it read as before.
TEST(Reader, ARecordLongerThanManyReadsAmongOrdinaryOnes) {
  std::string dump = kSmallDump;
  std::string hash = R"({"address":"0xa000", "type":"HASH", "class":"0x100", "references":[)";
  for (int i = 0; i < 20'000; ++i) hash += std::string(i ? ", " : "") + "\"0x700\"";
  hash += R"(], "memsize":40})"
          "\n";
  std::string after;
  for (int i = 0; i < 200; ++i)
    after += R"({"address":"0x)" + std::to_string(100000 + i) +
             R"(", "type":"STRING", "class":"0x100", "memsize":40})"
             "\n";
  for (unsigned threads : {1u, 2u}) {
    LoadOptions o;
    o.chunk_bytes = 1024;
    o.threads = threads;
    std::string last = hash;  // and one more, the last line
    last.replace(last.find("0xa000"), 6, "0xb000");
    auto [graph, report] = load_text(dump + hash + after + last, o);
    ASSERT_TRUE(graph.ok()) << graph.error().message;
    EXPECT_EQ(report.bad_lines, 0u);
    const HeapGraph& g = graph.value();
    EXPECT_EQ(g.references(find(g, 0xa000)).size(), 2u);  // 0x700 (marked 20,000 times), class
    EXPECT_EQ(g.references(find(g, 0xb000)).size(), 2u);
    for (int i = 0; i < 200; ++i)
      EXPECT_TRUE(g.find(std::stoull(std::to_string(100000 + i), nullptr, 16)).has_value()) << i;
  }
}

// Bytes without a newline (a gzip bomb of zeros) must not be buffered: a line that does not
// start like a record is skipped unread, a record line longer than the cap is an error.
TEST(Reader, LinesWithoutEndAreSkippedUnreadOrRefused) {
  LoadOptions small;
  small.chunk_bytes = 4096;
  small.max_line_bytes = 1 << 20;
  const std::string zeros(8 << 20, '\0');
  const std::string after = R"({"address":"0xc00", "type":"STRING", "class":"0x100", "memsize":40})"
                            "\n";
  for (const std::string& junk :
       {zeros, std::string(3 << 20, 'x'), "   " + std::string(3 << 20, '0')}) {
    auto [graph, report] = load_text(std::string(kSmallDump) + junk + "\n" + after + junk, small);
    ASSERT_TRUE(graph.ok()) << graph.error().message;
    EXPECT_TRUE(graph.value().find(0xc00).has_value());
    EXPECT_EQ(report.bad_lines, 2u);
    EXPECT_EQ(report.lines, 13u);
    ASSERT_EQ(report.first_bad_lines.size(), 2u);
    EXPECT_EQ(report.first_bad_lines[0].line, 11u);
    EXPECT_EQ(report.first_bad_lines[1].line, 13u);
    EXPECT_NE(report.first_bad_lines[0].message.find("skipped unread"), std::string::npos);
  }
  // Blanks are no record and no trouble, however many.
  auto [blank, blank_report] =
      load_text(std::string(kSmallDump) + std::string(3 << 20, ' ') + "\n" + after, small);
  ASSERT_TRUE(blank.ok());
  EXPECT_EQ(blank_report.bad_lines, 0u);

  std::string huge =
      R"({"address":"0x900", "type":"STRING", "value":")" + std::string(2 << 20, 'a') + "\"}\n";
  auto [refused, ignored] = load_text(std::string(kSmallDump) + after + huge + after, small);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ExitCode::kBadInput);
  EXPECT_EQ(refused.error().message,
            "dump.json:12: a line longer than 1048576 bytes (see --max-line)");
  // A line skipped unread in the same read still counts before it.
  auto [after_junk, unused] = load_text(
      std::string(kSmallDump) + after + std::string(3 << 20, 'x') + "\n" + huge + after, small);
  ASSERT_FALSE(after_junk.ok());
  EXPECT_EQ(after_junk.error().message,
            "dump.json:13: a line longer than 1048576 bytes (see --max-line)");
  small.max_line_bytes = 4 << 20;
  auto [taken, taken_report] = load_text(std::string(kSmallDump) + after + huge + after, small);
  EXPECT_TRUE(taken.ok());
}

TEST(Reader, RawInvalidUtf8IsRepairedByDefaultAndFatalWhenStrict) {
  std::string dump = std::string(kSmallDump) +
                     "{\"address\":\"0x900\", \"type\":\"STRING\", \"class\":\"0x100\", "
                     "\"file\":\"we\xffird.rb\", \"line\":2, \"memsize\":40}\n";
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(report.repaired_strings, 1u);
  ASSERT_EQ(report.first_repaired_strings.size(), 1u);
  EXPECT_EQ(report.first_repaired_strings[0].line, 11u);
  const HeapGraph& g = graph.value();
  ObjectId s = find(g, 0x900);  // the object is kept: only its file name was damaged
  EXPECT_EQ(g.string(g.site_info(g.site(s)).file), "we\xEF\xBF\xBDird.rb");

  LoadOptions strict;
  strict.strict = true;
  auto [failed, ignored] = load_text(dump, strict);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message.rfind("dump.json:11: ", 0), 0u) << failed.error().message;
}

TEST(Reader, TruncatedLastLine) {
  std::string dump = std::string(kSmallDump) + R"J({"address":"0x900", "type":"STRI)J";
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(report.bad_lines, 1u);
  EXPECT_EQ(report.first_bad_lines.at(0).line, 11u);
  LoadOptions strict;
  strict.strict = true;
  auto [failed, ignored] = load_text(dump, strict);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message.rfind("dump.json:11: ", 0), 0u);
}

TEST(Reader, ReadsGzipIncludingConcatenatedMembers) {
  std::string text = kSmallDump;
  size_t half = text.find('\n', text.size() / 2) + 1;
  auto [graph, report] = load_text(gzip(text.substr(0, half)) + gzip(text.substr(half)));
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  EXPECT_EQ(graph.value().object_count(), 9u);
  EXPECT_TRUE(report.damage.empty());
}

TEST(Reader, TruncatedGzipIsReportedOrFatalWhenStrict) {
  std::string big;
  for (int i = 0; i < 2000; ++i) {
    char line[128];
    std::snprintf(line, sizeof line,
                  R"J({"address":"0x%x", "type":"STRING", "memsize":40})J"
                  "\n",
                  0x10000 + i * 0x28);
    big += line;
  }
  std::string text = std::string(kSmallDump) + big;
  std::string gz = gzip(text);
  gz.resize(gz.size() / 2);
  auto [graph, report] = load_text(gz);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  EXPECT_NE(report.damage.find("truncated gzip"), std::string::npos) << report.damage;
  EXPECT_GE(graph.value().object_count(), 9u);

  LoadOptions strict;
  strict.strict = true;
  auto [failed, ignored] = load_text(gz, strict);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("truncated gzip"), std::string::npos);
}

// Ruby marks a Thread's fiber-local values twice, and a dump lists each marking: the graph keeps
// one reference per object referenced (and name, where the dump names them), in order, for
// short and long lists alike.
TEST(Reader, AReferenceRepeatedIsOneReference) {
  std::string refs, many;
  for (int i = 0; i < 100; ++i)
    many += std::string(i ? ", " : "") + (i % 2 ? "\"0x700\"" : "\"0x710\"");
  auto [graph, report] = load_text(
      R"({"type":"ROOT", "root":"vm", "references":["0x500", "0x500", "0x600"]})"
      "\n"
      R"({"address":"0x500", "type":"DATA", "references":["0x700", "0x710", "0x700", "0x710", "0x700"], "memsize":40})"
      "\n"
      R"({"address":"0x600", "type":"ARRAY", "references":[)" +
      many +
      R"(], "memsize":40})"
      "\n"
      R"({"address":"0x700", "type":"STRING", "references":[], "memsize":40})"
      "\n"
      R"({"address":"0x710", "type":"STRING", "references":[], "memsize":40})"
      "\n");
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  const HeapGraph& g = graph.value();
  const std::vector<ObjectId> both = {find(g, 0x700), find(g, 0x710)};
  auto refs_of = [&](uint64_t a) {
    const auto r = g.references(find(g, a));
    return std::vector<ObjectId>(r.begin(), r.end());
  };
  EXPECT_EQ(refs_of(0x500), both);
  EXPECT_EQ(refs_of(0x600), (std::vector<ObjectId>{both[1], both[0]}));
  EXPECT_EQ(report.dangling_references, 0u);

  // Named: the same object under two names is two references; under one name, one.
  auto [named, named_report] = load_text(
      R"({"type":"META", "format":"memprof", "version":1})"
      "\n"
      R"({"type":"ROOT", "root":"vm", "references":["0x500"]})"
      "\n"
      R"({"address":"0x500", "type":"OBJECT", "references":["0x700", "0x700", "0x700"], "reference_names":["@a", "@b", "@a"], "memsize":40})"
      "\n"
      R"({"address":"0x700", "type":"STRING", "references":[], "memsize":40})"
      "\n");
  ASSERT_TRUE(named.ok()) << named.error().message;
  const HeapGraph& n = named.value();
  ASSERT_EQ(n.references(find(n, 0x500)).size(), 2u);
  EXPECT_EQ(n.string(n.reference_name(find(n, 0x500), 0)), "@a");
  EXPECT_EQ(n.string(n.reference_name(find(n, 0x500), 1)), "@b");
}

TEST(Reader, MemprofDumpWithNamesMetaAndEnd) {
  std::string dump =
      R"J({"type":"META", "format":"memprof", "version":1, "ruby_version":"3.1.7", "pid":1})J"
      "\n"
      R"J({"type":"ROOT", "root":"global_tbl", "references":["0x500"], "reference_names":["$store"]})J"
      "\n"
      R"J({"address":"0x300", "type":"CLASS", "class":"0x310", "name":"Foo", "references":["0x310"], "reference_names":["(class)"], "memsize":600})J"
      "\n"
      R"J({"address":"0x500", "type":"OBJECT", "class":"0x300", "class_name":"Foo", "references":["0x300", "0x600"], "reference_names":["(class)", "@items"], "memsize":40})J"
      "\n"
      R"J({"address":"0x600", "type":"ARRAY", "class":"0x400", "class_name":"Array", "references":[], "memsize":40})J"
      "\n"
      R"J({"type":"END", "records":5})J"
      "\n";
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  EXPECT_EQ(report.format, DumpFormat::kMemprof);
  EXPECT_FALSE(report.missing_end);
  EXPECT_EQ(report.end_records, 5);
  const HeapGraph& g = graph.value();
  ASSERT_TRUE(g.has_reference_names());
  ObjectId foo = find(g, 0x500);
  ASSERT_EQ(g.references(foo).size(), 2u);
  EXPECT_EQ(g.string(g.reference_name(foo, 1)), "@items");
  // class_name names a class the dump lacks a record for.
  EXPECT_EQ(g.class_name(g.class_of(find(g, 0x600))), "Array");
  // 0x310 is not in the dump: Foo's class edge dangles, its name edge does not.
  EXPECT_EQ(g.references(find(g, 0x300)).size(), 0u);
}

// META "unnamed": the kinds of references the dumper could not name on that Ruby, as written.
TEST(Reader, MemprofMetaSaysWhatTheDumperCouldNotName) {
  const std::string rest =
      R"J({"type":"ROOT", "root":"vm", "references":["0x500"]})J"
      "\n"
      R"J({"address":"0x500", "type":"OBJECT", "references":[], "memsize":40})J"
      "\n";
  auto [graph, report] = load_text(
      R"J({"type":"META", "format":"memprof", "version":1, "unnamed":["constants", "hash\u001bdefaults"]})J"
      "\n" +
      rest);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  EXPECT_EQ(report.origin.unnamed, (std::vector<std::string>{"constants",
                                                             "hash\x1b"
                                                             "defaults"}));
  EXPECT_EQ(report.bad_lines, 0u);
  auto [all, all_report] = load_text(R"J({"type":"META", "format":"memprof", "version":1})J"
                                     "\n" +
                                     rest);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_TRUE(all_report.origin.unnamed.empty());
  // Not a list of strings: the META line is bad, the dump still read.
  auto [bad, bad_report] =
      load_text(R"J({"type":"META", "format":"memprof", "version":1, "unnamed":"constants"})J"
                "\n" +
                rest);
  ASSERT_TRUE(bad.ok()) << bad.error().message;
  EXPECT_EQ(bad_report.bad_lines, 1u);
  EXPECT_TRUE(bad_report.origin.unnamed.empty());
}

// memprof's allocation stacks: FRAME and STACK records after the objects; an object names
// its stack by id. Frames of gems are skipped for the app frame; chunking changes nothing.
TEST(Reader, MemprofStacksGiveEachObjectItsFramesAndAppLine) {
  std::string dump =
      R"J({"type":"META", "format":"memprof", "version":1})J"
      "\n"
      R"J({"address":"0x500", "type":"STRING", "file":"/g/gems/rack-2.2/lib/rack.rb", "line":9, "method":"call", "stack":2, "memsize":40})J"
      "\n"
      R"J({"address":"0x510", "type":"STRING", "file":"/app/shop.rb", "line":3, "method":"buy", "stack":1, "memsize":40})J"
      "\n"
      R"J({"address":"0x520", "type":"STRING", "file":"/app/shop.rb", "line":3, "frames":[2], "memsize":40})J"
      "\n"
      R"J({"address":"0x530", "type":"STRING", "file":"/app/shop.rb", "line":3, "stack":77, "memsize":40})J"
      "\n"
      R"J({"type":"FRAME", "id":1, "file":"/app/shop.rb", "line":3, "method":"buy"})J"
      "\n"
      R"J({"type":"FRAME", "id":2, "file":"/g/gems/rack-2.2/lib/rack.rb", "line":9, "method":"call"})J"
      "\n"
      R"J({"type":"FRAME", "id":3, "file":"/app/app.rb", "line":12, "method":"serve"})J"
      "\n"
      R"J({"type":"STACK", "id":1, "frames":[1, 3]})J"
      "\n"
      R"J({"type":"STACK", "id":2, "frames":[2, 99, 3, 1]})J"
      "\n"
      R"J({"type":"STACK", "id":3, "frames":["x"]})J"
      "\n"
      R"J({"type":"FRAME", "line":4})J"
      "\n"
      R"J({"type":"END", "records":11})J"
      "\n";
  auto where = [](const HeapGraph& g, SiteId s) {
    if (!s.valid()) return std::string("none");
    const Site& site = g.site_info(s);
    return std::string(g.string(site.file)) + ":" + std::to_string(site.line) + " " +
           std::string(g.string(site.method));
  };
  auto [base, report] = load_text(dump);
  ASSERT_TRUE(base.ok()) << base.error().message;
  EXPECT_EQ(report.bad_lines, 2u) << "a frame id that is not a number; a FRAME without its id";
  for (size_t chunk : {size_t(1), size_t(64), size_t(4096)}) {
    LoadOptions o;
    o.chunk_bytes = chunk;
    o.threads = 2;
    auto [graph, ignored] = load_text(dump, o);
    ASSERT_TRUE(graph.ok());
    const HeapGraph& g = graph.value();
    ASSERT_TRUE(g.has_stacks());
    ObjectId gem_string = find(g, 0x500), app_string = find(g, 0x510);
    auto stack = g.stack(gem_string);
    ASSERT_EQ(stack.size(), 3u) << "frame 99 is defined nowhere";
    EXPECT_EQ(where(g, stack[0]), "/g/gems/rack-2.2/lib/rack.rb:9 call");
    EXPECT_EQ(where(g, stack[1]), "/app/app.rb:12 serve");
    EXPECT_EQ(where(g, stack[2]), "/app/shop.rb:3 buy");
    EXPECT_EQ(where(g, g.app_site(gem_string)), "/app/app.rb:12 serve");
    EXPECT_EQ(stack[0], g.site(gem_string)) << "the innermost frame is the allocation site";
    EXPECT_EQ(where(g, g.app_site(app_string)), "/app/shop.rb:3 buy");
    EXPECT_EQ(g.stack(app_string).size(), 2u) << "an object's \"frames\" is no STACK's";
    EXPECT_TRUE(g.stack(find(g, 0x520)).empty());
    EXPECT_FALSE(g.app_site(find(g, 0x520)).valid());
    EXPECT_TRUE(g.stack(find(g, 0x530)).empty()) << "stack 77 is defined nowhere";
  }
  auto [plain, r2] = load_text(kSmallDump);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain.value().has_stacks());
  EXPECT_FALSE(plain.value().app_site(ObjectId(0)).valid());
}

TEST(Reader, MemprofDumpWithoutEndIsTruncated) {
  std::string dump = R"J({"type":"META", "format":"memprof", "version":1})J"
                     "\n"
                     R"J({"address":"0x600", "type":"ARRAY", "memsize":40})J"
                     "\n";
  auto [graph, report] = load_text(dump);
  ASSERT_TRUE(graph.ok());
  EXPECT_TRUE(report.missing_end);
  LoadOptions strict;
  strict.strict = true;
  auto [failed, ignored] = load_text(dump, strict);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("END"), std::string::npos);
}

TEST(Reader, NoObjectsIsAnError) {
  auto [graph, report] = load_text("hello\nworld\n");
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.error().code, ExitCode::kBadInput);
  EXPECT_NE(graph.error().message.find("dump.json:1:"), std::string::npos) << graph.error().message;
  auto [empty, r2] = load_text("");
  ASSERT_FALSE(empty.ok());
}

// Chunk size and thread count change how the work is split, never the answer.
TEST(Reader, SameGraphWhateverTheChunkingAndThreads) {
  std::string dump = kSmallDump;
  std::string long_refs;
  for (int i = 0; i < 5000; ++i) long_refs += std::string(i ? ", " : "") + "\"0x700\"";
  dump += R"J({"address":"0xd00", "type":"ARRAY", "class":"0x200", "references":[)J" + long_refs +
          R"J(], "memsize":40})J"
          "\n";
  dump += R"J({"address":"0xd10", "type":"STRING", "class":"0x100", "memsize":40})J";  // no final
                                                                                       // newline
  auto [base, base_report] = load_text(dump);
  ASSERT_TRUE(base.ok());
  for (size_t chunk : {size_t(1), size_t(7), size_t(64), size_t(4096)}) {
    for (unsigned threads : {1u, 3u}) {
      LoadOptions o;
      o.chunk_bytes = chunk;
      o.threads = threads;
      auto [graph, report] = load_text(dump, o);
      ASSERT_TRUE(graph.ok());
      const HeapGraph& a = base.value();
      const HeapGraph& b = graph.value();
      ASSERT_EQ(a.object_count(), b.object_count()) << chunk << " " << threads;
      EXPECT_EQ(a.edge_count(), b.edge_count());
      EXPECT_EQ(report.lines, base_report.lines);
      for (uint32_t i = 0; i < a.object_count(); ++i) {
        ObjectId o(i);
        EXPECT_EQ(a.address(o), b.address(o));
        EXPECT_EQ(a.class_name(a.class_of(o)), b.class_name(b.class_of(o)));
        EXPECT_EQ(a.references(o).size(), b.references(o).size());
      }
    }
  }
}

}  // namespace
}  // namespace heapq

namespace heapq {
namespace {

// heap-profiler fails on a 21.6 MB line at its default batch size; a line has no fixed limit.
TEST(Reader, LinesLongerThanManyChunks) {
  std::string refs;
  const int kRefs = 2'500'000;  // about 22.5 MB of references
  refs.reserve(kRefs * 9);
  char buf[32];
  for (int i = 0; i < kRefs; ++i) {
    // The same String but the last: repeats are one reference, the last one proves the line
    // was read to its end.
    std::snprintf(buf, sizeof buf, "%s\"0x%x\"", i ? ", " : "", i + 1 < kRefs ? 0x700 : 0x710);
    refs += buf;
  }
  std::string dump = std::string(testing::kSmallDump) +
                     R"J({"address":"0xe00", "type":"HASH", "class":"0x200", "references":[)J" +
                     refs + "]}\n";
  ASSERT_GT(dump.size(), 21'600'000u);
  LoadOptions o;
  o.chunk_bytes = 1 << 20;
  auto [graph, report] = testing::load_text(dump, o);
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(report.bad_lines, 0u);
  EXPECT_EQ(graph.value().references(*graph.value().find(0xe00)).size(), 3u);  // + class
}

}  // namespace
}  // namespace heapq
