// heapq diff: what changed between two dumps of one process, by class, site or gem.
#include <cstdlib>

#include "cli/command.h"
#include "cli/input.h"
#include "cli/output.h"
#include "cli/paths.h"
#include "heapq/diff.h"
#include "heapq/sites.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"by", "GROUP", "rows: class (default), site (file:line, class) or gem"},
    {"top", "N", "rows to list, largest growth first (default 20; 0: all)"},
    kAsGivenOption,
};

Result<GroupTable::By> get_grouping(const ParsedArgs& args) {
  std::string by = args.get("by", "class");
  if (by == "class") return GroupTable::By::kClass;
  if (by == "site") return GroupTable::By::kClassAndSite;
  if (by == "gem") return GroupTable::By::kGem;
  return usage_error("--by expects class, site or gem, not \"" + by + "\"");
}

std::string signed_count(int64_t n) {
  return (n > 0 ? "+" : n < 0 ? "-" : "") + format_count(static_cast<uint64_t>(std::llabs(n)));
}
std::string signed_bytes(int64_t n) {
  return (n > 0 ? "+" : n < 0 ? "-" : "") + format_bytes(static_cast<uint64_t>(std::llabs(n)));
}

// The label columns of a row: the class; the gem; or the site (file:line) and the class.
std::vector<std::string> row_labels(GroupTable::By by, const GroupTable::Group& g) {
  switch (by) {
    case GroupTable::By::kClass:
      return {g.cls};
    case GroupTable::By::kGem:
      return {g.file};
    case GroupTable::By::kClassAndSite:
      return {g.has_site() ? site_location(g.file, g.line) : "(no allocation site)", g.cls};
  }
  return {g.cls};
}

void rows_json(JsonWriter& w, std::string_view key, const std::vector<DiffRow>& rows,
               GroupTable::By by, size_t top) {
  json_key(w, key);
  w.StartArray();
  for (size_t i = 0; i < rows.size() && i < top; ++i) {
    const DiffRow& r = rows[i];
    w.StartObject();
    if (by == GroupTable::By::kGem) {
      // As heapq sites --by gem writes it: the name, and the version apart.
      const auto [name, version] = split_gem(r.group.file);
      json_key(w, "gem");
      json_string(w, name);
      json_key(w, "version");
      json_string_or_null(w, version);
    } else {
      json_key(w, "class");
      json_string(w, r.group.cls);
    }
    if (by == GroupTable::By::kClassAndSite) {
      json_key(w, "file");
      json_string_or_null(w, r.group.file);
      json_key(w, "line");
      line_json(w, r.group.has_site() ? r.group.line : 0);
      json_key(w, "method");
      json_string_or_null(w, r.group.method);
    }
    auto totals = [&](std::string_view name, uint64_t count, uint64_t bytes) {
      json_key(w, name);
      w.StartObject();
      json_key(w, "count");
      w.Uint64(count);
      json_key(w, "bytes");
      w.Uint64(bytes);
      w.EndObject();
    };
    totals("before", r.before_count, r.before_bytes);
    totals("after", r.after_count, r.after_bytes);
    json_key(w, "change");
    w.StartObject();
    json_key(w, "count");
    w.Int64(r.count_change());
    json_key(w, "bytes");
    w.Int64(r.bytes_change());
    w.EndObject();
    json_key(w, "born");
    w.Uint64(r.born);
    json_key(w, "freed");
    w.Uint64(r.freed);
    w.EndObject();
  }
  w.EndArray();
}

