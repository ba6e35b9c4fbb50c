// Asking for the answer of answer/strings.h: the options and the calls that make it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/answer/inputs.h"
#include "heapq/answer/strings.h"
#include "heapq/base/result.h"

namespace heapq {

struct StringsOptions {
  size_t top = 20;  // values, and lines, listed; SIZE_MAX: all
};

Result<StringsAnswer> answer_strings(const std::string& input, const StringsOptions& options,
                                     const InputOptions& inputs);
// The same for a dump already loaded with its values (Needs::kValues, LoadOptions::values).
StringsAnswer strings_answer(const LoadedDump& dump, const StringsOptions& options);

}  // namespace heapq
