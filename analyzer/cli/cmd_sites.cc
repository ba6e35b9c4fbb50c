// heapq sites: memory by allocation site (file:line), file, method, class or gem.
#include "cli/command.h"
#include "cli/input.h"
#include "cli/output.h"
#include "cli/paths.h"
#include "heapq/dominators.h"
#include "heapq/sites.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"by", "GROUP", "site (file:line and class; default), file, method, class or gem"},
    {"top", "N", "groups to list, largest first (default 20; 0 lists all)"},
    {"sort", "KEY", "order by bytes (default) or count"},
    {"retained", "", "also compute retained bytes (dominators; slower, more memory)"},
};

Result<SiteGrouping> get_grouping(const ParsedArgs& args) {
  std::string by = args.get("by", "site");
  if (by == "site") return SiteGrouping::kSite;
  if (by == "file") return SiteGrouping::kFile;
  if (by == "method") return SiteGrouping::kMethod;
  if (by == "class") return SiteGrouping::kClass;
  if (by == "gem") return SiteGrouping::kGem;
  return usage_error("--by expects site, file, method, class or gem, not \"" + by + "\"");
}

std::string file_or_unknown(const HeapGraph& g, StringId file) {
  return file.valid() ? std::string(g.string(file)) : "(no allocation site)";
}

// The group's label column(s) for the text table.
std::vector<std::string> label(const HeapGraph& g, SiteGrouping by, const SiteGroup& s) {
  switch (by) {
    case SiteGrouping::kSite:
      return {s.file.valid() ? site_location(g.string(s.file), s.line) : file_or_unknown(g, s.file),
              std::string(g.string(s.method)), std::string(g.class_name(s.cls))};
    case SiteGrouping::kFile:
      return {file_or_unknown(g, s.file)};
    case SiteGrouping::kMethod:
      return {std::string(g.string(s.method)), file_or_unknown(g, s.file)};
    case SiteGrouping::kClass:
      return {std::string(g.class_name(s.cls))};
    case SiteGrouping::kGem:
      return {s.gem};
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
  }
  return {};
}

std::string render_text(const LoadedDump& dump, const SiteReport& r, SiteGrouping by, size_t top) {
  const HeapGraph& g = dump.graph;
  std::string out;
  if (r.objects_with_site == 0)
    out += "No object in " + dump.name +
           " has an allocation site: dump a process that traces\n"
           "allocations (ObjectSpace.trace_object_allocations_start, or Memprof.start).\n\n";
  const bool retained = !r.groups.empty() && r.groups[0].retained_bytes;
  std::vector<std::string> head = {"count", "bytes"};
  std::vector<bool> numeric = {true, true};
  if (retained) {
    head.push_back("retained");
    numeric.push_back(true);
  }
  for (std::string& h : header(by)) {
    head.push_back(std::move(h));
    numeric.push_back(false);
  }
  TextTable table(head, numeric);
  for (size_t i = 0; i < r.groups.size() && i < top; ++i) {
    std::vector<std::string> row = {format_count(r.groups[i].count),
                                    format_bytes(r.groups[i].bytes)};
    if (retained) row.push_back(format_bytes(*r.groups[i].retained_bytes));
    for (std::string& l : label(g, by, r.groups[i])) row.push_back(std::move(l));
    table.add(std::move(row));
  }
  out += table.render(output_width());
  if (top < r.groups.size())
    out += "(" + format_count(r.groups.size() - top) + " more; --top 0 lists all)\n";
  return out;
}

std::string render_json(const LoadedDump& dump, const SiteReport& r, SiteGrouping by, size_t top) {
  const HeapGraph& g = dump.graph;
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_input_json(w, dump);
  json_key(w, "objects_with_site");
  w.Uint64(r.objects_with_site);
  json_key(w, "groups");
  w.Uint64(r.groups.size());
  json_key(w, "sites");
  w.StartArray();
  for (size_t i = 0; i < r.groups.size() && i < top; ++i) {
    const SiteGroup& s = r.groups[i];
    w.StartObject();
    json_key(w, "file");
    json_string_or_null(w, g.string(s.file));
    json_key(w, "line");
    line_json(w, by == SiteGrouping::kSite && s.file.valid() ? s.line : 0);
    json_key(w, "method");
    json_string_or_null(w, g.string(s.method));
    json_key(w, "class");
    if (s.cls.valid())
      json_string(w, g.class_name(s.cls));
    else
      w.Null();
    if (by == SiteGrouping::kGem) {
      auto [name, version] = split_gem(s.gem);
      json_key(w, "gem");
      json_string(w, name);
      json_key(w, "version");
      json_string_or_null(w, version);
    }
    json_key(w, "count");
    w.Uint64(s.count);
    json_key(w, "bytes");
    w.Uint64(s.bytes);
    json_key(w, "retained_bytes");
    json_optional(w, s.retained_bytes);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

int run(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().size() != 1)
    return report_error(usage_error("sites takes one INPUT (see heapq sites --help)"));
  auto by = get_grouping(args);
  if (!by) return report_error(by.error());
  auto top = get_limit(args, "top", 20);
  if (!top) return report_error(top.error());
  auto sort = get_sort(args);
  if (!sort) return report_error(sort.error());
  auto dump = load_input(args.positional()[0], global,
                         args.has("retained") ? Needs::kGraph : Needs::kObjects);
  if (!dump) return report_error(dump.error());
  std::optional<HeapDominators> dominators;
  if (args.has("retained")) dominators = HeapDominators::compute(dump->graph);
  size_t n = *top;
  SiteReport report =
      compute_sites(dump->graph, *by, *sort, dominators ? &*dominators : nullptr, n);
  bool ok = global.format == OutputFormat::kJson ? emit(render_json(*dump, report, *by, n))
                                                 : emit_text(render_text(*dump, report, *by, n));
  return ok ? 0 : static_cast<int>(ExitCode::kIo);
}

}  // namespace

const Command kSitesCommand = {
    "sites",
    "memory by allocation site: file:line, file, method, class or gem",
    "heapq sites [--by site|file|method|class|gem] [--top N] [--sort bytes|count] [--retained] "
    "INPUT",
    "Groups the live objects by where they were allocated, from the dump's tracing fields\n"
    "(file, line, method), and lists the groups with the most memory first. Those fields are\n"
    "there only when the process traced allocations: ObjectSpace.trace_object_allocations_start,\n"
    "or Memprof.start. --by gem takes the gem from paths like .../gems/NAME-VERSION/...;\n"
    "Ruby's own library is \"(ruby)\" and other files \"(app)\". --retained adds each group's\n"
    "retained bytes: what freeing all its objects at once would free (one walk of the heap per\n"
    "row shown at worst: keep --top small on big dumps).\n",
    kOptions,
    run,
};

}  // namespace heapq::cli
