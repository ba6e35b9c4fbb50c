#include "heapq/answer/inputs.h"

#include "heapq/analyze/retainers.h"
#include "heapq/answer/wording.h"
#include "heapq/read/dump_time.h"

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

Error several_processes(const std::vector<ProcessInputs>& processes) {
  std::string which;
  for (const ProcessInputs& p : processes) {
    which += (which.empty() ? "" : "; ") + process_name(p.process.pid, p.process.host) + ": ";
    for (size_t i = 0; i < p.inputs.size() && i < 3; ++i)
      which += (i ? ", " : "") + p.inputs[i]->path;
    if (p.inputs.size() > 3) which += " and " + format_count(p.inputs.size() - 3) + " more";
  }
  return usage_error("the dumps are of " + format_count(processes.size()) + " processes (" + which +
                     "): objects of different processes never match, so every one would "
                     "count as born or freed; give the dumps of one process (memprof names "
                     "them memprof-PID-*.jsonl; heapq leaks takes each process on its own), "
                     "or --as-given to compare them all the same");
}

// The inputs by process, one group (all of them, in the order given) for dumps of one; dumps
// that do not say among those of several: a usage error.
Result<std::vector<ProcessInputs>> processes_of(const std::vector<Input*>& inputs) {
  ByProcess by = group_by_process(inputs);
  if (by.processes.size() <= 1)
    return std::vector<ProcessInputs>{
        {by.processes.empty() ? ProcessKey{} : by.processes.front().process, inputs}};
  if (!by.unknown.empty())
    return usage_error(by.unknown.front()->path +
                       " does not say which process it is of (no META pid), among "
                       "dumps of " +
                       format_count(by.processes.size()) +
                       " processes: give the dumps of "
                       "one process (memprof names them memprof-PID-*.jsonl)");
  return std::move(by.processes);
}

// One process's dumps in the order they were written, told through options.note when that is
// not the order given.
void order_by_time(std::vector<Input*>& inputs, const InputOptions& options) {
  if (!take_in_written_order(inputs) || !options.note) return;
  std::string order;
  for (const Input* in : inputs) order += (order.empty() ? "" : ", ") + in->path;
  options.note("taking the dumps in the order they were written (their META time), not as given: " +
               order);
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

Status take_in_time_order(std::vector<Input*>& dumps, const InputOptions& options) {
  HEAPQ_ASSIGN_OR_RETURN(const std::vector<ProcessInputs> processes, processes_of(dumps));
  if (processes.size() > 1) return several_processes(processes);
  order_by_time(dumps, options);
  return Ok{};
}

Result<std::vector<ProcessInputs>> dumps_by_process(Inputs& opened, const InputOptions& options,
                                                    bool as_given) {
  std::vector<Input*> all = opened.all();
  if (as_given || all.size() <= 1) return std::vector<ProcessInputs>{{ProcessKey{}, all}};
  HEAPQ_ASSIGN_OR_RETURN(std::vector<ProcessInputs> processes, processes_of(all));
  for (ProcessInputs& p : processes) order_by_time(p.inputs, options);
  return processes;
}

Result<std::vector<LoadedDump>> load_dumps_over_time(Inputs& opened, const InputOptions& options,
                                                     bool as_given) {
  HEAPQ_ASSIGN_OR_RETURN(const std::vector<ProcessInputs> processes,
                         dumps_by_process(opened, options, as_given));
  if (processes.size() > 1) return several_processes(processes);
  return load_process_dumps(processes.front().inputs, options, as_given);
}

Result<std::vector<LoadedDump>> load_dumps_over_time(const std::vector<std::string>& paths,
                                                     const InputOptions& options, bool as_given) {
  HEAPQ_ASSIGN_OR_RETURN(Inputs opened, Inputs::open_over_time(paths));
  return load_dumps_over_time(opened, options, as_given);
}

Result<std::vector<LoadedDump>> load_process_dumps(const std::vector<Input*>& inputs,
                                                   const InputOptions& options, bool as_given) {
  std::vector<LoadedDump> dumps;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto dump = load(*inputs[i], options, Needs::kGraph);
    if (!dump) return dump.error();
    if (i + 1 < inputs.size()) {
      // Only what the roots reach counts (garbage not yet swept is not growth); the references
      // go once that is known, so that older dumps cost their objects alone.
      dump->reachable = reachable_from_roots(dump->graph);
      dump->graph.drop_references();
      inputs[i]->file.reset();  // read: only the last one's strings are read again
    }
    dumps.push_back(std::move(*dump));
    // Each checked against those before it as it comes: a refusal need not wait for the rest.
    std::vector<const LoadedDump*> so_far;
    for (const LoadedDump& d : dumps) so_far.push_back(&d);
    if (Status s = check_one_process(so_far, as_given); !s) return s.error();
  }
  return dumps;
}

Result<ProfileInputs> profile_inputs(const std::vector<Input*>& inputs) {
  ProfileInputs kinds;
  for (const Input* in : inputs) (in->kind == InputKind::kProfile ? kinds.profiles : kinds.dumps)++;
  if (kinds.profiles != 0 && kinds.dumps != 0)
    return usage_error(
        "sampled profiles and dumps together: give one kind (a profile estimates what a "
        "dump counts)");
  return kinds;
}

}  // namespace heapq
