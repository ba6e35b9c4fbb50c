#include "heapq/answer/ask/load.h"

#include <filesystem>

#include "heapq/analyze/profile_growth.h"
#include "heapq/answer/store_analyses.h"
#include "heapq/store/store.h"

namespace heapq {

namespace {

Result<std::string> store_path(const std::vector<std::string>& dumps,
                               const StoreLoadOptions& options) {
  std::string out = options.output;
  if (out.empty()) {
    if (dumps[0] == "-") return usage_error("load from stdin needs -o STORE");
    if (is_server_url(dumps[0])) return usage_error("load from a server's URL needs -o STORE");
    out = parse_store_ref(dumps[0]).file + ".db";
  }
  std::error_code ec;
  if (std::filesystem::is_directory(out, ec)) return usage_error(out + " is a directory");
  if (options.append && options.force) return usage_error("--append or --force, not both");
  if (std::filesystem::exists(out, ec) && options.append) {
    if (!is_sqlite_file(out)) return usage_error(out + " is not a store; --append adds to a store");
  } else if (std::filesystem::exists(out, ec)) {
    if (!options.force)
      return usage_error(out + " exists; pass --force to replace it (or --append)");
    // --force replaces a store, never another file, and never what this load reads.
    if (!is_sqlite_file(out))
      return usage_error(out + " is not a store; --force replaces only a store");
  }
  HEAPQ_RETURN_IF_ERROR(refuse_output_over_inputs(out, dumps));
  return out;
}

// What a load into a server stopped by a signal leaves: the dumps it added, none of the rest.
Error interrupted(const LoadAnswer& a, const std::string& path) {
  std::string added;
  for (const LoadAnswer::Dump& d : a.dumps)
    added += (added.empty() ? "#" : ", #") + std::to_string(d.id) + " (" + d.path + ")";
  for (const LoadAnswer::Profile& p : a.profiles)
    added +=
        (added.empty() ? "profile #" : ", profile #") + std::to_string(p.id) + " (" + p.path + ")";
  return {ExitCode::kInterrupted,
          "interrupted: " + path + " and any dump after it were not loaded; " +
              (added.empty() ? "this load added nothing to " + a.store
                             : "this load added " + added + " to " + a.store)};
}

// A sampled profile, as its live estimates by site.
Status add_profile(DumpWriter& writer, Input& input, const StoreLoadOptions& options,
                   const StoreLoadHooks& hooks, LoadAnswer& a) {
  HEAPQ_ASSIGN_OR_RETURN(const SampledProfile profile, load_profile(input));
  const std::string& path = input.path;
  const std::vector<FleetCount> sites = profile_site_counts(profile);
  if (hooks.writing) hooks.writing(a.store, true);
  auto id = writer.add_profile(path, profile, sites, options.tags);
  if (id) {
    LoadAnswer::Profile& p = a.profiles.emplace_back();
    p.id = *id;
    p.path = path;
    p.samples = profile.samples.size();
    for (const FleetCount& c : sites) {
      p.objects += c.count;
      p.bytes += c.bytes;
    }
    if (hooks.added) hooks.added("profile #" + std::to_string(*id));
  }
  if (hooks.writing) hooks.writing(a.store, false);
  return id ? Status(Ok{}) : Status(id.error());
}

// A dump, with the analyses the store keeps.
Status add_dump(DumpWriter& writer, Input& input, const StoreLoadOptions& options,
                const InputOptions& inputs, const StoreLoadHooks& hooks, LoadAnswer& a) {
  HEAPQ_ASSIGN_OR_RETURN(const LoadedDump dump, load(input, inputs));
  if (server_statements_cancelled()) return Error{ExitCode::kInterrupted, "interrupted"};
  if (hooks.writing) hooks.writing(a.store, true);
  auto id =
      writer.add(dump.path, dump.graph, dump.report, analyses_for_store(dump.graph), options.tags);
  if (id) {
    a.dumps.push_back({*id, dump.path, dump.graph.object_count(), dump.graph.edge_count()});
    if (hooks.added) hooks.added("#" + std::to_string(*id));
  }
  if (hooks.writing) hooks.writing(a.store, false);
  return id ? Status(Ok{}) : Status(id.error());
}

// Each input in the order given, opened as its turn comes (and closed once added), a profile
// or a dump by its content. A server commits each as it is added, so that what was added
// before a failure stays; one stopped by a signal (its statements cancelled) says what it added.
Status add_each(DumpWriter& writer, const std::vector<std::string>& paths,
                const StoreLoadOptions& options, const InputOptions& inputs,
                const StoreLoadHooks& hooks, LoadAnswer& a) {
  HEAPQ_RETURN_IF_ERROR(Inputs::refuse_streams_given_twice(paths));
  Inputs opened;
  for (const std::string& path : paths) {
    if (server_statements_cancelled()) return interrupted(a, input_name(path));
    HEAPQ_ASSIGN_OR_RETURN(Input* const input, opened.add(path));
    Status s = input->kind == InputKind::kProfile
                   ? add_profile(writer, *input, options, hooks, a)
                   : add_dump(writer, *input, options, inputs, hooks, a);
    input->file.reset();
    if (!s && s.error().code == ExitCode::kInterrupted) return interrupted(a, input->path);
    if (!s) return s;
  }
  return Ok{};
}

Result<LoadAnswer> load_to_server(const std::vector<std::string>& paths,
                                  const StoreLoadOptions& options, const InputOptions& inputs,
                                  const StoreLoadHooks& hooks) {
  if (options.force) return usage_error("--force replaces a store file; a server only adds dumps");
  if (parse_store_ref(options.output).file != options.output)
    return usage_error(
        "--to takes a server's URL without #N: a load adds dumps, numbered by the "
        "store");
  HEAPQ_ASSIGN_OR_RETURN(ServerWriter writer, ServerWriter::connect(options.output));
  LoadAnswer a;
  a.store = writer.name();
  a.server = true;
  HEAPQ_RETURN_IF_ERROR(add_each(writer, paths, options, inputs, hooks, a));
  return a;
}

}  // namespace

Result<LoadAnswer> answer_load(const std::vector<std::string>& dumps,
                               const StoreLoadOptions& options, const InputOptions& inputs,
                               const StoreLoadHooks& hooks) {
  if (dumps.empty()) return usage_error("load takes one or more DUMPs (see heapq load --help)");
  if (is_server_url(options.output)) return load_to_server(dumps, options, inputs, hooks);
  HEAPQ_ASSIGN_OR_RETURN(const std::string out, store_path(dumps, options));
  // A load that was killed leaves its temporary file: the next load of the store removes it.
  for (const std::string& stale : StoreWriter::stale_temp_paths(out)) {
    std::error_code ec;
    if (std::filesystem::remove(stale, ec) && hooks.removed_stale) hooks.removed_stale(stale);
  }
  std::error_code ec;
  const bool append = options.append && std::filesystem::exists(out, ec);
  HEAPQ_ASSIGN_OR_RETURN(StoreWriter writer,
                         append ? StoreWriter::append(out) : StoreWriter::create(out));
  if (hooks.writing_to) hooks.writing_to(writer.temp_path());
  LoadAnswer a;
  a.store = out;
  HEAPQ_RETURN_IF_ERROR(add_each(writer, dumps, options, inputs, hooks, a));
  HEAPQ_RETURN_IF_ERROR(writer.finish(options.force || append));
  a.bytes = std::filesystem::file_size(out, ec);
  return a;
}

}  // namespace heapq
