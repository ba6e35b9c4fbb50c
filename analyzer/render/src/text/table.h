// Aligned text tables for a terminal of a given width.
#pragma once

#include <string>
#include <vector>

namespace heapq::render {

// Columns are left-aligned unless marked numeric (right-aligned). Cells are terminal text: their
// dump strings escaped by the caller (escape_controls, name_text). A table wider than the output
// narrows its widest text columns, down to kMinTextWidth, cutting their cells in the middle
// ("/srv/app/…/cart.rb:12"); one that does not fit even so is shown a row at a time, a column a
// line.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header, std::vector<bool> numeric);
  void add(std::vector<std::string> row);
  // A line under the last row, from its column on, label then text, the text
  // cut to what is left of the width: what a cell adds without widening its column ("from the
  // app's line " "app/cart.rb:12 in add").
  void note(size_t column, std::string label, std::string text);
  size_t size() const { return rows_.size() - 1; }  // rows, the header aside
  // The table's lines: no control character, none wider than width (0: no limit).
  std::string render(size_t width) const;
  static constexpr size_t kMinTextWidth = 12;

  struct Note {
    size_t row, column;
    std::string label, text;  // escaped
  };

 private:
  std::vector<bool> numeric_;
  std::vector<std::vector<std::string>> rows_;  // the header first; cells escaped
  std::vector<Note> notes_;                     // by row
  std::vector<size_t> width_;                   // by column: its widest cell
};

}  // namespace heapq::render
