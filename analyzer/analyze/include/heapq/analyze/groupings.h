// How the analyses group and order what they count, and the rows a diff groups into: the words
// the answers share with the analyses, apart from the analyses, so that renderers see them alone.
#pragma once

#include <cstdint>
#include <string>

namespace heapq {

enum class SortKey { kBytes, kCount };

// kApp: the application's line that made each object (memprof's allocation stacks: the
// innermost frame outside gems and Ruby's library), file, line and method.
enum class SiteGrouping { kSite, kFile, kMethod, kClass, kGem, kApp };

enum class MatchMethod {
  kSeq,  // memprof's allocation sequence numbers: exact, even where an address is reused; an object
         // without one (allocated while tracking was off) by address, type and class
  kGeneration,  // address, type, class and GC generation (dumps with allocation tracing)
  kAddress,     // address, type and class only: a reused address passes for the old object
};

const char* match_method_name(MatchMethod m);  // "seq", "generation", "address"

// How GroupTable (dump_match.h) groups objects across dumps.
enum class GroupBy { kClassAndSite, kClass, kGem };

// One such group, by its names.
struct ObjectGroup {
  std::string cls;
  std::string file;  // empty without an allocation site
  uint32_t line = 0;
  std::string method;
  bool has_site() const { return !file.empty(); }
};

// A group's objects in two dumps (DumpDiff::by).
struct DiffRow {
  ObjectGroup group;
  uint64_t before_count = 0, before_bytes = 0;
  uint64_t after_count = 0, after_bytes = 0;
  uint64_t born = 0;   // objects of `after` that `before` does not have
  uint64_t freed = 0;  // objects of `before` that `after` no longer has
  int64_t count_change() const { return static_cast<int64_t>(after_count - before_count); }
  int64_t bytes_change() const { return static_cast<int64_t>(after_bytes - before_bytes); }
};

}  // namespace heapq
