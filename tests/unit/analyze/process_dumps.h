// Dumps of one process over time, made from text, for the tests of matching, leaks and diff.
#pragma once

#include <string>
#include <vector>

#include "heapq/model/heap_graph.h"
#include "test_dumps.h"

namespace heapq::testing {

inline HeapGraph load(const std::string& text) {
  auto loaded = load_text(text);
  EXPECT_TRUE(loaded.graph.ok()) << (loaded.graph.ok() ? "" : loaded.graph.error().message);
  return std::move(loaded.graph.value());
}

inline ObjectId id(const HeapGraph& g, uint64_t address) {
  return g.find(address).value();
}

// Classes: 0x10 Cache, 0x20 Hash, 0x30 Item, 0x40 Array, 0x50 Session, 0x60 String.
inline const std::string kClasses =
    R"({"address":"0x10", "type":"CLASS", "name":"Cache", "references":[], "memsize":0})"
    "\n"
    R"({"address":"0x20", "type":"CLASS", "name":"Hash", "references":[], "memsize":0})"
    "\n"
    R"({"address":"0x30", "type":"CLASS", "name":"Item", "references":[], "memsize":0})"
    "\n"
    R"({"address":"0x40", "type":"CLASS", "name":"Array", "references":[], "memsize":0})"
    "\n"
    R"({"address":"0x50", "type":"CLASS", "name":"Session", "references":[], "memsize":0})"
    "\n"
    R"({"address":"0x60", "type":"CLASS", "name":"String", "references":[], "memsize":0})"
    "\n";

// The classes held by a root, as a program's constants hold them: no class is then part of
// what one of its instances holds.
inline const std::string kClassRoots = root("global_tbl", {0x10, 0x20, 0x30, 0x40, 0x50, 0x60});

inline std::string traced(const char* file, int line, int generation) {
  return std::string(R"("file":")") + file + R"(", "line":)" + std::to_string(line) +
         R"(, "method":"m", "generation":)" + std::to_string(generation) + ", ";
}

// Dump d of a process: a Cache whose Hash gains `leaked` Items per dump (a.rb:1), an Array that
// a warm-up fills once between dumps 1 and 2 (b.rb:2), and a bounded Hash of Sessions that is
// replaced whole every time (c.rb:3: churn).
inline std::string process_dump(int d) {
  std::string out = kClasses + kClassRoots + root("vm", {0x100, 0x500, 0x800});
  std::vector<uint64_t> items, warm, sessions;
  const int leaked = 20 * d;
  for (int i = 0; i < leaked; ++i) items.push_back(0x10000 + 0x28 * i);
  if (d >= 2)
    for (int i = 0; i < 30; ++i) warm.push_back(0x20000 + 0x28 * i);
  for (int i = 0; i < 25; ++i) sessions.push_back(0x30000 + 0x1000 * d + 0x28 * i);
  out += record(0x100, "OBJECT", 0x10, {0x200}, 40) + record(0x200, "HASH", 0x20, items, 200);
  for (size_t i = 0; i < items.size(); ++i)
    out += record(items[i], "OBJECT", 0x30, {}, 40, traced("a.rb", 1, int(i / 20) + 1).c_str());
  out += record(0x500, "ARRAY", 0x40, warm, 80);
  for (uint64_t a : warm) out += record(a, "STRING", 0x60, {}, 400, traced("b.rb", 2, 2).c_str());
  out += record(0x800, "HASH", 0x20, sessions, 200);
  for (uint64_t a : sessions)
    out += record(a, "OBJECT", 0x50, {}, 40, traced("c.rb", 3, d).c_str());
  return out;
}

}  // namespace heapq::testing
