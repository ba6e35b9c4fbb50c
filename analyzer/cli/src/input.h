// The command line's side of reading inputs (heapq/answer/inputs.h): a progress bar on a terminal,
// warnings on stderr unless --quiet.
#pragma once

#include <string>
#include <vector>

#include "command.h"
#include "heapq/answer/inputs.h"

namespace heapq::cli {

// The global options' reading of inputs: progress and warnings on stderr unless --quiet.
InputOptions input_options(const GlobalOptions& global);

// The option that lets dumps of several processes, or out of time order, be compared.
template <typename O>
constexpr Option<O> as_given_option() {
  return Bind<O>::template flag<&O::as_given>(
      "as-given",
      "compare the dumps in the order given, even of different processes or out of time order "
      "(without it, dump files are taken in the order their META says they were written)");
}

}  // namespace heapq::cli
