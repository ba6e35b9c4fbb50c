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

// Opens a path ("-" is stdin); gzip is recognized by its magic bytes, not by the file name.
Result<std::unique_ptr<ByteSource>> open_input(const std::string& path);

// The first line of an input's content (decompressed; at most about max_bytes of it), and a
// source that reads the input from its start all the same: the bytes read to find the line
// are kept and handed out again, never asked of the input twice, so that a pipe loses none.
struct PeekedInput {
  std::string first_line;
  std::string head;  // the content's first bytes (up to 64), whatever they are
  std::unique_ptr<ByteSource> source;
};
Result<PeekedInput> peek_first_line(const std::string& path, size_t max_bytes);

// A source over bytes in memory (gzip detected likewise), for tests and embedders.
std::unique_ptr<ByteSource> memory_input(std::string bytes, std::string name = "<memory>");

}  // namespace heapq
