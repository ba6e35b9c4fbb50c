// heapq strings: duplicate strings by value, with their allocation sites
// (schemas/strings.schema.json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/answer/common.h"

namespace heapq {

struct StringsAnswer {
  InputSummary input;
  uint64_t strings = 0, with_value = 0, distinct = 0, duplicated = 0, copies = 0, wasted_bytes = 0;
  struct Value {
    std::string text;  // the value's bytes as the dump has them: not UTF-8, maybe
    bool cut = false;  // only its beginning (memprof's strings: limit)
    uint64_t bytesize = 0;
    std::optional<uint64_t> hash;  // memprof's value_hash of a cut value
  };
  struct SiteCount {
    std::optional<SiteRef> site;  // none: copies allocated without tracing
    uint64_t count = 0;
  };
  struct Row {
    Value value;
    uint64_t count = 0, bytes = 0, wasted_bytes = 0, frozen = 0, interned = 0;
    std::vector<SiteCount> sites;  // most copies first
  };
  std::vector<Row> rows;  // most wasted bytes first
  uint64_t more_rows = 0;
  // Lines that make many copies of one value.
  struct CopyingSite {
    SiteRef site;
    Value value;
    uint64_t count = 0, bytes = 0;
  };
  std::vector<CopyingSite> copying_sites;
};

}  // namespace heapq
