#include "heapq/input/inputs.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "heapq/analyze/dump_order.h"
#include "heapq/model/load.h"
#include "heapq/read/parsed_chunk.h"

namespace heapq {

namespace {

// The META record a dump opens with (memprof's: pid, time), read by the dump reader's parser;
// none when the first line is another record or none.
std::optional<DumpOrigin> meta_origin(const std::string& first_line) {
  std::vector<char> text(first_line.begin(), first_line.end());
  text.push_back('\0');  // the parser ends the line with a NUL of its own
  ParsedChunk chunk;
  parse_chunk(text.data(), first_line.size(), false, chunk);
  return chunk.origin;
}

// Every input is held open until loaded: room for a command given a thousand dumps, and a
// usage error, before any is opened, for more than the system lets a process open beside the
// few files a command opens of its own (standard streams, -o and its temporary, a store).
Status allow_open_files(size_t inputs) {
  constexpr rlim_t kOwnFiles = 16;  // what a command needs open beside its inputs
  constexpr rlim_t kRoom = 64;      // what the soft limit is raised to leave free, when it can
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return Ok{};
  if (limit.rlim_max < inputs + kOwnFiles)
    return usage_error(std::to_string(inputs) + " inputs, but a process may open " +
                       std::to_string(limit.rlim_max) + " files (ulimit -Hn): give fewer");
  if (limit.rlim_cur >= inputs + kRoom) return Ok{};
  limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, inputs + kRoom);
  ::setrlimit(RLIMIT_NOFILE, &limit);
  return Ok{};
}

// Whether a path names a regular file, which opening does not block on (a FIFO would).
bool regular_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

Result<StoreConnection*> Inputs::connect(const std::string& file) {
  auto it = stores_.find(file);
  if (it == stores_.end()) {
    HEAPQ_ASSIGN_OR_RETURN(StoreConnection db, StoreConnection::open(file));
    it = stores_.emplace(file, std::make_unique<StoreConnection>(std::move(db))).first;
  }
  return it->second.get();
}

StoreConnection* Inputs::store(const std::string& file) const {
  auto it = stores_.find(file);
  return it == stores_.end() ? nullptr : it->second.get();
}

// One open, one look at the first bytes: a store's (SQLite's header, or a server's URL), a
// profile's, else a dump's, its META read.
Result<Input*> Inputs::add(const std::string& path) {
  auto kept = std::make_unique<Input>();
  Input& in = *kept;
  const StoreRef ref = path == "-" ? StoreRef{path, 0} : parse_store_ref(path);
  in.path = input_name(path);  // for messages: no password
  if (!is_server_url(ref.file)) {
    // "app.db#2" names dump 2 of app.db when app.db is a store. Only a regular file is looked
    // into (opening a FIFO would wait for a writer); else the path is a file's own.
    const bool maybe_store = ref.file == path || regular_file(ref.file);
    HEAPQ_ASSIGN_OR_RETURN(OpenedInput file, OpenedInput::open(maybe_store ? ref.file : path));
    const bool store = maybe_store && has_sqlite_header(file.raw_head(kSqliteHeaderBytes));
    if (!store && maybe_store && ref.file != path) {
      HEAPQ_ASSIGN_OR_RETURN(file, OpenedInput::open(path));
    }
    if (!store) {
      in.file = std::move(file);
      HEAPQ_ASSIGN_OR_RETURN(const OpenedInput::Peek peek, in.file->peek(64 << 10));
      in.kind = looks_like_profile(peek.head) ? InputKind::kProfile : InputKind::kDump;
      if (in.kind == InputKind::kDump) in.origin = meta_origin(peek.first_line);
      return inputs_.emplace_back(std::move(kept)).get();
    }
  }  // a store's file is closed: SQLite opens it itself
  in.kind = InputKind::kStore;
  HEAPQ_ASSIGN_OR_RETURN(in.store, connect(ref.file));
  in.dump = ref.dump;
  if (const StoredDump* d = find_stored_dump(in.store->dumps(), ref.dump)) in.origin = d->origin;
  return inputs_.emplace_back(std::move(kept)).get();
}

// stat, not open: a FIFO does not block. Whatever is neither a regular file nor a directory
// ("-" whatever it is) is read once.
Status Inputs::refuse_streams_given_twice(const std::vector<std::string>& paths) {
  std::set<std::pair<uint64_t, uint64_t>> streams;  // device and inode
  for (const std::string& path : paths) {
    struct stat st;
    const bool found = path == "-" ? ::fstat(0, &st) == 0 : ::stat(path.c_str(), &st) == 0;
    if (!found || (path != "-" && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))) continue;
    if (!streams.emplace(st.st_dev, st.st_ino).second)
      return usage_error(path + " is given twice, but a pipe (or stdin) can be read only once");
  }
  return Ok{};
}

Result<Inputs> Inputs::open(const std::vector<std::string>& paths) {
  HEAPQ_RETURN_IF_ERROR(allow_open_files(paths.size()));
  HEAPQ_RETURN_IF_ERROR(refuse_streams_given_twice(paths));
  Inputs inputs;
  for (const std::string& path : paths) HEAPQ_RETURN_IF_ERROR(inputs.add(path));
  return inputs;
}

