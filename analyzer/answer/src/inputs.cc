#include "heapq/answer/inputs.h"

#include <rapidjson/document.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "heapq/analyze/dump_order.h"
#include "heapq/analyze/retainers.h"
#include "heapq/answer/wording.h"
#include "heapq/read/byte_source.h"
#include "heapq/read/dump_time.h"
#include "heapq/store/store.h"

namespace heapq {

namespace {

std::string first_lines(const std::vector<LineIssue>& issues) {
  std::string out;
  for (const LineIssue& i : issues) {
    out += out.empty() ? " (" : "; ";
    out += "line " + std::to_string(i.line) + ": " + i.message;
  }
  return out.empty() ? out : out + ")";
}

// A store (heapq load): the graph is rebuilt from its tables, the report is the one saved at
// load time. PATH may end in #N to pick a dump other than the last.
Result<LoadedDump> load_store(const std::string& path, const StoreRef& ref, bool references,
                              const std::string& app_root) {
  LoadedDump dump;
  const bool server = is_server_url(ref.file);
  dump.path = server ? redact_url(path) : path;
  StoredDump which;
  auto graph = read_store(ref.file, ref.dump, dump.report, &which, references, app_root);
  if (!graph) return graph.error();
  dump.name = (server ? redact_url(ref.file) : ref.file) + "#" + std::to_string(which.id);
  dump.app = which.app;
  dump.graph = std::move(*graph);
  return dump;
}

}  // namespace

std::vector<std::string> load_warnings(const LoadedDump& d) {
  const LoadReport& r = d.report;
  std::vector<std::string> w;
  const std::string& p = d.path;
  if (r.bad_lines)
    w.push_back(p + ": " + counted(r.bad_lines, "bad line", "bad lines") + " skipped" +
                first_lines(r.first_bad_lines));
  if (r.repaired_strings)
    w.push_back(p + ": " + counted(r.repaired_strings, "string", "strings") +
                " with bytes that are not UTF-8 kept with U+FFFD in their place" +
                first_lines(r.first_repaired_strings));
  if (!r.damage.empty()) w.push_back(p + ": " + r.damage + "; read what came before it");
  if (r.missing_end) w.push_back(p + ": the memprof dump has no END record: it is truncated");
  if (r.end_records >= 0 && static_cast<uint64_t>(r.end_records) + 1 != r.lines)
    w.push_back(p + ": the END record announces " +
                counted(static_cast<uint64_t>(r.end_records), "record", "records") + " but " +
                counted(r.lines - 1, "line precedes", "lines precede") + " it");
  if (r.dangling_references)
    w.push_back(p + ": " + counted(r.dangling_references, "reference", "references") +
                " to addresses that are not in the dump ignored" +
                (r.format == DumpFormat::kObjectSpace && r.bad_lines == 0
                     ? " (ObjectSpace wrote the dump while the program ran on): objects the roots "
                       "do not reach in it may be alive"
                     : ": objects the roots do not reach in it may be alive"));
  if (r.dangling_classes)
    w.push_back(p + ": " + counted(r.dangling_classes, "object", "objects") +
                " whose class is not in the dump (shown as \"(unknown class 0x...)\")");
  // Without a root edge nothing is reachable, whether ROOT records are missing or point
  // nowhere (a dump cut short, say): every object would read as garbage without a word.
  if (d.graph.roots().empty())
    w.push_back(p +
                (r.roots == 0 ? ": no GC roots (ROOT records) in the dump"
                              : ": no GC root (ROOT record) references an object of the dump") +
                ": nothing is reachable, so every object counts as unreachable garbage and retains "
                "nothing");
  return w;
}

bool lacks_referenced_objects(const LoadReport& r) {
  return r.dangling_references > 0;
}

Result<std::vector<std::string>> dumps_over_time(const std::vector<std::string>& paths) {
  if (paths.size() != 1 || paths[0] == "-") return paths;
  const StoreRef ref = parse_store_ref(paths[0]);
  if (ref.dump != 0 || !is_store(ref)) return paths;
  auto stored = list_stored_dumps(ref.file);
  if (!stored) return stored.error();
  std::vector<std::string> out;
  for (const StoredDump& d : *stored) out.push_back(ref.file + "#" + std::to_string(d.id));
  return out;
}

Status check_one_process(const std::vector<const LoadedDump*>& dumps, bool as_given) {
  if (as_given || dumps.empty()) return Ok{};
  const char* const kHint = " (--as-given compares them all the same)";
  const LoadedDump& last = *dumps.back();
  const DumpOrigin& b = last.report.origin;
  const std::optional<int64_t> tb = epoch_microseconds(b.time);
  for (size_t j = 0; j + 1 < dumps.size(); ++j) {
    const DumpOrigin& a = dumps[j]->report.origin;
    if (a.pid != 0 && b.pid != 0 && a.pid != b.pid)
      return usage_error(
          dumps[j]->name + " is a dump of process " + std::to_string(a.pid) + ", " + last.name +
          " of process " + std::to_string(b.pid) +
          ": objects of different processes never match, so every one would count as born or "
          "freed; give dumps of one process" +
          kHint);
    // Oldest first: by time, else by GC count. Every earlier dump, not only the one before: a
    // dump that says nothing may stand between two that do.
    const std::optional<int64_t> ta = epoch_microseconds(a.time);
    std::string why;
    if (ta && tb && *tb < *ta)
      why = "at " + b.time.substr(0, 40) + ", the other at " + a.time.substr(0, 40);
    else if ((!ta || !tb || *ta == *tb) && a.pid != 0 && a.pid == b.pid && a.gc_count >= 0 &&
             b.gc_count >= 0 && b.gc_count < a.gc_count)
      why = "after " + counted(static_cast<uint64_t>(b.gc_count), "GC run", "GC runs") +
            ", the other after " + format_count(static_cast<uint64_t>(a.gc_count));
    if (!why.empty())
      return usage_error(last.name + " was dumped before " + dumps[j]->name + " (" + why +
                         "), yet given after it: give the dumps oldest first" + kHint);
  }
  return Ok{};
}

namespace {

// Inputs that are not regular files (a pipe, a FIFO) with the bytes read to peek at their
// META: opened again, they would have lost those. load_input takes them from here.
std::mutex peeked_mutex;
std::map<std::string, std::unique_ptr<ByteSource>> peeked_inputs;

void keep_if_read_once(const std::string& path, std::unique_ptr<ByteSource> source) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return;
  std::lock_guard lock(peeked_mutex);
  peeked_inputs.try_emplace(path, std::move(source));
}

bool already_peeked(const std::string& path) {
  std::lock_guard lock(peeked_mutex);
  return peeked_inputs.contains(path);
}

// The input, opened once: as peek_origin left it, or now.
Result<std::unique_ptr<ByteSource>> open_once(const std::string& path) {
  {
    std::lock_guard lock(peeked_mutex);
    if (auto it = peeked_inputs.find(path); it != peeked_inputs.end()) {
      std::unique_ptr<ByteSource> source = std::move(it->second);
      peeked_inputs.erase(it);
      return source;
    }
  }
  return open_input(path);
}

// The META record a dump file opens with (memprof's: pid, time), read before the dump is, or
// what a store's dumps table says of a dump (STORE#N; `stored` keeps each store's list, read
// once): none for stdin or a file that does not open with one.
std::optional<DumpOrigin> peek_origin(const std::string& path,
                                      std::map<std::string, std::vector<StoredDump>>& stored) {
  if (path == "-" || already_peeked(path)) return std::nullopt;  // read once, never twice
  if (const StoreRef ref = parse_store_ref(path); is_store(ref)) {
    auto it = stored.find(ref.file);
    if (it == stored.end()) {
      auto listed = list_stored_dumps(ref.file);
      it = stored.emplace(ref.file, listed ? std::move(*listed) : std::vector<StoredDump>()).first;
    }
    const StoredDump* found = find_stored_dump(it->second, ref.dump);
    return found ? std::optional<DumpOrigin>(found->origin) : std::nullopt;
  }
  auto peeked = peek_first_line(path, 64 << 10);
  if (!peeked) return std::nullopt;
  const std::string& line = peeked->first_line;
  keep_if_read_once(path, std::move(peeked->source));
  rapidjson::Document meta;
  meta.Parse(line.data(), line.size());
  if (meta.HasParseError() || !meta.IsObject()) return std::nullopt;
  // HasMember and operator[]: clang finds rapidjson's member iterators' != ambiguous in C++20.
  auto string = [&](const char* key) {
    return meta.HasMember(key) && meta[key].IsString()
               ? std::string(meta[key].GetString(), meta[key].GetStringLength())
               : std::string();
  };
  if (string("type") != "META") return std::nullopt;
  DumpOrigin origin;
  if (meta.HasMember("pid") && meta["pid"].IsUint64()) origin.pid = meta["pid"].GetUint64();
  origin.time = string("time");
  if (meta.HasMember("gc_count") && meta["gc_count"].IsInt64())
    origin.gc_count = meta["gc_count"].GetInt64();
  origin.host = string("host");
  origin.started = string("started");
  return origin;
}

// Dumps of one process with their META records (none where a dump has none).
struct Peeked {
  uint64_t pid = 0;
  std::string host, started;  // as META says; empty: unknown
  std::vector<std::string> paths;
  std::vector<std::optional<DumpOrigin>> origins;
};

// Paths by the process their META records name, each in the order given, processes by pid;
// one group for dumps of one process. Each dump's META is read here, once.
Result<std::vector<Peeked>> peek_by_process(const std::vector<std::string>& paths) {
  // A process: its host, pid and start (a pid alone repeats across hosts and over time).
  std::map<std::tuple<uint64_t, std::string, std::string>, Peeked> by_pid;
  std::map<std::string, std::vector<StoredDump>> stored;
  Peeked all;
  std::vector<std::string> unknown;
  for (const std::string& path : paths) {
    std::optional<DumpOrigin> origin = peek_origin(path, stored);
    if (origin && origin->pid != 0) {
      Peeked& p = by_pid[{origin->pid, origin->host, origin->started}];
      p.pid = origin->pid;
      p.host = origin->host;
      p.started = origin->started;
      p.paths.push_back(path);
      p.origins.push_back(origin);
    } else {
      unknown.push_back(path);
    }
    all.paths.push_back(path);
    all.origins.push_back(std::move(origin));
  }
  if (by_pid.size() <= 1) {
    if (!by_pid.empty()) std::tie(all.pid, all.host, all.started) = by_pid.begin()->first;
    return std::vector<Peeked>{std::move(all)};
  }
  if (!unknown.empty())
    return usage_error(unknown.front() +
                       " does not say which process it is of (no META pid), among "
                       "dumps of " +
                       format_count(by_pid.size()) +
                       " processes: give the dumps of "
                       "one process (memprof names them memprof-PID-*.jsonl)");
  std::vector<Peeked> out;
  for (auto& [pid, p] : by_pid) out.push_back(std::move(p));
  return out;
}

Error several_processes(const std::vector<Peeked>& processes) {
  std::string which;
  for (const Peeked& p : processes) {
    which += (which.empty() ? "" : "; ") + process_name(p.pid, p.host) + ": ";
    for (size_t i = 0; i < p.paths.size() && i < 3; ++i) which += (i ? ", " : "") + p.paths[i];
    if (p.paths.size() > 3) which += " and " + format_count(p.paths.size() - 3) + " more";
  }
  return usage_error("the dumps are of " + format_count(processes.size()) + " processes (" + which +
                     "): objects of different processes never match, so every one would "
                     "count as born or freed; give the dumps of one process (memprof names "
                     "them memprof-PID-*.jsonl; heapq leaks takes each process on its own), "
                     "or --as-given to compare them all the same");
}

// One process's dumps in the order their META records say they were written (time, then GC
// count), when every one says, told through options.note when that is not the order given.
void order_by_time(Peeked& p, const InputOptions& options) {
  std::vector<const DumpOrigin*> origins;
  for (const std::optional<DumpOrigin>& o : p.origins) origins.push_back(o ? &*o : nullptr);
  bool moved = false;
  std::vector<std::string> sorted;
  for (size_t i : written_order(origins)) {
    moved = moved || i != sorted.size();
    sorted.push_back(p.paths[i]);
  }
  if (!moved) return;
  p.paths = std::move(sorted);
  if (options.note) {
    std::string order;
    for (const std::string& path : p.paths) order += (order.empty() ? "" : ", ") + path;
    options.note(
        "taking the dumps in the order they were written (their META time), not as given: " +
        order);
  }
}

}  // namespace

