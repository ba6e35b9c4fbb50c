#include "text/table.h"

#include <algorithm>
#include <cstdint>

#include "heapq/render/terminal_text.h"

namespace heapq::render {

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> numeric)
    : numeric_(std::move(numeric)), width_(header.size(), 0) {
  add(std::move(header));
}

void TextTable::add(std::vector<std::string> row) {
  for (size_t i = 0; i < row.size(); ++i) {
    row[i] = escape_stray_controls(row[i]);
    if (i < width_.size()) width_[i] = std::max(width_[i], display_width(row[i]));
  }
  rows_.push_back(std::move(row));
}

void TextTable::note(size_t column, std::string label, std::string text) {
  notes_.push_back(
      {rows_.size() - 1, column, escape_stray_controls(label), escape_stray_controls(text)});
}

namespace {

// label + text in width columns (0: no limit), text cut first.
std::string fit_note(std::string_view label, std::string_view text, size_t width) {
  const size_t label_width = display_width(label);
  if (width == 0) return std::string(label) + std::string(text);
  if (width <= label_width + TextTable::kMinTextWidth)
    return fit_width(std::string(label) + std::string(text), width);
  return std::string(label) + fit_width(text, width - label_width);
}

}  // namespace

namespace {

// The table a row at a time: "name  value" lines, a blank line between rows.
std::string render_rows(const std::vector<std::vector<std::string>>& rows,
                        const std::vector<TextTable::Note>& notes, size_t width) {
  const std::vector<std::string>& header = rows.front();
  size_t label = 0;
  for (const std::string& h : header) label = std::max(label, display_width(h));
  label = std::min(label, width / 3);
  std::string out;
  for (size_t r = 1; r < rows.size(); ++r) {
    if (r > 1) out += "\n";
    for (size_t i = 0; i < rows[r].size() && i < header.size(); ++i) {
      std::string name = fit_width(header[i], label);
      name.append(label - display_width(name), ' ');
      out += name + "  " + fit_width(rows[r][i], width - label - 2) + "\n";
    }
    for (const auto& n : notes)
      if (n.row == r)
        out += std::string(label + 2, ' ') +
               fit_note(n.label, n.text, width > label + 3 ? width - label - 2 : 1) + "\n";
  }
  return out;
}

}  // namespace

std::string TextTable::render(size_t limit) const {
  std::vector<size_t> width = width_;
  if (limit) {
    size_t total = 2 * (width.size() - std::min<size_t>(width.size(), 1));
    for (size_t w : width) total += w;
    // Narrow the widest text column, step by step, until the table fits.
    while (total > limit) {
      size_t widest = SIZE_MAX;
      for (size_t i = 0; i < width.size(); ++i)
        if (!numeric_[i] && width[i] > kMinTextWidth &&
            (widest == SIZE_MAX || width[i] > width[widest]))
          widest = i;
      if (widest == SIZE_MAX) break;
      size_t second = kMinTextWidth;
      for (size_t i = 0; i < width.size(); ++i)
        if (i != widest && !numeric_[i])
          second = std::max(second, std::min(width[i], width[widest]));
      const size_t cut = std::min(total - limit, std::max<size_t>(width[widest] - second, 1));
      width[widest] -= cut;
      total -= cut;
    }
    if (total > limit) return render_rows(rows_, notes_, limit);
  }
  std::string out;
  auto note = notes_.begin();
  for (size_t r = 0; r < rows_.size(); ++r) {
    const auto& row = rows_[r];
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
      const size_t cell_width = display_width(row[i]);
      const bool cut = cell_width > width[i];
      const size_t pad = cut ? 0 : width[i] - cell_width;
      const bool last = i + 1 == row.size();
      if (i > 0) out += "  ";
      if (numeric_[i]) out.append(pad, ' ');
      out += cut ? fit_width(row[i], width[i]) : row[i];
      if (!numeric_[i] && !last) out.append(pad, ' ');
    }
    out += '\n';
    for (; note != notes_.end() && note->row == r; ++note) {
      size_t indent = 0;
      for (size_t i = 0; i < note->column && i < width.size(); ++i) indent += width[i] + 2;
      const size_t room = limit == 0 ? 0 : limit > indent ? limit - indent : 1;
      out += std::string(indent, ' ') + fit_note(note->label, note->text, room) + '\n';
    }
  }
  return out;
}

}  // namespace heapq::render