Result<Inputs> Inputs::open_over_time(const std::vector<std::string>& paths) {
  HEAPQ_ASSIGN_OR_RETURN(Inputs inputs, open(paths));
  // An empty store stays one input, which says so when read.
  if (inputs.size() != 1 || inputs.inputs_[0]->kind != InputKind::kStore ||
      inputs.inputs_[0]->dump != 0 || inputs.inputs_[0]->store->dumps().empty())
    return inputs;
  const std::unique_ptr<Input> store = std::move(inputs.inputs_[0]);
  inputs.inputs_.clear();
  const std::string file = parse_store_ref(store->path).file;
  for (const StoredDump& d : store->store->dumps()) {
    auto& in = *inputs.inputs_.emplace_back(std::make_unique<Input>());
    in.path = file + "#" + std::to_string(d.id);
    in.kind = InputKind::kStore;
    in.origin = d.origin;
    in.store = store->store;
    in.dump = d.id;
  }
  return inputs;
}

std::vector<Input*> Inputs::all() {
  std::vector<Input*> out;
  for (const std::unique_ptr<Input>& in : inputs_) out.push_back(in.get());
  return out;
}

namespace {

// A store's dump: the graph rebuilt from its tables, the report the one saved at load time.
Result<LoadedDump> load_stored(const Input& in, bool references, const std::string& app_root) {
  LoadedDump dump;
  dump.path = in.path;
  StoredDump which;
  auto graph = in.store->read(in.dump, dump.report, &which, references, app_root);
  if (!graph) return graph.error();
  dump.name = in.store->name() + "#" + std::to_string(which.id);
  dump.app = which.app;
  dump.graph = std::move(*graph);
  return dump;
}

LoadOptions load_options(const InputOptions& options, Needs needs) {
  LoadOptions load;
  load.strict = options.strict;
  load.threads = options.threads;
  load.references = needs != Needs::kObjectsOnly && needs != Needs::kValues;
  load.values = needs == Needs::kValues;
  load.max_line_bytes = static_cast<size_t>(options.max_line_mib) << 20;
  load.app_root = options.app_root;
  return load;
}

// A dump file, stdin or a pipe: read from its start through the source opened for it.
Result<LoadedDump> load_file(Input& in, const InputOptions& options, Needs needs) {
  HEAPQ_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, in.file->content());
  LoadOptions load = load_options(options, needs);
  if (options.progress) load.progress = options.progress(in.path);
  LoadedDump dump;
  dump.path = dump.name = in.path == "-" ? "<stdin>" : in.path;
  auto graph = load_dump(*source, load, dump.report);
  load.progress = nullptr;  // done: a progress bar clears its line
  if (!graph) return graph.error();
  dump.graph = std::move(*graph);
  return dump;
}

}  // namespace

Result<LoadedDump> load(Input& in, const InputOptions& options, Needs needs) {
  if (in.kind == InputKind::kProfile)  // known by its first bytes: not read as a dump
    return usage_error(in.path +
                       ": a sampled profile (Memprof.profile), not a dump: heapq leaks, load and "
                       "fleet read profiles");
  if (in.kind == InputKind::kStore && needs == Needs::kValues)
    return usage_error(in.path + ": a store keeps no string values; give the dump file itself");
  auto dump = in.kind == InputKind::kStore
                  ? load_stored(in, needs == Needs::kGraph, options.app_root)
                  : load_file(in, options, needs);
  if (dump && options.loaded) options.loaded(*dump);
  return dump;
}

Result<LoadedDump> load_input(const std::string& path, const InputOptions& options, Needs needs) {
  HEAPQ_ASSIGN_OR_RETURN(Inputs inputs, Inputs::open({path}));
  return load(*inputs.all().front(), options, needs);
}

Result<SampledProfile> load_profile(Input& in) {
  HEAPQ_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, in.file->content());
  return read_sampled_profile(*source);
}

ByProcess group_by_process(const std::vector<Input*>& inputs) {
  // The order heapq lists processes in: by pid, then host and start.
  auto by_pid = [](const ProcessKey& a, const ProcessKey& b) {
    return std::tie(a.pid, a.host, a.started) < std::tie(b.pid, b.host, b.started);
  };
  std::map<ProcessKey, std::vector<Input*>, decltype(by_pid)> of(by_pid);
  ByProcess out;
  for (Input* in : inputs) {
    if (in->origin && in->origin->pid != 0)
      of[process_of(*in->origin)].push_back(in);
    else
      out.unknown.push_back(in);
  }
  for (auto& [process, its] : of) out.processes.push_back({process, std::move(its)});
  return out;
}

bool take_in_written_order(std::vector<Input*>& inputs) {
  std::vector<const DumpOrigin*> origins;
  for (const Input* in : inputs) origins.push_back(in->origin ? &*in->origin : nullptr);
  bool moved = false;
  std::vector<Input*> sorted;
  for (size_t i : written_order(origins)) {
    moved = moved || i != sorted.size();
    sorted.push_back(inputs[i]);
  }
  inputs = std::move(sorted);
  return moved;
}

Status refuse_output_over_inputs(const std::string& output,
                                 const std::vector<std::string>& inputs) {
  struct stat out;
  if (output.empty() || ::stat(output.c_str(), &out) != 0 || !S_ISREG(out.st_mode)) return Ok{};
  for (const std::string& input : inputs) {
    struct stat in;
    if (input == "-" || ::stat(parse_store_ref(input).file.c_str(), &in) != 0) continue;
    if (in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      return usage_error(output + " is also an input (" + input + "); write the output elsewhere");
  }
  return Ok{};
}

}  // namespace heapq