int run(const GlobalOptions& global, const ParsedArgs& args) {
  auto by = get_grouping(args);
  if (!by) return report_error(by.error());
  auto top = get_limit(args, "top", 20);
  if (!top) return report_error(top.error());
  const size_t n = *top;
  auto paths = dumps_over_time(args.positional());
  if (!paths) return report_error(paths.error());
  if (paths->size() < 2)
    return report_error(
        usage_error("diff takes BEFORE and AFTER, or a store holding two dumps or more (see heapq "
                    "diff --help)"));
  if (args.positional().size() > 2)
    return report_error(usage_error("diff takes two INPUTs: BEFORE and AFTER"));

  auto before = load_input(paths->front(), global, Needs::kObjectsOnly);
  if (!before) return report_error(before.error());
  auto after = load_input(paths->back(), global, Needs::kObjectsOnly);
  if (!after) return report_error(after.error());
  if (Status s = check_one_process({&*before, &*after}, args.has("as-given")); !s)
    return report_error(s.error());
  const DumpDiff diff(before->graph, after->graph);

  if (global.format == OutputFormat::kJson) {
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    write_input_json(w, *after);
    json_key(w, "before");
    write_input_object(w, *before);
    json_key(w, "matched_by");
    json_string(w, match_method_name(diff.match()));
    json_key(w, "born");
    w.Uint64(diff.born());
    json_key(w, "freed");
    w.Uint64(diff.freed());
    rows_json(w, "by_class", diff.by(GroupTable::By::kClass), GroupTable::By::kClass, n);
    rows_json(w, "by_site", diff.by(GroupTable::By::kClassAndSite), GroupTable::By::kClassAndSite,
              n);
    if (*by == GroupTable::By::kGem)
      rows_json(w, "by_gem", diff.by(GroupTable::By::kGem), GroupTable::By::kGem, n);
    w.EndObject();
    return emit_json(buffer) ? 0 : static_cast<int>(ExitCode::kIo);
  }

  const std::vector<DiffRow> rows = diff.by(*by);
  std::string text =
      before->path + " -> " + after->path + ":\n" +
      counted(after->graph.object_count(), "object", "objects") + " (" +
      signed_count(
          static_cast<int64_t>(after->graph.object_count() - before->graph.object_count())) +
      "), " + format_count(diff.born()) + " born, " + format_count(diff.freed()) + " freed\n";
  if (diff.match() == MatchMethod::kAddress)
    text +=
        "(no allocation tracing: objects matched by address and class; a reused address\n"
        "passes for the old object)\n";
  std::vector<std::string> header = *by == GroupTable::By::kGem ? std::vector<std::string>{"gem"}
                                    : *by == GroupTable::By::kClass
                                        ? std::vector<std::string>{"class"}
                                        : std::vector<std::string>{"site", "class"};
  std::vector<bool> numeric(header.size(), false);
  for (const char* column : {"count", "change", "bytes", "change", "born", "freed"}) {
    header.push_back(column);
    numeric.push_back(true);
  }
  TextTable table(header, numeric);
  for (size_t i = 0; i < rows.size() && i < n; ++i) {
    const DiffRow& r = rows[i];
    std::vector<std::string> cells = row_labels(*by, r.group);
    for (std::string cell :
         {format_count(r.after_count), signed_count(r.count_change()), format_bytes(r.after_bytes),
          signed_bytes(r.bytes_change()), format_count(r.born), format_count(r.freed)})
      cells.push_back(std::move(cell));
    table.add(std::move(cells));
  }
  text += table.render(output_width());
  if (rows.size() > n) text += "(" + format_count(rows.size() - n) + " more; --top 0 lists all)\n";
  return emit_text(text) ? 0 : static_cast<int>(ExitCode::kIo);
}

}  // namespace

const Command kDiffCommand = {
    "diff",
    "what changed between two dumps: counts and bytes, born and freed",
    "heapq diff [--by class|site|gem] [--top N] BEFORE AFTER",
    "Compares two dumps of one process (or the first and last dump of a store): for\n"
    "each class (--by site: allocation site and class; --by gem: the gem that\n"
    "allocated), the objects and bytes after, their change since BEFORE, how many\n"
    "were born since BEFORE and how many of BEFORE's were freed; the largest growth\n"
    "in bytes first. Objects are matched across the dumps as heapq leaks matches\n"
    "them (memprof's seq, else address, class and GC generation). Every object of a\n"
    "dump counts, as heapq stats counts them. --format json gives by_class and\n"
    "by_site (and by_gem with --by gem).\n",
    kOptions,
    run,
};

}  // namespace heapq::cli
