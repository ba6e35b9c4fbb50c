#include "heapq/answer/common.h"

namespace heapq {

InputSummary summarize(const LoadedDump& dump) {
  return {dump.path, dump.name, dump.report, load_warnings(dump)};
}

}  // namespace heapq
