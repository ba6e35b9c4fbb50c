// load_dump: reads the input in chunks of whole lines and parses them on every core.
//
//   input ──(one reader at a time, under a lock)──▶ chunk i ──▶ parse_chunk (in parallel)
//   parsed chunks, in dump order, as soon as each is ready ──▶ ChunkLoader::add, then freed
//   every chunk in ──▶ ChunkLoader::finish (addresses resolved) ──▶ HeapGraph
//
// Reading is serialized (it is a small part of the work); parsing, the large part, is not.
// A parsed chunk goes into the graph at once, added by whichever thread is free to, so that
// a few chunks are in memory at a time (a reader waits while too many wait to be added).
// Line numbers are chunk-relative while parsing and made absolute as chunks are added. Records
// that repeat an address are found as chunks are added (in dump order): bad lines too.
#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <thread>

#include "chunk_loader.h"
#include "heapq/model/load.h"
#include "heapq/read/parsed_chunk.h"

namespace heapq {

namespace {

std::string at_line(const ByteSource& input, uint64_t line, const std::string& what) {
  return input.name() + ":" + std::to_string(line) + ": " + what;
}

// Adds the chunk's issues to the report with absolute line numbers.
void merge_issues(const ParsedChunk& c, uint64_t first_line, LoadReport& r) {
  r.bad_lines += c.bad_lines;
  r.repaired_strings += c.repaired_strings;
  for (const LineIssue& i : c.first_bad_lines)
    if (r.first_bad_lines.size() < LoadReport::kIssuesKept)
      r.first_bad_lines.push_back({first_line + i.line, i.message});
  for (const LineIssue& i : c.first_repaired_strings)
    if (r.first_repaired_strings.size() < LoadReport::kIssuesKept)
      r.first_repaired_strings.push_back({first_line + i.line, i.message});
}

// A chunk's text. It grows by realloc, which moves a big block's pages (mremap) instead of
// copying them into a new one: a line near --max-line costs about that much memory, not twice.
class TextBuffer {
 public:
  TextBuffer() = default;
  TextBuffer(const TextBuffer&) = delete;
  TextBuffer& operator=(const TextBuffer&) = delete;
  ~TextBuffer() { std::free(data_); }

  char* data() { return data_; }
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  // Bytes beyond the old size are left as they are (unset).
  void resize(size_t n) {
    if (n > capacity_) {
      char* grown = static_cast<char*>(std::realloc(data_, n));
      if (!grown) throw std::bad_alloc();
      data_ = grown;
      capacity_ = n;
    }
    size_ = n;
  }
  size_t capacity() const { return capacity_; }
  void release() {
    std::free(data_);
    data_ = nullptr;
    size_ = capacity_ = 0;
  }

 private:
  char* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
};

class ChunkedLoad {
 public:
  ChunkedLoad(ByteSource& input, const LoadOptions& options, LoadReport& report)
      : input_(input),
        options_(options),
        report_(report),
        loader_(threads(), options.references, report, options.app_root, input.total()) {}

  // Runs the workers; afterwards the report has every chunk's lines and issues, and the
  // loader every chunk's records (in strict mode, up to the first problem).
  Status run() {
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < threads(); ++i) pool.emplace_back([this] { work(); });
    work();
    for (auto& t : pool) t.join();
    add_ready();
    if (overlong_chunk_ != SIZE_MAX) {
      // Every chunk before it is parsed and added by now: its line number is known.
      return bad_input(input_.name() + ":" + std::to_string(report_.lines + overlong_after_ + 1) +
                       ": a line longer than " + std::to_string(options_.max_line_bytes) +
                       " bytes (see --max-line)");
    }
    if (!error_.message.empty()) return error_;
    return Ok{};
  }

  ChunkLoader& loader() { return loader_; }
  bool memprof() const { return memprof_; }
  unsigned threads() const {
    unsigned n = options_.threads ? options_.threads : std::thread::hardware_concurrency();
    return std::clamp(n, 1u, 64u);
  }

 private:
  // A worker that runs out of memory stops every other (an exception may not leave a thread).
  void work() {
    try {
      work_on_chunks();
    } catch (const std::bad_alloc&) {
      std::lock_guard lock(mutex_);
      error_ = out_of_memory();
      added_.notify_all();
    }
  }

