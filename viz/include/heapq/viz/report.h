// The HTML report: one self-contained file (its script and style inside, no network) with a
// summary, sortable tables, leak suspects with their retention trees as inline SVG and an
// icicle of the dominator tree to click through. Every string from a dump is escaped here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/answer/picture.h"

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
