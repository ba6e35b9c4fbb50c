#include <algorithm>

#include "heapq/answer/wording.h"
#include "heapq/render/render.h"
#include "heapq/render/terminal_text.h"
#include "text/common.h"

namespace heapq::render {

namespace {

// "STORE#N: DUMP, counts" within the width: when the two paths do not fit, each keeps at least
// half the room (all it needs when the other is short), giving up its middle.
std::string dump_line(const std::string& store, const std::string& id, const std::string& dump,
                      const std::string& counts, size_t width) {
  std::string s = escape_controls(store), d = escape_controls(dump);
  const size_t fixed = id.size() + 2 + counts.size();
  if (width && display_width(s) + display_width(d) + fixed > width) {
    const size_t room = width > fixed ? width - fixed : 0;
    const size_t store_room =
        std::max(room / 2, room > display_width(d) ? room - display_width(d) : size_t(0));
    s = fit_width(s, std::min(display_width(s), store_room));
    d = fit_width(d, room - display_width(s));
  }
  return s + id + ": " + d + counts;
}

}  // namespace

std::string text(const LoadAnswer& a, const TextOptions& options) {
  std::string out;
  for (const LoadAnswer::Dump& d : a.dumps)
    out += dump_line(a.store, "#" + std::to_string(d.id), d.path,
                     ", " + counted(d.objects, "object", "objects") + ", " +
                         counted(d.references, "reference", "references"),
                     options.width) +
           "\n";
  for (const LoadAnswer::Profile& p : a.profiles)
    out +=
        dump_line(a.store, " profile #" + std::to_string(p.id), p.path,
                  ", " + counted(p.samples, "sample", "samples") + ", " + format_count(p.objects) +
                      " live objects (" + format_bytes(p.bytes) + ") estimated",
                  options.width) +
        "\n";
  if (!a.server) out += escape_controls(a.store) + ": " + format_bytes(a.bytes) + "\n";
  return finish_text(out, options.width);
}

}  // namespace heapq::render
