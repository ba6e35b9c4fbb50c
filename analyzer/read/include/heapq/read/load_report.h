// What a load of a dump is asked (LoadOptions) and what it met on its way (LoadReport): the
// reader fills them, so they sit below the graph it feeds.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace heapq {

enum class DumpFormat { kObjectSpace, kMemprof };

struct LoadOptions {
  // Turn the first problem with the input into an error instead of skipping and counting it.
  bool strict = false;
  // Parser threads; 0 means one per core.
  unsigned threads = 0;
  // Bytes read per chunk of work; a line longer than this is read whole all the same.
  size_t chunk_bytes = 4 << 20;
  // Without references the graph has the objects and the roots only (for analyses that never
  // follow references): faster, and smaller.
  bool references = true;
  // Keep STRING records' values (heapq strings): the graph's string_values(). Off, they are
  // skipped unread.
  bool values = false;
  // The longest line read: a longer one is an error (exit status 2). Real records of huge
  // Hashes reach hundreds of MB. A line that does not start like a record ('{') is skipped
  // as a bad line without being held in memory, however long it is.
  size_t max_line_bytes = size_t(1) << 30;
  // Called from time to time with (bytes consumed, total bytes or 0).
  std::function<void(uint64_t, uint64_t)> progress;
  // The application's directory: the frames of memprof's allocation stacks under it (a relative
  // path counts as under it), outside gems, are the app's. Empty: any frame outside gems and
  // Ruby's library is (is_app_path).
  std::string app_root;
};

// A problem at one line of the input.
struct LineIssue {
  uint64_t line = 0;
  std::string message;
};

// Which process a dump is of and when it was taken, where the dump says (memprof's META).
struct DumpOrigin {
  uint64_t pid = 0;            // 0: unknown
  std::string time;            // ISO 8601 as written; empty: unknown
  int64_t gc_count = -1;       // GC.count when the dump was taken; -1: unknown
  std::string host;            // the machine's name; empty: unknown
  std::string started;         // when the process started, ISO 8601; empty: unknown
  int64_t compact_count = -1;  // GC compactions so far (memprof); -1: unknown
  // Kinds of references memprof could not name on that Ruby ("constants", "locals"), as the
  // dump wrote them; empty: it named all it knows.
  std::vector<std::string> unnamed = {};
};

// Which process a dump or a sampled profile is of, across a fleet: its machine, pid and start
// (a pid alone repeats across hosts and over time). Ordered by host, pid, then start.
struct ProcessKey {
  std::string host;
  uint64_t pid = 0;
  std::string started;
  auto operator<=>(const ProcessKey&) const = default;
};
inline ProcessKey process_of(const DumpOrigin& o) {
  return {o.host, o.pid, o.started};
}

// What a load met on its way; nothing in here stopped it.
struct LoadReport {
  DumpFormat format = DumpFormat::kObjectSpace;
  uint64_t lines = 0;
  uint64_t objects = 0;
  uint64_t roots = 0;            // ROOT records
  uint64_t shapes = 0;           // SHAPE records (Ruby 3.3+), not heap objects
  uint64_t skipped_records = 0;  // NONE slots and other records that hold no object

  // Lines that are not a valid record, skipped; the first few are kept with their reason.
  uint64_t bad_lines = 0;
  std::vector<LineIssue> first_bad_lines;
  // Strings with bytes that are not UTF-8, kept with those bytes replaced by U+FFFD.
  uint64_t repaired_strings = 0;
  std::vector<LineIssue> first_repaired_strings;

  uint64_t dangling_references = 0;  // references to addresses the dump does not have
  // Entries of the finalizer table (memprof's owners) whose object is dead, awaiting their run:
  // not roots, so what only they hold counts as garbage.
  uint64_t dead_finalizers = 0;
  bool references_read = true;    // false: loaded without references (none counted above)
  uint64_t dangling_classes = 0;  // class fields that point to no class record
  // Of the bad lines, records at an address an earlier record has (the first is the object).
  uint64_t duplicate_addresses = 0;

  std::string damage;        // how the data ended badly (a truncated gzip stream), if it did
  bool missing_end = false;  // a memprof dump without its END record: truncated
  int64_t end_records = -1;  // what the END record announced, -1 without one
  DumpOrigin origin;

  static constexpr size_t kIssuesKept = 5;
};
}  // namespace heapq