  void work_on_chunks() {
    TextBuffer text;
    for (;;) {
      auto chunk = std::make_unique<ParsedChunk>();
      size_t index = 0, len = 0;
      {
        std::unique_lock lock(mutex_);
        // Chunks parsed ahead of the next one to add wait in memory: not too many.
        added_.wait(lock, [&] { return index_ - added_count_ < 2 * size_t(threads()) || done(); });
        if (done()) return;
        index = index_++;
        parsed_.emplace_back();
        chunk->keep_values = options_.values;
        if (!fill(text, len, *chunk, index)) {
          if (overlong_chunk_ == index) {
            error_ = Error{ExitCode::kBadInput, "line too long"};
            overlong_after_ = chunk->lines;  // lines skipped unread before it in this read
          }
          added_.notify_all();
          return;
        }
        chunk->consumed = input_.consumed();
        if (options_.progress) options_.progress(chunk->consumed, input_.total());
      }
      chunk->bytes = len;
      parse_chunk(text.data(), len, options_.strict, *chunk);
      // A line far longer than a read (one Hash of millions of entries) grew the buffer to
      // its size: let it go, rather than hold it written and resident to the end of the load.
      if (text.capacity() > 4 * std::max<size_t>(options_.chunk_bytes, 1)) text.release();
      {
        std::lock_guard lock(mutex_);
        if (options_.strict && (chunk->bad_lines || chunk->repaired_strings)) {
          stop_at_ = std::min(stop_at_, index + 1);  // later chunks cannot hold the first error
          added_.notify_all();
        }
        parsed_[index - added_count_] = std::move(chunk);
      }
      add_ready();
    }
  }

  // Under mutex_.
  bool done() const { return eof_ || !error_.message.empty() || index_ >= stop_at_; }

  // Adds the parsed chunks that are next in dump order to the graph, unless another thread
  // is adding (which then adds them); one parsed while that thread was letting go is seen by
  // the check after the loop.
  void add_ready() {
    for (;;) {
      {
        std::unique_lock adding(add_mutex_, std::try_to_lock);
        if (!adding) return;
        for (;;) {
          std::unique_ptr<ParsedChunk> chunk;
          {
            std::lock_guard lock(mutex_);
            if (parsed_.empty() || !parsed_.front()) break;
            chunk = std::move(parsed_.front());
          }
          add(*chunk);
          chunk.reset();  // its memory is free before another chunk is read
          {
            std::lock_guard lock(mutex_);
            parsed_.pop_front();
            ++added_count_;
          }
          added_.notify_all();
        }
      }
      std::lock_guard lock(mutex_);
      if (parsed_.empty() || !parsed_.front()) return;
    }
  }

  // Under add_mutex_, in dump order.
  void add(ParsedChunk& c) {
    // Strict mode fails at the first problem: the graph needs nothing after it. The loader
    // finds bad lines too (records that repeat an address).
    if (!stopped_) loader_.add(c);
    merge_issues(c, report_.lines, report_);
    report_.lines += c.lines;
    report_.shapes += c.shapes;
    report_.skipped_records += c.skipped_records;
    report_.roots += c.roots.size();
    memprof_ = memprof_ || c.memprof_meta;
    if (c.end_records) report_.end_records = *c.end_records;
    if (c.origin) report_.origin = *c.origin;
    if (options_.strict && (c.bad_lines || c.repaired_strings) && !stopped_) {
      stopped_ = true;
      std::lock_guard lock(mutex_);
      stop_at_ = std::min(stop_at_, added_count_ + 1);  // no need to read on
      added_.notify_all();
    }
  }

  // Under the lock: text = the carried-over partial line + input up to the last newline.
  // Lines that do not start like a record and outgrow a read are skipped unread, and counted
  // in the chunk as bad lines that precede its text.
  bool fill(TextBuffer& text, size_t& len, ParsedChunk& chunk, size_t index) {
    const size_t step = std::max<size_t>(options_.chunk_bytes, 1);
    size_t have = carry_.size();
    text.resize(have + step + 1);
    std::memcpy(text.data(), carry_.data(), have);
    carry_.clear();
    for (;;) {
      if (text.size() < have + step + 1)
        text.resize(std::max(have + step + 1,
                             std::min(text.size() * 2, options_.max_line_bytes + step + 1)));
      Result<size_t> got = input_.read(text.data() + have, step);
      if (!got) {
        error_ = got.error();
        return false;
      }
      if (*got == 0) {
        eof_ = true;
        len = have;  // the last line, possibly without a newline
        return true;
      }
      const char* fresh = text.data() + have;
      have += *got;
      if (ends_a_line(text, fresh, have, len)) return true;
      // No newline yet: text[0, have) is one unfinished line. Blanks before a record are
      // dropped (they are all a blank line may hold).
      const char* start = first_non_blank(text.data(), have);
      if (!start) {
        have = 0;
      } else if (*start != '{') {
        if (!skip_line(text, have, chunk)) return false;
        if (eof_) {
          len = 0;
          return true;
        }
        if (ends_a_line(text, text.data(), have, len)) return true;
      } else if (have > options_.max_line_bytes) {
        overlong_chunk_ = index;
        return false;
      }
    }
  }

