// The top of the command line: finds the command, parses options, prints help and version.
#pragma once

#include <string>
#include <vector>

namespace heapq::cli {

// Runs heapq with the arguments after the program name; returns the exit status.
int run_heapq(const std::vector<std::string>& args);

}  // namespace heapq::cli