Status take_in_time_order(std::vector<std::string>& paths, const InputOptions& options) {
  HEAPQ_ASSIGN_OR_RETURN(std::vector<Peeked> processes, peek_by_process(paths));
  if (processes.size() > 1) return several_processes(processes);
  order_by_time(processes.front(), options);
  paths = std::move(processes.front().paths);
  return Ok{};
}

Result<std::vector<ProcessDumps>> dumps_by_process(const std::vector<std::string>& paths,
                                                   const InputOptions& options, bool as_given) {
  HEAPQ_ASSIGN_OR_RETURN(std::vector<std::string> expanded, dumps_over_time(paths));
  if (as_given || expanded.size() <= 1)
    return std::vector<ProcessDumps>{{0, {}, {}, std::move(expanded)}};
  HEAPQ_ASSIGN_OR_RETURN(std::vector<Peeked> processes, peek_by_process(expanded));
  std::vector<ProcessDumps> out;
  for (Peeked& p : processes) {
    order_by_time(p, options);
    out.push_back({p.pid, std::move(p.host), std::move(p.started), std::move(p.paths)});
  }
  return out;
}

Result<std::vector<LoadedDump>> load_dumps_over_time(const std::vector<std::string>& paths,
                                                     const InputOptions& options, bool as_given) {
  HEAPQ_ASSIGN_OR_RETURN(std::vector<ProcessDumps> processes,
                         dumps_by_process(paths, options, as_given));
  if (processes.size() > 1) {
    std::vector<Peeked> named;
    for (ProcessDumps& p : processes)
      named.push_back({p.pid, std::move(p.host), std::move(p.started), std::move(p.paths), {}});
    return several_processes(named);
  }
  return load_process_dumps(processes.front().paths, options, as_given);
}

