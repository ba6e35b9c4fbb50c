// Times heapq's retention analyses on a real dump: load, dominator tree, retained sizes,
// shortest-path tree, with the peak RSS after each step, side by side.
// Usage: heapq-retention-bench DUMP   (bench/retention-bench.sh makes a 3M-record dump)

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dominator_tree.h"
#include "heapq/analyze/retainers.h"
#include "heapq/model/load.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// VmRSS or VmHWM (the peak) of this process, in MB.
double status_mb(const char* field) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  char line[256];
  double kb = 0;
  while (f && std::fgets(line, sizeof line, f))
    if (std::strncmp(line, field, std::strlen(field)) == 0)
      kb = std::atof(line + std::strlen(field) + 1);
  if (f) std::fclose(f);
  return kb / 1024;
}

// Starts a new peak: Linux resets VmHWM to the current RSS on "5" in clear_refs.
void reset_peak_rss() {
  if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DUMP\n", argv[0]);
    return 1;
  }
  using heapq::ObjectId;
  auto input = heapq::open_input(argv[1]);
  if (!input) {
    std::fprintf(stderr, "%s\n", input.error().message.c_str());
    return 3;
  }
  auto t0 = std::chrono::steady_clock::now();
  heapq::LoadReport report;
  auto graph = heapq::load_dump(**input, {}, report);
  if (!graph) {
    std::fprintf(stderr, "%s\n", graph.error().message.c_str());
    return 2;
  }
  const double load_s = seconds_since(t0);
  const double load_peak = status_mb("VmHWM:");
  const double loaded_rss = status_mb("VmRSS:");
  reset_peak_rss();
  const heapq::HeapGraph& g = *graph;
  const uint32_t n = static_cast<uint32_t>(g.object_count());

  t0 = std::chrono::steady_clock::now();
  heapq::DominatorTree tree =
      heapq::DominatorTree::compute(n + 1, g.edge_begin(), g.edge_targets(), n);
  const double dom_s = seconds_since(t0);
  const double dom_peak = status_mb("VmHWM:");

  t0 = std::chrono::steady_clock::now();
  std::vector<uint64_t> sizes(n + 1, 0);
  for (uint32_t i = 0; i < n; ++i) sizes[i] = g.memsize(ObjectId(i));
  heapq::RetainedSizes retained = heapq::compute_retained(tree, sizes);
  const double retained_s = seconds_since(t0);
  const double retained_peak = status_mb("VmHWM:");

  t0 = std::chrono::steady_clock::now();
  heapq::ShortestPathTree paths = heapq::ShortestPathTree::compute(g);
  const double paths_s = seconds_since(t0);

  const double per_object = (dom_peak - loaded_rss) * 1024 * 1024 / n;
  std::printf("dump: %zu objects, %zu references (%s)\n", g.object_count(), g.edge_count(),
              argv[1]);
  std::printf("load                      %6.3f s   peak RSS %6.0f MB, %.0f MB once loaded\n",
              load_s, load_peak, loaded_rss);
  std::printf(
      "dominator tree            %6.3f s   peak RSS %6.0f MB  (+%.1f bytes/object over the loaded "
      "graph; target <= 32)\n",
      dom_s, dom_peak, per_object);
  std::printf("retained sizes            %6.3f s   peak RSS %6.0f MB\n", retained_s, retained_peak);
  std::printf("shortest-path tree        %6.3f s\n", paths_s);
  std::printf(
      "dominators + retained     %6.3f s beyond the load = %.2fx the load (target <= 1.5 s)\n",
      dom_s + retained_s, (dom_s + retained_s) / load_s);
  std::printf("reachable %u of %u objects; the roots retain %llu bytes\n",
              tree.reachable_count() - 1, n, static_cast<unsigned long long>(retained.bytes[n]));
  return 0;
}
