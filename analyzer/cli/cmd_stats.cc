// heapq stats: totals, and counts and bytes by type and by class.
#include "cli/command.h"
#include "cli/input.h"
#include "cli/output.h"
#include "heapq/dominators.h"
#include "heapq/stats.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"top", "N", "classes to list, largest first (default 20; 0 lists all)"},
    {"sort", "KEY", "order by bytes (default) or count"},
    {"retained", "", "also compute retained bytes (dominators; slower, more memory)"},
};

std::string render_text(const LoadedDump& dump, const HeapStats& stats, size_t top) {
  std::string out = dump.name + ": " + counted(stats.objects, "object", "objects") + ", " +
                    format_bytes(stats.bytes) + " (" + counted(stats.bytes, "byte", "bytes") +
                    ")\n\n";
  TextTable types({"type", "count", "bytes"}, {false, true, true});
  for (const TypeTotals& t : stats.by_type)
    types.add(
        {std::string(object_type_name(t.type)), format_count(t.count), format_bytes(t.bytes)});
  out += types.render(output_width()) + "\n";
  const bool retained = !stats.by_class.empty() && stats.by_class[0].retained_bytes;
  TextTable classes(retained ? std::vector<std::string>{"class", "count", "bytes", "retained"}
                             : std::vector<std::string>{"class", "count", "bytes"},
                    {false, true, true, true});
  for (size_t i = 0; i < stats.by_class.size() && i < top; ++i) {
    const ClassTotals& c = stats.by_class[i];
    std::vector<std::string> row = {std::string(dump.graph.class_name(c.cls)),
                                    format_count(c.count), format_bytes(c.bytes)};
    if (retained) row.push_back(format_bytes(*c.retained_bytes));
    classes.add(std::move(row));
  }
  out += classes.render(output_width());
  if (top < stats.by_class.size())
    out += "(" + counted(stats.by_class.size() - top, "more class", "more classes") +
           "; --top 0 lists all)\n";
  return out;
}

std::string render_json(const LoadedDump& dump, const HeapStats& stats, size_t top) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  write_input_json(w, dump);
  json_key(w, "objects");
  w.Uint64(stats.objects);
  json_key(w, "bytes");
  w.Uint64(stats.bytes);
  json_key(w, "by_type");
  w.StartArray();
  for (const TypeTotals& t : stats.by_type) {
    w.StartObject();
    json_key(w, "type");
    json_string(w, object_type_name(t.type));
    json_key(w, "count");
    w.Uint64(t.count);
    json_key(w, "bytes");
    w.Uint64(t.bytes);
    w.EndObject();
  }
  w.EndArray();
  json_key(w, "classes");
  w.Uint64(stats.by_class.size());
  json_key(w, "by_class");
  w.StartArray();
  for (size_t i = 0; i < stats.by_class.size() && i < top; ++i) {
    const ClassTotals& c = stats.by_class[i];
    w.StartObject();
    json_key(w, "class");
    json_string(w, dump.graph.class_name(c.cls));
    json_key(w, "count");
    w.Uint64(c.count);
    json_key(w, "bytes");
    w.Uint64(c.bytes);
    json_key(w, "retained_bytes");
    json_optional(w, c.retained_bytes);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

int run(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().size() != 1)
    return report_error(usage_error("stats takes one INPUT (see heapq stats --help)"));
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
  HeapStats stats = compute_stats(dump->graph, *sort, dominators ? &*dominators : nullptr, n);
  bool ok = global.format == OutputFormat::kJson ? emit(render_json(*dump, stats, n))
                                                 : emit_text(render_text(*dump, stats, n));
  return ok ? 0 : static_cast<int>(ExitCode::kIo);
}

}  // namespace

const Command kStatsCommand = {
    "stats",
    "object counts and bytes by type and by class",
    "heapq stats [--top N] [--sort bytes|count] [--retained] INPUT",
    "Counts the live objects of the dump and their memory (memsize, as Ruby reports it), in all,\n"
    "by type (STRING, ARRAY, ...) and by class, largest first. INPUT is a dump file from\n"
    "ObjectSpace.dump_all or Memprof.dump_all, plain or gzip, or - for stdin. --retained adds\n"
    "each class's retained bytes: what freeing all its instances at once would free, including\n"
    "what they hold together though none of them alone does (one walk of the heap per row shown\n"
    "at worst: keep --top small on big dumps).\n",
    kOptions,
    run,
};

}  // namespace heapq::cli
