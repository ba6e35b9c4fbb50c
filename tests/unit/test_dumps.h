// Small dumps built from text in the tests, and a loader that keeps the report.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <string>
#include <vector>

#include "heapq/model/load.h"

namespace heapq::testing {

struct Loaded {
  Result<HeapGraph> graph;
  LoadReport report;
};

inline Loaded load_text(std::string text, LoadOptions options = {}) {
  auto input = memory_input(std::move(text), "dump.json");
  LoadReport report;
  Result<HeapGraph> graph = load_dump(*input, options, report);
  return {std::move(graph), std::move(report)};
}

// Loads text that is meant to be a valid dump; the test fails if it is not.
inline HeapGraph load_graph(const std::string& text) {
  auto loaded = load_text(text);
  EXPECT_TRUE(loaded.graph.ok()) << (loaded.graph.ok() ? "" : loaded.graph.error().message);
  return std::move(loaded.graph.value());
}

// gzip-compresses bytes (one member).
inline std::string gzip(const std::string& bytes) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, bytes.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// One ObjectSpace record; `extra` adds fields, each followed by ", ".
inline std::string record(uint64_t address, const char* type, uint64_t klass,
                          std::vector<uint64_t> refs, uint64_t memsize, const char* extra = "") {
  char head[120];
  std::snprintf(head, sizeof head, R"({"address":"0x%llx", "type":"%s", "class":"0x%llx", )",
                (unsigned long long)address, type, (unsigned long long)klass);
  std::string out = std::string(head) + extra + "\"references\":[";
  for (size_t i = 0; i < refs.size(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s\"0x%llx\"", i ? ", " : "", (unsigned long long)refs[i]);
    out += buf;
  }
  return out + "], \"memsize\":" + std::to_string(memsize) + "}\n";
}

// Class records: each (address, name) a CLASS of no memory and no references.
inline std::string class_records(std::vector<std::pair<uint64_t, std::string>> classes) {
  std::string out;
  for (const auto& [address, name] : classes) {
    char head[64];
    std::snprintf(head, sizeof head, R"({"address":"0x%llx", "type":"CLASS", "name":")",
                  (unsigned long long)address);
    out += head + name + R"(", "references":[], "memsize":0})" + "\n";
  }
  return out;
}

// One ROOT record.
inline std::string root(const char* category, std::vector<uint64_t> refs) {
  std::string out = std::string(R"({"type":"ROOT", "root":")") + category + R"(", "references":[)";
  for (size_t i = 0; i < refs.size(); ++i)
    out += (i ? ", \"0x" : "\"0x") + [&] {
      char buf[24];
      std::snprintf(buf, sizeof buf, "%llx", (unsigned long long)refs[i]);
      return std::string(buf);
    }() + "\"";
  return out + "]}\n";
}

// A tiny heap: a root holding a Hash that holds two Strings; Foo instance holding the hash.
inline const char* kSmallDump =
    R"({"type":"ROOT", "root":"vm", "references":["0x100", "0x500"]})"
    "\n"
    R"({"address":"0x100", "type":"CLASS", "class":"0x110", "name":"String", "references":[], "memsize":500})"
    "\n"
    R"({"address":"0x110", "type":"CLASS", "class":"0x120", "singleton":true, "references":["0x100"], "memsize":400})"
    "\n"
    R"({"address":"0x200", "type":"CLASS", "class":"0x210", "name":"Hash", "references":[], "memsize":500})"
    "\n"
    R"({"address":"0x300", "type":"CLASS", "class":"0x310", "name":"Foo", "references":[], "memsize":600})"
    "\n"
    R"({"address":"0x500", "type":"OBJECT", "class":"0x300", "ivars":1, "references":["0x600"], "file":"app/foo.rb", "line":3, "method":"new", "generation":7, "memsize":40})"
    "\n"
    R"({"address":"0x600", "type":"HASH", "class":"0x200", "size":1, "references":["0x700", "0x710"], "file":"app/foo.rb", "line":4, "method":"initialize", "memsize":160})"
    "\n"
    R"({"address":"0x700", "type":"STRING", "class":"0x100", "bytesize":3, "value":"abc", "file":"/gems/rack-2.2.3/lib/rack.rb", "line":9, "method":"call", "memsize":40})"
    "\n"
    R"({"address":"0x710", "type":"STRING", "class":"0x100", "bytesize":3, "value":"def", "file":"/gems/rack-2.2.3/lib/rack.rb", "line":9, "method":"call", "memsize":40})"
    "\n"
    R"({"address":"0x800", "type":"IMEMO", "class":"0x8", "imemo_type":"cref", "references":["0x300"], "memsize":40})"
    "\n";

}  // namespace heapq::testing
