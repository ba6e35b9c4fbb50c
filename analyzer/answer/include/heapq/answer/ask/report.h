// Asking for the answer of answer/report.h: the options and the calls that make it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heapq/answer/inputs.h"
#include "heapq/answer/report.h"
#include "heapq/base/result.h"

namespace heapq {

struct ReportOptions {
  size_t top = 50;        // rows of each table
  size_t leaks = 5;       // leaks shown (one dump: 0 looks for none)
  size_t nodes = 2000;    // objects of the icicle
  bool as_given = false;  // --as-given
};

Result<ReportAnswer> answer_report(const std::vector<std::string>& paths,
                                   const ReportOptions& options, const InputOptions& inputs);

}  // namespace heapq
