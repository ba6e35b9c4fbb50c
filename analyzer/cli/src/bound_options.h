// A command's options bound to the typed fields they set: each declared once with its name, help
// and how its value is read; its default is the field's, in the command's options struct.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "args.h"

namespace heapq::cli {

// What a command is handed: its inputs, its output file, which options were given (where the
// command needs to know: a profile's refusals, a default that depends on another), and its
// options struct filled, asked for once the checks that come before it have passed.
template <typename O>
struct Invocation {
  std::vector<std::string> inputs;  // the positional arguments
  std::string output;               // -o FILE or --output FILE; empty: none
  std::vector<std::string_view> given_names;
  O values;             // each option's field, its default when not given
  Status error = Ok{};  // the first value given that is not one, naming its option
  bool given(std::string_view name) const {
    return std::find(given_names.begin(), given_names.end(), name) != given_names.end();
  }
  // The options struct, or the usage error of a value given that is not one.
  Result<O> options() const {
    if (!error) return error.error();
    return values;
  }
  // -o and --output both given: a usage error naming what the file is (output, store, report).
  Status output_once(std::string_view what = "output") const {
    if (given("o") && given("output"))
      return usage_error("give the " + std::string(what) + " once: -o or --output");
    return Ok{};
  }
};

// An option of a command whose options struct is O: set() reads a value given into the
// invocation, shown() the default --help prints (from a default-made O; none when null).
template <typename O>
struct Option {
  using Bound = O;
  std::string_view name;        // without dashes
  std::string_view value_name;  // empty for a flag
  std::string_view help;
  Status (*set)(Invocation<O>& in, std::string_view name, const std::string& value);
  std::string (*shown)(const O& defaults) = nullptr;
  bool repeated = false;
};

// A name an option's value may be, and what it means (--sort count).
template <typename T>
struct Choice {
  std::string_view name;
  T value;
};

// "a, b or c"
template <typename T, size_t N>
std::string choice_names(const Choice<T> (&choices)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i)
    out += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(choices[i].name);
  return out;
}

// The ways an option sets a field of O (Field: a pointer to that member).
template <typename O>
struct Bind {
  // A whole number.
  template <auto Field>
  static constexpr Option<O> count(std::string_view name, std::string_view value_name,
                                   std::string_view help) {
    return {name, value_name, help,
            [](Invocation<O>& in, std::string_view n, const std::string& v) -> Status {
              HEAPQ_ASSIGN_OR_RETURN(in.values.*Field, parse_count(n, v));
              return Ok{};
            },
            [](const O& d) { return std::to_string(d.*Field); }};
  }
  // A whole number where 0 means no limit (--top 0: all): SIZE_MAX for 0.
  template <auto Field>
  static constexpr Option<O> limit(std::string_view name, std::string_view value_name,
                                   std::string_view help) {
    return {name, value_name, help,
            [](Invocation<O>& in, std::string_view n, const std::string& v) -> Status {
              HEAPQ_ASSIGN_OR_RETURN(const uint64_t count, parse_count(n, v));
              in.values.*Field = count == 0 ? SIZE_MAX : static_cast<size_t>(count);
              return Ok{};
            },
            [](const O& d) { return std::to_string(d.*Field); }};
  }
  // A flag: true when given.
  template <auto Field>
  static constexpr Option<O> flag(std::string_view name, std::string_view help) {
    return {name, "", help, [](Invocation<O>& in, std::string_view, const std::string&) -> Status {
              in.values.*Field = true;
              return Ok{};
            }};
  }
  // Any text.
  template <auto Field>
  static constexpr Option<O> text(std::string_view name, std::string_view value_name,
                                  std::string_view help) {
    return {name, value_name, help,
            [](Invocation<O>& in, std::string_view, const std::string& v) -> Status {
              in.values.*Field = v;
              return Ok{};
            }};
  }
  // One of Choices' names.
  template <auto Field, const auto& Choices>
  static constexpr Option<O> choice(std::string_view name, std::string_view value_name,
                                    std::string_view help) {
    return {name, value_name, help,
            [](Invocation<O>& in, std::string_view n, const std::string& v) -> Status {
              for (const auto& c : Choices)
                if (c.name == v) {
                  in.values.*Field = c.value;
                  return Ok{};
                }
              return usage_error("--" + std::string(n) + " expects " + choice_names(Choices) +
                                 ", not \"" + v + "\"");
            },
            [](const O& d) {
              for (const auto& c : Choices)
                if (c.value == d.*Field) return std::string(c.name);
              return std::string();
            }};
  }
  // -o FILE and --output FILE: the invocation's output.
  static constexpr Option<O> output(std::string_view name, std::string_view value_name,
                                    std::string_view help) {
    return {name, value_name, help,
            [](Invocation<O>& in, std::string_view, const std::string& v) -> Status {
              in.output = v;
              return Ok{};
            }};
  }
};

// The same option with no default shown in --help (its help says what the default depends on).
template <typename O>
constexpr Option<O> no_default_shown(Option<O> option) {
  option.shown = nullptr;
  return option;
}

// The options as the parser and --help take them, their defaults read from a default-made O.
template <const auto& Options>
std::span<const OptionSpec> specs_of() {
  using O = typename std::remove_cvref_t<decltype(Options[0])>::Bound;
  static const std::vector<OptionSpec> specs = [] {
    const O defaults{};
    std::vector<OptionSpec> out;
    for (const Option<O>& o : Options)
      out.push_back(
          {o.name, o.value_name, o.help, o.shown ? o.shown(defaults) : std::string(), o.repeated});
    return out;
  }();
  return specs;
}

// The invocation the parsed arguments make: each option given sets its field, in the order
// declared; the first value that is not one is kept as the invocation's error.
template <const auto& Options>
auto bind_options(const ParsedArgs& args) {
  using O = typename std::remove_cvref_t<decltype(Options[0])>::Bound;
  Invocation<O> in;
  in.inputs = args.positional();
  for (const Option<O>& o : Options)
    if (args.has(o.name)) in.given_names.push_back(o.name);
  for (const Option<O>& o : Options) {
    if (!in.given(o.name)) continue;
    const std::vector<std::string> values =
        o.repeated ? args.get_all(o.name) : std::vector<std::string>{args.get(o.name)};
    for (const std::string& v : values)
      if (Status s = o.set(in, o.name, v); !s && in.error) in.error = s;
  }
  return in;
}

}  // namespace heapq::cli
