// Small dumps built from text in the tests, and a loader that keeps the report.
#pragma once

#include <zlib.h>

#include <string>

#include <gtest/gtest.h>

#include <vector>

#include "cli/main_help.h"
#include "heapq/load.h"

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

// Runs the heapq command line in-process; keeps its exit status and what it printed.
struct CliRun {
  int status = 0;
  std::string out, err;
};

inline CliRun run_cli(const std::vector<std::string>& args) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  CliRun r;
  r.status = cli::run_heapq(args);
  r.out = ::testing::internal::GetCapturedStdout();
  r.err = ::testing::internal::GetCapturedStderr();
  return r;
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

// A tiny heap: a root holding a Hash that holds two Strings; Foo instance holding the hash.
inline const char* kSmallDump =
    R"({"type":"ROOT", "root":"vm", "references":["0x100", "0x500"]})" "\n"
    R"({"address":"0x100", "type":"CLASS", "class":"0x110", "name":"String", "references":[], "memsize":500})" "\n"
    R"({"address":"0x110", "type":"CLASS", "class":"0x120", "singleton":true, "references":["0x100"], "memsize":400})" "\n"
    R"({"address":"0x200", "type":"CLASS", "class":"0x210", "name":"Hash", "references":[], "memsize":500})" "\n"
    R"({"address":"0x300", "type":"CLASS", "class":"0x310", "name":"Foo", "references":[], "memsize":600})" "\n"
    R"({"address":"0x500", "type":"OBJECT", "class":"0x300", "ivars":1, "references":["0x600"], "file":"app/foo.rb", "line":3, "method":"new", "generation":7, "memsize":40})" "\n"
    R"({"address":"0x600", "type":"HASH", "class":"0x200", "size":1, "references":["0x700", "0x710"], "file":"app/foo.rb", "line":4, "method":"initialize", "memsize":160})" "\n"
    R"({"address":"0x700", "type":"STRING", "class":"0x100", "bytesize":3, "value":"abc", "file":"/gems/rack-2.2.3/lib/rack.rb", "line":9, "method":"call", "memsize":40})" "\n"
    R"({"address":"0x710", "type":"STRING", "class":"0x100", "bytesize":3, "value":"def", "file":"/gems/rack-2.2.3/lib/rack.rb", "line":9, "method":"call", "memsize":40})" "\n"
    R"({"address":"0x800", "type":"IMEMO", "class":"0x8", "imemo_type":"cref", "references":["0x300"], "memsize":40})" "\n";

}  // namespace heapq::testing
