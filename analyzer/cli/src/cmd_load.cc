// heapq load: parses dumps once into a SQLite store that every command reads without parsing.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>

#include "command.h"
#include "heapq/answer/ask/load.h"
#include "heapq/render/terminal_text.h"
#include "input.h"
#include "output.h"

namespace heapq::cli {

namespace {

using O = StoreLoadOptions;

// --label KEY=VALUE, one more label of each dump.
constexpr Option<O> label_option() {
  return {"label",
          "KEY=VALUE",
          "a label recorded with each dump (deploy=abc123); may be repeated",
          [](Invocation<O>& in, std::string_view, const std::string& label) -> Status {
            const size_t eq = label.find('=');
            if (eq == std::string::npos || eq == 0)
              return usage_error("--label takes KEY=VALUE, not \"" + label + "\"");
            in.values.tags.labels.emplace_back(label.substr(0, eq), label.substr(eq + 1));
            return Ok{};
          },
          nullptr,
          true};
}

// --app NAME, --host NAME: a tag of each dump (Tag: its field of DumpTags).
template <auto Tag>
constexpr Option<O> tag_option(std::string_view name, std::string_view help) {
  return {name, "NAME", help, [](Invocation<O>& in, std::string_view, const std::string& value) {
            in.values.tags.*Tag = value;
            return Status(Ok{});
          }};
}

// --to URL: the store is a server's, named once (-o names a file).
constexpr Option<O> to_option() {
  return {
      "to", "URL", "load into a PostgreSQL server: postgresql://[USER@]HOST[:PORT]/DATABASE",
      [](Invocation<O>& in, std::string_view, const std::string& url) -> Status {
        if (!in.output.empty()) return usage_error("give the store once: -o FILE or --to URL");
        if (!is_server_url(url))
          return usage_error("--to takes a server's URL (postgresql://...); -o names a store file");
        in.values.output = url;
        return Ok{};
      }};
}

constexpr Option<O> kOptions[] = {
    Bind<O>::output("output", "STORE", "the store to write (default: the first dump's name + .db)"),
    Bind<O>::output("o", "STORE", "same as --output"),
    Bind<O>::flag<&O::force>("force", "replace an existing store"),
    Bind<O>::flag<&O::append>("append",
                              "add the dumps to an existing store (numbered after its dumps)"),
    to_option(),
    tag_option<&DumpTags::app>("app", "the application the dumps are of (recorded with each dump)"),
    label_option(),
    tag_option<&DumpTags::host>(
        "host", "the machine the dumps are of (default: what the dump says, else none)"),
};

// The options, the store -o FILE names unless --to URL is given.
Result<O> checked_options(const Invocation<O>& in) {
  HEAPQ_RETURN_IF_ERROR(in.output_once("store"));
  HEAPQ_ASSIGN_OR_RETURN(O options, in.options());
  if (!in.given("to")) options.output = in.output;
  return options;
}

// The temporary file of the store being written, for the signal handler (which may only make
// async-signal-safe calls, so the path is a plain char array, set while the signals wait).
char g_temp_path[4096];

extern "C" void remove_temp_and_reraise(int sig) {
  if (g_temp_path[0]) ::unlink(g_temp_path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// A load into a server: what it added so far ("#5, #6, profile #2"), and whether a dump or
// profile is being written.
char g_added[2048];
volatile std::sig_atomic_t g_server_writing = 0;

void append_added(const std::string& added) {
  const size_t used = std::strlen(g_added);
  if (used + added.size() + 3 < sizeof g_added)
    std::snprintf(g_added + used, sizeof g_added - used, "%s%s", used ? ", " : "", added.c_str());
}

// Stops a load into a server: the statements running are cancelled, and the load, seeing them
// fail, drops the dump it was writing and says what it added. Between two dumps' writing
// (reading a dump) nothing is left to undo: heapq says what it added and stops at once.
extern "C" void stop_server_load(int sig) {
  cancel_server_statements();
  if (g_server_writing) return;
  const char* parts[] = {"heapq: interrupted; this load added ", g_added[0] ? g_added : "nothing",
                         g_added[0] ? " to the store, nothing more\n" : " to the store\n"};
  for (const char* p : parts)
    if (::write(STDERR_FILENO, p, std::strlen(p)) < 0) break;
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
  void watch_server() {
    struct sigaction action {};
    action.sa_handler = stop_server_load;
    sigfillset(&action.sa_mask);
    for (int sig : kSignals) sigaction(sig, &action, nullptr);
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

Result<render::Answer> answer(const GlobalOptions& global, const Invocation<O>& in) {
  if (in.inputs.empty()) return usage_error("load takes one or more DUMPs (see heapq load --help)");
  HEAPQ_ASSIGN_OR_RETURN(const O options, checked_options(in));
  const bool status_line = !global.quiet && isatty(STDERR_FILENO);
  InterruptGuard guard;
  StoreLoadHooks hooks;
  hooks.writing_to = [&](const std::string& temp) { guard.watch(temp); };
  if (!global.quiet)
    hooks.removed_stale = [](const std::string& stale) {
      std::fprintf(stderr, "heapq: removed %s, left by an interrupted load\n",
                   escape_controls(stale).c_str());
    };
  hooks.writing = [status_line](const std::string& store, bool on) {
    g_server_writing = on;
    if (status_line && on)
      std::fprintf(stderr, "\rheapq: writing %s\033[K", escape_controls(store).c_str());
    else if (status_line)
      std::fprintf(stderr, "\r\033[K");
  };
  hooks.added = append_added;
  if (is_server_url(options.output)) guard.watch_server();
  HEAPQ_ASSIGN_OR_RETURN(LoadAnswer load,
                         answer_load(in.inputs, options, input_options(global), hooks));
  return render::Answer(std::move(load));
}

}  // namespace

const Command kLoadCommand = {
    "load",
    "save dumps in a store (a SQLite file, or a PostgreSQL server for many processes)",
    "heapq load [-o STORE] [--force | --append] [--app NAME] [--label KEY=VALUE]... DUMP...\n"
    "heapq load --to postgresql://... [--app NAME] [--label KEY=VALUE]... DUMP...",
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
    "only with --force, which replaces nothing but a store, and never one of the load's inputs.\n\n"
    "--to URL loads into a PostgreSQL server instead, where the dumps of many processes and\n"
    "hosts go into one store, numbered by the server; many loads may run at once. Each dump is\n"
    "one transaction: visible once complete, gone if the load fails or is killed. URL is libpq's\n"
    "(postgresql://USER@HOST/DB?sslmode=require); libpq's PG* variables fill in what it leaves\n"
    "out (PGPASSWORD, or ~/.pgpass, for a password); a password is never printed. The first load\n"
    "makes the store's tables in the schema heapq of that database. Every command then reads a\n"
    "dump of it as URL#N (heapq stats postgresql://db.example/heapq#42), or URL for the last.\n"
    "--app, --label and --host tag each dump (dumps.app, labels, host): heapq fleet groups by\n"
    "them.\n\n"
    "A DUMP may be a sampled profile (Memprof.profile, MEMPROF_PROFILE_EVERY's .pb.gz files),\n"
    "known by its content: it goes into the store's profiles table, numbered apart from the\n"
    "dumps, as its live estimates by allocation site and class (profile_sites); heapq fleet\n"
    "reads it.\n",
    specs_of<kOptions>,
    run_answer<kOptions, answer>,
};

}  // namespace heapq::cli
