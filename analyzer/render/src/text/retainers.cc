#include "heapq/answer/wording.h"
#include "heapq/render/render.h"
#include "text/common.h"

namespace heapq::render {

namespace {

std::string object_text(const RetainersAnswer& a, const ObjectRef& o) {
  std::string text =
      render::object_text(o) + " " + hex_address(o.address) + " (" + format_bytes(a.bytes);
  if (o.site) text += ", allocated at " + site_text(*o.site);
  text += ")\n";
  if (a.paths.empty() && !a.input.incomplete)
    text +=
        "not reachable from the GC roots: garbage not yet swept, or held only through weak "
        "references\n";
  else if (a.paths.empty())
    text +=
        "not reachable from the GC roots through the objects the dump has: held by one of "
        "the objects missing from the dump (" +
        counted(a.input.report.dangling_references, "reference points", "references point") +
        " to them), held only through weak references, or garbage\n";
  else
    text += "shortest paths from the GC roots, each through a different referrer:\n";
  for (size_t i = 0; i < a.paths.size(); ++i)
    text += std::to_string(i + 1) + ". " + path_text(a.paths[i]) + "\n";
  if (!a.referrers_asked) return text;
  text += "referenced by:\n";
  for (const RetainersAnswer::Referrer& r : a.referrers) {
    if (!r.object)
      text += "  ROOT(" + name_text(r.edge) + ")\n";
    else
      text += "  " + render::object_text(*r.object) + " " + hex_address(r.object->address) +
              (r.edge.empty() ? "" : " " + name_text(r.edge)) + "\n";
  }
  return text;
}

std::string class_text(const RetainersAnswer& a) {
  std::string text = name_text(a.cls) + ": " + counted(a.instances, "instance", "instances") +
                     ", " + format_bytes(a.bytes) +
                     "\nshortest paths from the GC roots, merged by shape (count, bytes, an "
                     "example):\n";
  for (const RetainersAnswer::Group& g : a.groups) {
    text += format_count(g.count) + "  " + format_bytes(g.bytes) + "  " + path_text(g.path) + "\n";
    if (g.repeats) text += "    (a chain: a step of this shape repeats, as in a linked list)\n";
    if (g.deeper)
      text += "    (and paths deeper than --max-depth " + std::to_string(a.max_depth) +
              " merged here)\n";
  }
  if (a.more_groups)
    text += "(" + counted(a.more_groups, "more shape", "more shapes") + "; --paths N shows more)\n";
  if (a.unreachable)
    text += counted(a.unreachable, "instance is", "instances are") +
            " not reachable from the roots (" + unreachable_text(a.input) + ")\n";
  if (!a.referrers_asked) return text;
  text += "referenced by (class, reference, count):\n";
  for (const RetainersAnswer::ReferrerGroup& r : a.referrer_groups) {
    std::string group = name_text(r.cls);
    if (!r.block.empty()) group += " (block at " + name_text(r.block) + ")";
    if (!r.edge.empty()) group += " " + name_text(r.edge);
    text += "  " + group + "  " + format_count(r.count) + "\n";
  }
  return text;
}

}  // namespace

std::string text(const RetainersAnswer& a, const TextOptions& options) {
  return finish_text(a.object ? object_text(a, *a.object) : class_text(a), options.width);
}

}  // namespace heapq::render