Result<std::vector<LoadedDump>> load_process_dumps(const std::vector<std::string>& paths,
                                                   const InputOptions& options, bool as_given) {
  std::vector<LoadedDump> dumps;
  for (size_t i = 0; i < paths.size(); ++i) {
    auto dump = load_input(paths[i], options, Needs::kGraph);
    if (!dump) return dump.error();
    if (i + 1 < paths.size()) {
      // Only what the roots reach counts (garbage not yet swept is not growth); the references
      // go once that is known, so that older dumps cost their objects alone.
      dump->reachable = reachable_from_roots(dump->graph);
      dump->graph.drop_references();
    }
    dumps.push_back(std::move(*dump));
    // Each checked against those before it as it comes: a refusal need not wait for the rest.
    std::vector<const LoadedDump*> so_far;
    for (const LoadedDump& d : dumps) so_far.push_back(&d);
    if (Status s = check_one_process(so_far, as_given); !s) return s.error();
  }
  return dumps;
}

bool is_profile_input(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || is_store(parse_store_ref(path)))
    return false;
  auto peeked = peek_first_line(path, 64);
  return peeked && looks_like_profile(peeked->head);
}

Result<ProfileInputs> profile_inputs(const std::vector<std::string>& paths) {
  ProfileInputs kinds;
  for (const std::string& path : paths) (is_profile_input(path) ? kinds.profiles : kinds.dumps)++;
  if (kinds.profiles != 0 && kinds.dumps != 0)
    return usage_error(
        "sampled profiles and dumps together: give one kind (a profile estimates what a "
        "dump counts)");
  return kinds;
}

