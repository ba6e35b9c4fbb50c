// The HTML report: one self-contained file (its script and style inside, no network) with a
// summary, sortable tables, leaks with their retention trees as inline SVG and an
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

struct LeakSection {
  std::string heading;             // "Held by Hash 0x... (@memo), allocated at app.rb:3"
  std::vector<std::string> facts;  // one line each
  Table holds;                     // what it holds, by class and allocation site
  std::string svg;                 // from dot_to_svg; empty: no picture
};

// A section of tables (a fleet's, when the report reads a server's store).
struct Section {
  std::string id;  // the element's id: letters and dashes
  std::string heading, note;
  std::vector<Table> tables;
};

struct Report {
  std::string title;
  std::vector<std::pair<std::string, std::string>> summary;  // label, value
  std::vector<Table> tables;
  std::string leaks_note;  // why there are (no) leaks
  std::vector<LeakSection> leaks;
  std::vector<Section> sections;   // after the leaks
  std::vector<IcicleNode> icicle;  // parents before children
};

// The page. A random nonce lets only its own script run (Content-Security-Policy).
std::string render_report(const Report& report);

}  // namespace heapq::viz
