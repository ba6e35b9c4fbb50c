#include "heapq/answer/wording.h"
#include "heapq/read/source_paths.h"
#include "heapq/render/render.h"
#include "heapq/render/terminal_text.h"
#include "text/common.h"
#include "text/table.h"

namespace heapq::render {

namespace {

// A gem's or Ruby's file from its library's directory on (JSON keeps the whole path).
std::string file_or_unknown(const SitesAnswer::Row& r) {
  return r.file ? std::string(library_path(*r.file)) : "(no allocation site)";
}

// The group's label column(s).
std::vector<std::string> label(SiteGrouping by, const SitesAnswer::Row& r) {
  switch (by) {
    case SiteGrouping::kSite:
      return {r.file ? site_location(library_path(*r.file), r.line) : file_or_unknown(r), r.method,
              r.cls};
    case SiteGrouping::kFile:
      return {file_or_unknown(r)};
    case SiteGrouping::kMethod:
      return {r.method, file_or_unknown(r)};
    case SiteGrouping::kClass:
      return {r.cls};
    case SiteGrouping::kGem:
      return {r.gem};
    case SiteGrouping::kApp:
      return {r.file ? site_location(*r.file, r.line) : "(no app line)", r.method};
  }
  return {};
}

std::vector<std::string> header(SiteGrouping by) {
  switch (by) {
    case SiteGrouping::kSite:
      return {"site", "method", "class"};
    case SiteGrouping::kFile:
      return {"file"};
    case SiteGrouping::kMethod:
      return {"method", "file"};
    case SiteGrouping::kClass:
      return {"class"};
    case SiteGrouping::kGem:
      return {"gem"};
    case SiteGrouping::kApp:
      return {"the app's line", "method"};
  }
  return {};
}

}  // namespace

std::string text(const SitesAnswer& a, const TextOptions& options) {
  std::string out;
  if (a.objects_with_site == 0)
    out += "No object in " + escape_controls(a.input.name) +
           " has an allocation site: dump a process that traces\n"
           "allocations (ObjectSpace.trace_object_allocations_start, or Memprof.start).\n\n";
  if (a.by == SiteGrouping::kApp &&
      std::none_of(a.rows.begin(), a.rows.end(), [](const SitesAnswer::Row& r) { return r.file; }))
    out += "No object in " + escape_controls(a.input.name) +
           " has an app line: it takes a memprof dump of a process that\n"
           "tracks allocation stacks (Memprof.start, MEMPROF_STACK; not 0).\n\n";
  const bool retained = !a.rows.empty() && a.rows[0].retained_bytes;
  std::vector<std::string> head = {"count", "bytes"};
  std::vector<bool> numeric = {true, true};
  if (retained) {
    head.push_back("retained");
    numeric.push_back(true);
  }
  for (std::string& h : header(a.by)) {
    head.push_back(std::move(h));
    numeric.push_back(false);
  }
  TextTable table(head, numeric);
  for (const SitesAnswer::Row& r : a.rows) {
    std::vector<std::string> row = {format_count(r.count), format_bytes(r.bytes)};
    if (retained) row.push_back(format_bytes(r.retained_bytes.value_or(0)));
    for (const std::string& l : label(a.by, r)) row.push_back(escape_controls(l));
    table.add(std::move(row));
  }
  out += table.render(options.width);
  if (a.rows.size() < a.groups)
    out += "(" + format_count(a.groups - a.rows.size()) + " more; --top 0 lists all)\n";
  return finish_text(out, options.width);
}

}  // namespace heapq::render
