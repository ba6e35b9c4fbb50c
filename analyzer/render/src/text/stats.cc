#include "heapq/answer/wording.h"
#include "heapq/render/render.h"
#include "heapq/render/terminal_text.h"
#include "text/common.h"
#include "text/table.h"

namespace heapq::render {

std::string text(const StatsAnswer& a, const TextOptions& options) {
  std::string out = escape_controls(a.input.name) + ": " + counted(a.objects, "object", "objects") +
                    ", " + format_bytes(a.bytes) + " (" + counted(a.bytes, "byte", "bytes") + ")\n";
  if (!a.input.report.origin.unnamed.empty()) {
    out += "references memprof could not name in this dump:";
    for (size_t i = 0; i < a.input.report.origin.unnamed.size(); ++i)
      out += (i ? ", " : " ") + escape_controls(a.input.report.origin.unnamed[i]);
    out += "\n";
  }
  out += "\n";
  TextTable types({"type", "count", "bytes"}, {false, true, true});
  for (const StatsAnswer::TypeRow& t : a.by_type)
    types.add({escape_controls(t.type), format_count(t.count), format_bytes(t.bytes)});
  out += types.render(options.width) + "\n";
  const bool retained = !a.by_class.empty() && a.by_class[0].retained_bytes;
  TextTable classes(retained ? std::vector<std::string>{"class", "count", "bytes", "retained"}
                             : std::vector<std::string>{"class", "count", "bytes"},
                    {false, true, true, true});
  for (const StatsAnswer::ClassRow& c : a.by_class) {
    std::vector<std::string> row = {escape_controls(c.cls), format_count(c.count),
                                    format_bytes(c.bytes)};
    if (retained) row.push_back(format_bytes(c.retained_bytes.value_or(0)));
    classes.add(std::move(row));
  }
  out += classes.render(options.width);
  if (a.by_class.size() < a.classes)
    out += "(" + counted(a.classes - a.by_class.size(), "more class", "more classes") +
           "; --top 0 lists all)\n";
  return finish_text(out, options.width);
}

}  // namespace heapq::render
