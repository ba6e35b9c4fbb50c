// Parts every command's answer shares, resolved for the renderers: none of them refers into a
// HeapGraph, so that an answer can be built by hand (tests) and rendered in any format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

}  // namespace heapq
