// heapq: answers what is in a Ruby heap dump and who keeps it alive.
#include <cstdio>
#include <string>
#include <vector>

#include "command.h"
#include "main_help.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return heapq::cli::run_heapq(args);
}
