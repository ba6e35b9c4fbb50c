// Parts every command's answer shares, resolved for the renderers: none of them refers into a
// HeapGraph, so that an answer can be built by hand (tests) and rendered in any format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "heapq/analyze/retainers.h"
#include "heapq/answer/inputs.h"
#include "heapq/model/heap_graph.h"
#include "heapq/model/site_ref.h"
#include "heapq/read/load_report.h"

namespace heapq {

// A dump a command read (schemas/input.schema.json): what it is and what its load met.
struct InputSummary {
  std::string path;  // as given ("<stdin>" for -)
  std::string name;  // for text headings: a store's dump by its number, "app.db#3"
  LoadReport report;
  std::vector<std::string> warnings;  // load_warnings
  // The dump lacks objects its records reference (lacks_referenced_objects): what the roots do
  // not reach in it may be alive, not garbage.
  bool incomplete = false;
};

InputSummary summarize(const LoadedDump& dump);

// An object as every answer names it.
struct ObjectRef {
  uint64_t address = 0;
  std::string description;       // describe(): "Hash", "class Foo", "Shop::Cart"
  std::optional<SiteRef> site;   // its allocation site, with allocation tracing
  std::optional<SiteRef> block;  // a Proc: where its block is written (memprof)
  // memprof's allocation stacks: the application's line that made it, past the frames of gems
  // and Ruby's library (the site itself when that is the application's); none without a stack.
  std::optional<SiteRef> app;
};

// A path from the GC roots to an object (RetentionPath, resolved).
struct PathRef {
  std::string root;  // the GC root category holding the first step
  struct Step {
    ObjectRef object;
    std::string edge;  // the reference into this step from the one before (empty: unnamed)
  };
  std::vector<Step> steps;
  // A long path keeps its first and last steps: `elided` steps are left out after
  // steps[elided_after - 1]. elided == 0: the path is whole.
  size_t elided_after = 0;
  uint64_t elided = 0;
  std::string root_name;  // what in the root category holds it, where the dump says (else empty)
};

// "samples/app.rb:12", or the file alone when the site has no line (0: allocated by C code).
std::string site_location(std::string_view file, uint32_t line);
// "samples/app.rb:12 in fetch"
std::string site_string(const SiteRef& site);
// site_string with a gem's or Ruby's file from its library's directory on (library_path):
// "rack-2.2.3/lib/rack/lint.rb:12 in call", where the app's line is shown beside it.
std::string library_site_string(const SiteRef& site);
// An application line worth showing beside an allocation site: one the site is not.
bool other_line(const std::optional<SiteRef>& site, const std::optional<SiteRef>& app);
// Where an object was allocated, on one line: the site, or where a gem's line made it
// "rack-2.2.3/lib/rack/lint.rb:12 in call, from the app's line app/cart.rb:8 in add".
std::string site_and_app_string(const SiteRef& site, const std::optional<SiteRef>& app);

// Said when objects were matched by address (by_address) across dumps between which GC
// compaction ran (memprof's META compact_count): a moved object then counts as born and freed.
std::optional<std::string> compaction_warning(const DumpOrigin& before, const DumpOrigin& after,
                                              bool by_address);

ObjectRef object_ref(const HeapGraph& g, ObjectId o);
std::optional<SiteRef> site_ref(const HeapGraph& g, SiteId s);
PathRef path_ref(const HeapGraph& g, const RetentionPath& path);

}  // namespace heapq
