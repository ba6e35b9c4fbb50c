// Command-line arguments: options declared per command, parsed into values and positionals.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "heapq/base/result.h"

namespace heapq::cli {

// An option as the command line spells it and --help describes it.
struct OptionSpec {
  std::string_view name;        // without dashes: "top"
  std::string_view value_name;  // "N"; empty for a flag
  std::string_view help;
  std::string fallback = {};  // the default --help prints (bound_options.h); empty: none
  bool repeated = false;      // may be given several times (ParsedArgs::get_all)
};

class ParsedArgs {
 public:
  bool has(std::string_view name) const { return values_.count(std::string(name)) > 0; }
  // The value given, else "".
  std::string get(std::string_view name) const;
  const std::vector<std::string>& positional() const { return positional_; }
  // Every value of an option given several times (OptionSpec::repeated), in order.
  std::vector<std::string> get_all(std::string_view name) const;

 private:
  friend Result<ParsedArgs> parse_args(std::span<const std::string>, std::span<const OptionSpec>);
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> repeated_;
  std::vector<std::string> positional_;
};

// Accepts "--name VALUE", "--name=VALUE", "-h" for --help, and "--" to end options. An option
// that takes a value may be given once (a usage error otherwise); a flag any number of times.
Result<ParsedArgs> parse_args(std::span<const std::string> args, std::span<const OptionSpec> specs);

// A whole number, the value of option --`name`; a usage error names the option when it is not.
Result<uint64_t> parse_count(std::string_view name, const std::string& value);

// "  --top N      help" lines for a help text, within `width` columns.
std::string describe_options(std::span<const OptionSpec> specs, size_t width);

}  // namespace heapq::cli
