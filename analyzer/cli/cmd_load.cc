// heapq load: parses dumps once into a SQLite store that every command reads without parsing.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "cli/command.h"
#include "cli/input.h"
#include "cli/output.h"
#include "heapq/store.h"
#include "render/text/terminal_text.h"

namespace heapq::cli {

namespace {

constexpr OptionSpec kOptions[] = {
    {"output", "STORE", "the store to write (default: the first dump's name + .db)"},
    {"o", "STORE", "same as --output"},
    {"force", "", "replace an existing store"},
    {"append", "", "add the dumps to an existing store (numbered after its dumps)"},
};

// The temporary file of the store being written, for the signal handler (which may only make
// async-signal-safe calls, so the path is a plain char array, set while the signals wait).
char g_temp_path[4096];

extern "C" void remove_temp_and_reraise(int sig) {
  if (g_temp_path[0]) ::unlink(g_temp_path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Removes the unfinished store on Ctrl-C, kill or a closed terminal; restores the handlers
// when the load is over. The signals wait from construction until watch() names the file, so
// that none comes between its creation and the handler knowing it.
class InterruptGuard {
 public:
  InterruptGuard() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kSignals) sigaddset(&set, sig);
    sigprocmask(SIG_BLOCK, &set, &blocked_);
    struct sigaction action {};
    action.sa_handler = remove_temp_and_reraise;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &action, &saved_[i]);
  }
  void watch(const std::string& temp) {
    std::snprintf(g_temp_path, sizeof g_temp_path, "%s", temp.c_str());
    unblock();
  }
  ~InterruptGuard() {
    unblock();
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &saved_[i], nullptr);
    g_temp_path[0] = '\0';
  }

 private:
  void unblock() {
    if (waiting_) sigprocmask(SIG_SETMASK, &blocked_, nullptr);
    waiting_ = false;
  }
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction saved_[3];
  sigset_t blocked_;  // the mask before
  bool waiting_ = true;
};

Result<std::string> output_path(const ParsedArgs& args) {
  auto given = get_output_path(args, "store");
  if (!given) return given.error();
  std::string out = std::move(*given);
  if (out.empty()) {
    const std::string& first = args.positional()[0];
    if (first == "-") return usage_error("load from stdin needs -o STORE");
    out = parse_store_ref(first).file + ".db";
  }
  std::error_code ec;
  if (std::filesystem::is_directory(out, ec)) return usage_error(out + " is a directory");
  if (args.has("append") && args.has("force")) return usage_error("--append or --force, not both");
  if (std::filesystem::exists(out, ec) && args.has("append")) {
    if (!is_sqlite_file(out)) return usage_error(out + " is not a store; --append adds to a store");
  } else if (std::filesystem::exists(out, ec)) {
    if (!args.has("force"))
      return usage_error(out + " exists; pass --force to replace it (or --append)");
    // --force replaces a store, never another file, and never what this load reads.
    if (!is_sqlite_file(out))
      return usage_error(out + " is not a store; --force replaces only a store");
  }
  if (Status s = refuse_output_over_inputs(out, args.positional()); !s) return s.error();
  return out;
}

struct Loaded {
  int64_t id;
  std::string path;
  uint64_t objects, edges;
};

// "STORE#N: DUMP, counts" within the output's width: when the two paths do not fit, each
// keeps at least half the room (all it needs when the other is short), giving up its middle.
std::string dump_line(const std::string& store, const std::string& id, const std::string& dump,
                      const std::string& counts) {
  std::string s = escape_controls(store), d = escape_controls(dump);
  const size_t width = output_width();
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

std::string render(const std::string& store, const std::vector<Loaded>& loaded,
                   OutputFormat format) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(store, ec);
  if (format != OutputFormat::kJson) {
    std::string out;
    for (const Loaded& l : loaded)
      out += dump_line(store, "#" + std::to_string(l.id), l.path,
                       ", " + counted(l.objects, "object", "objects") + ", " +
                           counted(l.edges, "reference", "references")) +
             "\n";
    return out + store + ": " + format_bytes(size) + "\n";
  }
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  json_key(w, "store");
  json_string(w, store);
  json_key(w, "bytes");
  w.Uint64(size);
  json_key(w, "dumps");
  w.StartArray();
  for (const Loaded& l : loaded) {
    w.StartObject();
    json_key(w, "id");
    w.Int64(l.id);
    json_key(w, "path");
    json_string(w, l.path);
    json_key(w, "objects");
    w.Uint64(l.objects);
    json_key(w, "references");
    w.Uint64(l.edges);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

int run(const GlobalOptions& global, const ParsedArgs& args) {
  if (args.positional().empty())
    return report_error(usage_error("load takes one or more DUMPs (see heapq load --help)"));
  auto out = output_path(args);
  if (!out) return report_error(out.error());
  // A load that was killed leaves its temporary file: the next load of the store removes it.
  for (const std::string& stale : StoreWriter::stale_temp_paths(*out)) {
    std::error_code ec;
    if (std::filesystem::remove(stale, ec) && !global.quiet)
      std::fprintf(stderr, "heapq: removed %s, left by an interrupted load\n",
                   escape_controls(stale).c_str());
  }
  std::error_code ec;
  const bool append = args.has("append") && std::filesystem::exists(*out, ec);
  InterruptGuard guard;
  auto writer = append ? StoreWriter::append(*out) : StoreWriter::create(*out);
  if (!writer) return report_error(writer.error());
  guard.watch(writer->temp_path());
  std::vector<Loaded> loaded;
  for (const std::string& path : args.positional()) {
    auto dump = load_input(path, global);
    if (!dump) return report_error(dump.error());
    if (!global.quiet && isatty(STDERR_FILENO))
      std::fprintf(stderr, "\rheapq: writing %s\033[K", escape_controls(*out).c_str());
    auto id = writer->add(dump->path, dump->graph, dump->report);
    if (!global.quiet && isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
    if (!id) return report_error(id.error());
    loaded.push_back({*id, dump->path, dump->graph.object_count(), dump->graph.edge_count()});
  }
  if (Status s = writer->finish(args.has("force") || append); !s) return report_error(s.error());
  const std::string text = render(*out, loaded, global.format);
  const bool ok = global.format == OutputFormat::kJson ? emit(text) : emit_text(text);
  return ok ? 0 : static_cast<int>(ExitCode::kIo);
}

}  // namespace

const Command kLoadCommand = {
    "load",
    "save dumps in a SQLite store: parsed once, reopened at once, queried with heapq sql",
    "heapq load [-o STORE] [--force | --append] DUMP...",
    "Parses each DUMP (a dump file, gzip or not, or - for stdin) and writes it into a SQLite\n"
    "store with its analyses: immediate dominator, retained bytes and count, and distance from\n"
    "the GC roots of every object (schema: schemas/store.sql). Several dumps of one process go\n"
    "into one store, numbered 1, 2, ... in the order given; --append adds them to an existing\n"
    "store, numbered after its own.\n\n"
    "Every command that takes a dump takes a store instead, with the same answer: STORE reads\n"
    "its last dump, STORE#N dump N (heapq stats app.db#1). A store is known by its content\n"
    "(SQLite's header), not by its name. heapq sql STORE \"SELECT ...\" queries it.\n\n"
    "The store is written to a temporary file in the same directory and renamed when complete:\n"
    "an interrupted load leaves nothing under the store's name (the next load removes its\n"
    "temporary file). An existing store, also one that appears while the load runs, is replaced\n"
    "only with --force, which replaces nothing but a store, and never one of the load's inputs.\n",
    kOptions,
    run,
};

}  // namespace heapq::cli
