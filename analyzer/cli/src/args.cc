#include "args.h"

#include <algorithm>
#include <cstdint>

#include "heapq/render/terminal_text.h"

namespace heapq::cli {

std::string ParsedArgs::get(std::string_view name) const {
  auto it = values_.find(std::string(name));
  return it == values_.end() ? "" : it->second;
}

Result<ParsedArgs> parse_args(std::span<const std::string> args,
                              std::span<const OptionSpec> specs) {
  ParsedArgs out;
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    // An option has no blank in it: "-- a comment\nSELECT ..." is an argument (SQL).
    if (options_done || a == "-" || !a.starts_with("-") ||
        a.find_first_of(" \t\r\n") != std::string::npos) {
      out.positional_.push_back(a);
      continue;
    }
    if (a == "--") {
      options_done = true;
      continue;
    }
    std::string name = a == "-h" ? "help" : a.substr(a.starts_with("--") ? 2 : 1);
    std::string value;
    bool inline_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      inline_value = true;
    }
    auto spec = std::find_if(specs.begin(), specs.end(),
                             [&](const OptionSpec& s) { return s.name == name; });
    if (spec == specs.end()) return usage_error("unknown option " + a);
    if (spec->value_name.empty()) {
      if (inline_value) return usage_error("option --" + name + " takes no value");
      value = "1";
    } else if (!inline_value) {
      if (i + 1 >= args.size())
        return usage_error("option --" + name + " needs a value (" + std::string(spec->value_name) +
                           ")");
      value = args[++i];
    }
    if (spec->repeated) out.repeated_[name].push_back(value);
    // A value given twice is a mistake to point out, not to settle by taking the last one.
    auto [it, added] = out.values_.try_emplace(name, value);
    if (!added && !spec->value_name.empty() && !spec->repeated) {
      const std::string dashes = name.size() == 1 ? "-" : "--";
      return usage_error("option " + dashes + name + " is given twice (\"" + it->second +
                         "\" and \"" + value + "\"): give it once");
    }
  }
  return out;
}

std::vector<std::string> ParsedArgs::get_all(std::string_view name) const {
  auto it = repeated_.find(std::string(name));
  return it == repeated_.end() ? std::vector<std::string>() : it->second;
}

Result<uint64_t> parse_count(std::string_view name, const std::string& v) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 18)
    return usage_error("--" + std::string(name) + " expects a whole number, not \"" + v + "\"");
  return std::stoull(v);
}

std::string describe_options(std::span<const OptionSpec> specs, size_t width) {
  std::string out;
  for (const OptionSpec& s : specs) {
    std::string left = (s.name.size() == 1 ? "  -" : "  --") + std::string(s.name);
    if (!s.value_name.empty()) left += " " + std::string(s.value_name);
    if (left.size() < 22)
      left.resize(22, ' ');
    else
      left += "  ";
    // A description is one paragraph: a newline in it would start a line at the margin.
    std::string help(s.help);
    if (!s.fallback.empty()) help += " (default " + s.fallback + ")";
    std::replace(help.begin(), help.end(), '\n', ' ');
    out += left + render::wrap_words(help, left.size(), 22, width) + "\n";
  }
  return out;
}

}  // namespace heapq::cli
