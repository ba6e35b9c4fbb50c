// Errors as values: what went wrong, where, and which exit status it deserves.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace heapq {

// Exit statuses of the heapq command, shared by everything that can fail.
enum class ExitCode : int { kOk = 0, kUsage = 1, kBadInput = 2, kIo = 3, kInterrupted = 130 };

struct Error {
  ExitCode code;
  std::string message;  // "FILE:LINE: what was wrong", ready to print
};

inline Error bad_input(std::string message) {
  return {ExitCode::kBadInput, std::move(message)};
}
inline Error io_error(std::string message) {
  return {ExitCode::kIo, std::move(message)};
}
inline Error usage_error(std::string message) {
  return {ExitCode::kUsage, std::move(message)};
}
// What a std::bad_alloc becomes: the machine, not the input, fell short.
inline Error out_of_memory() {
  return io_error("out of memory: the machine could not give what this input needs");
}

// A value or an Error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Result of an operation that returns nothing on success.
struct Ok {};
using Status = Result<Ok>;

// Returns the error of a Status (or any Result) expression from the enclosing function.
#define HEAPQ_RETURN_IF_ERROR(expr)                                                \
  do {                                                                             \
    if (auto heapq_status_ = (expr); !heapq_status_) return heapq_status_.error(); \
  } while (0)

// `lhs = value of a Result expression` (lhs may declare: auto x), or returns its error. It is
// several statements: within an if, give it braces.
#define HEAPQ_ASSIGN_OR_RETURN(lhs, expr) \
  HEAPQ_ASSIGN_OR_RETURN_(HEAPQ_CONCAT_(heapq_result_, __LINE__), lhs, expr)
#define HEAPQ_ASSIGN_OR_RETURN_(result, lhs, expr) \
  auto result = (expr);                            \
  if (!result) return result.error();              \
  lhs = std::move(result.value())
#define HEAPQ_CONCAT_(a, b) HEAPQ_CONCAT2_(a, b)
#define HEAPQ_CONCAT2_(a, b) a##b

}  // namespace heapq
