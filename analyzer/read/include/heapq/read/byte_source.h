// Where dump bytes come from: a file, stdin or a string, gzip-compressed or not.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "heapq/base/result.h"

namespace heapq {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes into buf; 0 means the end of the data.
  virtual Result<size_t> read(char* buf, size_t n) = 0;
  // The name used in messages: the path, "<stdin>", or a test's label.
  virtual const std::string& name() const = 0;
  // Progress: input bytes consumed so far and in all (0 when unknown, as for a pipe).
  virtual uint64_t consumed() const = 0;
  virtual uint64_t total() const = 0;
  // After the end: what was wrong with how the data ended (a truncated gzip stream), if anything.
  virtual std::optional<std::string> damage() const { return std::nullopt; }
};

// An input opened once: what its first bytes are, and then its content from the start. A
// regular file is read again through the one descriptor it was opened with (each source reads
// at its own offset); anything else (stdin, a pipe, a FIFO) is read once: the bytes read to peek
// at it are kept and handed out again before the rest, so that none is lost.
class OpenedInput {
 public:
  // Opens a path ("-" is stdin): an error names it (exit status 3).
  static Result<OpenedInput> open(const std::string& path);
  OpenedInput(OpenedInput&&) noexcept;
  OpenedInput& operator=(OpenedInput&&) noexcept;
  ~OpenedInput();

  bool regular() const;
  // The first n bytes as they are (not decompressed; fewer in a shorter file): a regular file's
  // only, empty for others (what a store's magic bytes are looked for in).
  std::string raw_head(size_t n) const;
  // The content's first line (decompressed; at most about max_bytes of it) and its first bytes
  // (up to 64), whatever they are: read once, then kept.
  struct Peek {
    std::string first_line, head;
  };
  Result<Peek> peek(size_t max_bytes);
  // The content from its start, gzip recognized by its magic bytes: for a regular file as often
  // as asked, for another input once (an I/O error after that).
  Result<std::unique_ptr<ByteSource>> content();

 private:
  struct State;
  explicit OpenedInput(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Opens a path and reads it from its start (OpenedInput::open, then content()).
Result<std::unique_ptr<ByteSource>> open_input(const std::string& path);

// A source over bytes in memory (gzip detected likewise), for tests and embedders.
std::unique_ptr<ByteSource> memory_input(std::string bytes, std::string name = "<memory>");

}  // namespace heapq
