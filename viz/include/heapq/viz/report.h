// The HTML report: one self-contained file (its script and style inside, no network) with a
// summary, sortable tables, leak suspects with their retention trees as inline SVG and an
// icicle of the dominator tree to click through. Every string from a dump is escaped here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace heapq::viz {

struct Cell {
  std::string text;
  std::optional<double> sort_key;  // numeric columns sort by this, not by the text
};

struct Table {
  std::string caption;
  std::vector<std::string> header;
  std::vector<bool> numeric;  // per column
  std::vector<std::vector<Cell>> rows;
};

struct SuspectSection {
  std::string heading;             // "Pricing::Quote allocated at app.rb:12 in quote"
  std::vector<std::string> facts;  // one line each
  std::string svg;                 // from dot_to_svg; empty: facts only
};

// One node of the icicle: the dominator tree's top, the rest summed into "more" nodes.
struct IcicleNode {
  int32_t parent = -1;  // index of the parent; -1 for the root (index 0)
  std::string name;     // class (or "+ 12 more")
  std::string address;
  std::string site;
  std::string edge;    // the reference from its parent on a shortest path, when known
  uint64_t bytes = 0;  // retained
  uint64_t count = 0;  // retained objects
  bool more = false;   // stands for the children not drawn
};

struct Report {
  std::string title;
  std::vector<std::pair<std::string, std::string>> summary;  // label, value
  std::vector<Table> tables;
  std::string suspects_note;  // why there are (no) suspects
  std::vector<SuspectSection> suspects;
  std::vector<IcicleNode> icicle;  // parents before children
};

// The page. A random nonce lets only its own script run (Content-Security-Policy).
std::string render_report(const Report& report);

}  // namespace heapq::viz
