// How the analyses group and order what they count, and the rows a diff groups into: the words
// the answers share with the analyses, apart from the analyses, so that renderers see them alone.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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

// What a leak counts: the same in the analysis (leaks.h: Leak) and in its answer.
struct LeakCounts {
  uint64_t holder_share = 0;  // members the holder (or its root category) dominates or references
  // What in the root category that holds it holds it, where the dump names its roots (memprof:
  // "finalizers of Connection"), with how many members each holds directly; most first, at most 3.
  std::vector<std::pair<std::string, uint64_t>> holder_root_names;
  uint64_t count = 0;            // members
  uint64_t bytes = 0;            // their memsize
  uint64_t retained_bytes = 0;   // what freeing all of them would free
  std::vector<uint64_t> growth;  // the groups' objects in each dump, summed
  bool growing = false;          // a group is growing
  bool steady = false;           // a group grew between every two dumps
  // Finalizers of dead objects that reach most of it: the next GC runs them and they may undo
  // it (ActionView's templates take their methods off the view class). 0: none.
  uint64_t pending_finalizers = 0;
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
