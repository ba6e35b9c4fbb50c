#include <algorithm>

#include "heapq/answer/wording.h"
#include "heapq/base/utf8.h"
#include "heapq/render/render.h"
#include "text/common.h"
#include "text/table.h"

namespace heapq::render {

namespace {

// Characters of a value a table shows; JSON has it whole.
constexpr size_t kValueChars = 28;

// A value as Ruby's inspect would start it: quoted, escaped, its first characters; "…" after
// the quote where the dump or the table cut it.
std::string value_text(const StringsAnswer::Value& v) {
  std::string escaped = escape_controls(v.text);
  std::string out = "\"";
  size_t chars = 0, at = 0;
  for (; at < escaped.size() && chars < kValueChars; ++chars) {
    size_t next = at + 1;
    while (next < escaped.size() && (static_cast<unsigned char>(escaped[next]) & 0xc0) == 0x80)
      ++next;
    out.append(escaped, at, next - at);
    at = next;
  }
  out += '"';
  if (v.cut || at < escaped.size()) out += "\u2026";
  return out;
}

// "app/cart.rb:12 in add (6,000), (no site) (3)": the lines that made the copies.
std::string sites_text(const StringsAnswer::Row& r) {
  std::string out;
  for (const StringsAnswer::SiteCount& s : r.sites) {
    if (!out.empty()) out += ", ";
    out += s.site ? library_site_text(*s.site) : "(no allocation site)";
    out += " (" + format_count(s.count) + ")";
  }
  return out;
}

}  // namespace

std::string text(const StringsAnswer& a, const TextOptions& options) {
  std::string out = escape_controls(a.input.name) + ": " + counted(a.strings, "string", "strings") +
                    ", " + format_count(a.with_value) + " with their value: " +
                    counted(a.distinct, "distinct value", "distinct values") + ".\n";
  if (a.duplicated == 0)
    return finish_text(out + "No value is held by two strings or more.\n", options.width);
  out += counted(a.duplicated, "value is", "values are") +
         " held by 2 copies or more: " + counted(a.copies, "copy", "copies") + ", " +
         format_bytes(a.wasted_bytes) + " more than one copy of each.\n\n";
  TextTable table({"copies", "each", "wasted", "frozen", "interned", "value"},
                  {true, true, true, true, true, false});
  for (const StringsAnswer::Row& r : a.rows) {
    table.add({format_count(r.count), format_bytes(r.bytes / std::max<uint64_t>(r.count, 1)),
               format_bytes(r.wasted_bytes), format_count(r.frozen), format_count(r.interned),
               value_text(r.value)});
    if (!r.sites.empty()) table.note(1, "made at ", sites_text(r));
  }
  out += table.render(options.width);
  if (a.more_rows) out += "(" + format_count(a.more_rows) + " more; --top 0 lists all)\n";
  if (!a.copying_sites.empty()) {
    out += "\nLines that make copies of one value:\n";
    TextTable lines({"copies", "bytes", "value", "line"}, {true, true, false, false});
    for (const StringsAnswer::CopyingSite& c : a.copying_sites)
      lines.add({format_count(c.count), format_bytes(c.bytes), value_text(c.value),
                 library_site_text(c.site)});
    out += lines.render(options.width);
  }
  return finish_text(out, options.width);
}

}  // namespace heapq::render
