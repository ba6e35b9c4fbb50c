// Text of the parts answers share, and the last step of every text renderer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "heapq/answer/common.h"
#include "heapq/answer/fleet.h"
#include "heapq/answer/leaks.h"
#include "heapq/answer/wording.h"

namespace heapq::render {

// Text output cuts names from the dump (classes, references, sites) to this many columns, or
// to the output's width when it is wider, and not at all with no width limit (--width 0);
// JSON keeps them whole.
constexpr size_t kNameWidth = 100;

// The width names are cut to while it lives (render() sets it from --width).
class NameWidthScope {
 public:
  explicit NameWidthScope(size_t output_width);
  ~NameWidthScope();
  NameWidthScope(const NameWidthScope&) = delete;
  NameWidthScope& operator=(const NameWidthScope&) = delete;

 private:
  size_t was_;
};

// A name from the dump (class, reference, file) for text: control characters escaped (a raw
// newline in a class name must not start a line of its own), cut to the name width.
std::string name_text(std::string_view name);

// "samples/app.rb:12 in fetch"; as name_text.
std::string site_text(const SiteRef& site);
// site_text with a gem's or Ruby's file from its library's directory on
// ("rack-2.2.3/lib/rack/lint.rb:12 in call"): where a table has room for less than a path.
std::string library_site_text(const SiteRef& site);
// An object's description for text, as name_text; a Proc says where its block is written.
std::string object_text(const ObjectRef& object);
// ROOT(global_tbl) -> Catalog::PriceCache @store -> Hash ["sku-42"] -> Catalog::Quote 0x...;
// an elided middle reads "-> ... (N steps) ...".
std::string path_text(const PathRef& path);
// A leak's path to its holder, labelled with what it is: its owners (and, when no root holds
// the outermost directly, the shortest path to that one), or the shortest path.
struct LabelledPath {
  std::string label, path;
};
std::vector<LabelledPath> holder_paths(const LeaksAnswer::Leak& leak);
// How many of a leak's objects its holder (or root) holds, when not all: "the holder holds 40
// of them"; a root holds them directly, the others through references. Empty when all.
std::string leak_share_text(const LeaksAnswer::Leak& leak);
// Finalizers of dead objects that may undo the leak at the next GC; empty when none.
std::string pending_finalizers_text(const LeaksAnswer::Leak& leak);
// What objects the roots do not reach are: garbage not yet swept, unless the dump lacks
// objects its records reference (InputSummary::incomplete).
std::string unreachable_text(const InputSummary& input);

// heapq fleet's words (the report's fleet section too): "web-1 pid 1234" (with when it started
// where a process is described, not just named); a rate an hour, signed and rounded ("+3,600",
// "+1.2 MiB"); a share as a percentage ("12.5%").
std::string process_text(const FleetAnswer::Process& p, bool started = false);
std::string rate_text(double per_hour);
std::string bytes_rate_text(double per_hour);
std::string percent_text(double share);
// A fastest process: "web-1 pid 12 +400/h", or without an interval "web-1 pid 12 +400 (no
// interval)".
std::string worst_text(const FleetAnswer::Worst& w);
// Why a group that grows has no rate.
constexpr const char* kNoRate =
    "no rate (no time between the first and last dumps: taken in one second, or without a time)";

// A renderer's text as the terminal gets it: its dump strings escaped already (name_text,
// escape_controls), any control character left escaped all the same (lines kept), each line made
// to fit width columns (0: no limit).
std::string finish_text(std::string_view text, size_t width);

}  // namespace heapq::render
