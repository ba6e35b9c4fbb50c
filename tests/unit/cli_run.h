// Runs the heapq command line in-process, for the tests that check what a command prints.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "main_help.h"

namespace heapq::testing {

// Runs the heapq command line in-process; keeps its exit status and what it printed.
struct CliRun {
  int status = 0;
  std::string out, err;
};

inline CliRun run_cli(const std::vector<std::string>& args) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  CliRun r;
  r.status = cli::run_heapq(args);
  r.out = ::testing::internal::GetCapturedStdout();
  r.err = ::testing::internal::GetCapturedStderr();
  return r;
}

}  // namespace heapq::testing
