#include <cstdlib>

#include "heapq/answer/wording.h"
#include "heapq/render/render.h"
#include "heapq/render/terminal_text.h"
#include "text/common.h"
#include "text/table.h"

namespace heapq::render {

namespace {

std::string signed_count(int64_t n) {
  return (n > 0 ? "+" : n < 0 ? "-" : "") + format_count(static_cast<uint64_t>(std::llabs(n)));
}
std::string signed_bytes(int64_t n) {
  return (n > 0 ? "+" : n < 0 ? "-" : "") + format_bytes(static_cast<uint64_t>(std::llabs(n)));
}

// The label columns of a row: the class; the gem; or the site (file:line) and the class.
std::vector<std::string> row_labels(GroupBy by, const ObjectGroup& g) {
  switch (by) {
    case GroupBy::kClass:
      return {g.cls};
    case GroupBy::kGem:
      return {g.file};
    case GroupBy::kClassAndSite:
      return {g.has_site() ? site_location(g.file, g.line) : "(no allocation site)", g.cls};
  }
  return {g.cls};
}

}  // namespace

std::string text(const DiffAnswer& a, const TextOptions& options) {
  std::string text = escape_controls(a.before.path) + " -> " + escape_controls(a.input.path) +
                     ":\n" + counted(a.objects_after, "object", "objects") + " (" +
                     signed_count(static_cast<int64_t>(a.objects_after - a.objects_before)) +
                     "), " + format_count(a.born) + " born, " + format_count(a.freed) + " freed\n";
  if (a.match == MatchMethod::kAddress)
    text +=
        "(no allocation tracing: objects matched by address and class; a reused address\n"
        "passes for the old object)\n";
  for (const std::string& w : a.warnings) text += "Warning: " + w + ".\n";
  std::vector<std::string> header = a.by == GroupBy::kGem ? std::vector<std::string>{"gem"}
                                    : a.by == GroupBy::kClass
                                        ? std::vector<std::string>{"class"}
                                        : std::vector<std::string>{"site", "class"};
  std::vector<bool> numeric(header.size(), false);
  for (const char* column : {"count", "change", "bytes", "change", "born", "freed"}) {
    header.push_back(column);
    numeric.push_back(true);
  }
  const DiffAnswer::Rows& rows = a.by == GroupBy::kGem     ? a.by_gem
                                 : a.by == GroupBy::kClass ? a.by_class
                                                           : a.by_site;
  TextTable table(header, numeric);
  for (const DiffAnswer::Row& row : rows.rows) {
    const DiffRow& r = row.change;
    std::vector<std::string> cells;
    for (const std::string& label : row_labels(a.by, r.group))
      cells.push_back(escape_controls(label));
    for (std::string cell :
         {format_count(r.after_count), signed_count(r.count_change()), format_bytes(r.after_bytes),
          signed_bytes(r.bytes_change()), format_count(r.born), format_count(r.freed)})
      cells.push_back(std::move(cell));
    table.add(std::move(cells));
  }
  text += table.render(options.width);
  if (rows.total > rows.rows.size())
    text += "(" + format_count(rows.total - rows.rows.size()) + " more; --top 0 lists all)\n";
  return finish_text(text, options.width);
}

}  // namespace heapq::render