Result<SampledProfile> load_profile(const std::string& path) {
  HEAPQ_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> input, open_input(path));
  return read_sampled_profile(*input);
}

Result<LoadedDump> load_input(const std::string& path, const InputOptions& options, Needs needs) {
  const bool references = needs == Needs::kGraph;
  // A store is known by SQLite's magic bytes, whatever its name.
  if (StoreRef ref = parse_store_ref(path); path != "-" && is_store(ref)) {
    if (needs == Needs::kValues)
      return usage_error(path + ": a store keeps no string values; give the dump file itself");
    auto dump = load_store(path, ref, references, options.app_root);
    if (dump && options.loaded) options.loaded(*dump);
    return dump;
  }
  auto input = open_once(path);
  if (!input) return input.error();
  LoadOptions load;
  load.strict = options.strict;
  load.threads = options.threads;
  load.references = needs != Needs::kObjectsOnly && needs != Needs::kValues;
  load.values = needs == Needs::kValues;
  load.max_line_bytes = static_cast<size_t>(options.max_line_mib) << 20;
  load.app_root = options.app_root;
  if (options.progress) load.progress = options.progress(path);
  LoadedDump dump;
  dump.path = dump.name = path == "-" ? "<stdin>" : path;
  auto graph = load_dump(**input, load, dump.report);
  load.progress = nullptr;  // done: a progress bar clears its line
  if (!graph && path != "-" && is_profile_input(path))
    return usage_error(path +
                       ": a sampled profile (Memprof.profile), not a dump: heapq leaks, load and "
                       "fleet read profiles");
  if (!graph) return graph.error();
  dump.graph = std::move(*graph);
  if (options.loaded) options.loaded(dump);
  return dump;
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