  // Whether text[from, have) holds a newline: then len ends after the last one, and what
  // follows it is carried over to the next chunk.
  bool ends_a_line(const TextBuffer& text, const char* from, size_t have, size_t& len) {
    const void* nl = memrchr(from, '\n', text.data() + have - from);
    if (!nl) return false;
    len = static_cast<const char*>(nl) - text.data() + 1;
    carry_.assign(text.data() + len, have - len);
    return true;
  }

  static const char* first_non_blank(const char* p, size_t n) {
    for (const char* end = p + n; p < end; ++p)
      if (*p != ' ' && *p != '\t' && *p != '\r') return p;
    return nullptr;
  }

  // Reads on to the end of the unfinished line in text, keeping only what follows it (have
  // bytes at the start of text), and counts the line as bad.
  bool skip_line(TextBuffer& text, size_t& have, ParsedChunk& chunk) {
    const size_t step = std::max<size_t>(options_.chunk_bytes, 1);
    ++chunk.lines;
    ++chunk.bad_lines;
    if (chunk.first_bad_lines.size() < LoadReport::kIssuesKept)
      chunk.first_bad_lines.push_back(
          {chunk.lines, "not a record (it does not start with '{'); skipped unread"});
    for (;;) {
      Result<size_t> got = input_.read(text.data(), std::min(step, text.size() - 1));
      if (!got) {
        error_ = got.error();
        return false;
      }
      if (*got == 0) {
        eof_ = true;
        have = 0;
        return true;
      }
      if (const void* nl = std::memchr(text.data(), '\n', *got)) {
        const size_t rest = text.data() + *got - static_cast<const char*>(nl) - 1;
        std::memmove(text.data(), static_cast<const char*>(nl) + 1, rest);
        have = rest;
        return true;
      }
    }
  }

  ByteSource& input_;
  const LoadOptions& options_;
  LoadReport& report_;  // filled as chunks are added
  ChunkLoader loader_;
  std::mutex mutex_;  // the input and the state below
  std::condition_variable added_;
  // The chunks from added_count_ on, in order: null until parsed.
  std::deque<std::unique_ptr<ParsedChunk>> parsed_;
  size_t added_count_ = 0;
  std::string carry_;
  size_t index_ = 0;
  size_t stop_at_ = SIZE_MAX;
  size_t overlong_chunk_ = SIZE_MAX;
  uint64_t overlong_after_ = 0;  // lines of its chunk before the overlong one
  bool eof_ = false;
  Error error_{ExitCode::kOk, ""};
  std::mutex add_mutex_;  // held by the one thread adding chunks; the state below is its
  bool memprof_ = false;
  bool stopped_ = false;
};

}  // namespace

Result<HeapGraph> load_dump(ByteSource& input, const LoadOptions& options, LoadReport& report) {
  report = LoadReport();
  ChunkedLoad load(input, options, report);
  if (Status s = load.run(); !s) return s.error();
  const bool memprof = load.memprof();
  report.format = memprof ? DumpFormat::kMemprof : DumpFormat::kObjectSpace;
  // Damage first: a truncated stream also leaves a broken last line, which is its symptom.
  if (auto damage = input.damage()) {
    if (options.strict) return bad_input(input.name() + ": " + *damage);
    report.damage = *damage;
  }
  if (options.strict && !report.first_bad_lines.empty())
    return bad_input(
        at_line(input, report.first_bad_lines[0].line, report.first_bad_lines[0].message));
  if (options.strict && !report.first_repaired_strings.empty())
    return bad_input(at_line(input, report.first_repaired_strings[0].line,
                             report.first_repaired_strings[0].message));
  if (memprof && report.end_records < 0) {
    report.missing_end = true;
    if (options.strict)
      return bad_input(
          at_line(input, report.lines, "the dump ends without its END record (truncated?)"));
  }

  HEAPQ_ASSIGN_OR_RETURN(HeapGraph graph, load.loader().finish());
  report.objects = graph.object_count();
  if (graph.object_count() == 0) {
    std::string why = report.first_bad_lines.empty()
                          ? input.name() + ": no heap objects in this input (is it a heap dump?)"
                          : at_line(input, report.first_bad_lines[0].line,
                                    "no heap objects could be read; the first bad line: " +
                                        report.first_bad_lines[0].message);
    return bad_input(why);
  }
  return graph;
}

}  // namespace heapq
