// Times heapq's dominator tree and retained-size pass against boost's
// lengauer_tarjan_dominator_tree on generated heap-like graphs and a long chain, side by side.
// Memory is the peak of live heap bytes (global operator new is counted), so each figure is
// what that step allocates at its worst moment, outputs included, inputs excluded.
// Built and run by bench/dominators-bench.sh.
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/dominator_tree.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "dominator_tree.h"

// ---- live heap bytes, counted at the allocator boundary ----
namespace {
size_t g_live = 0, g_peak = 0;
void* counted_alloc(size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  g_live += malloc_usable_size(p);
  g_peak = std::max(g_peak, g_live);
  return p;
}
void counted_free(void* p) {
  if (!p) return;
  g_live -= malloc_usable_size(p);
  std::free(p);
}
}  // namespace
void* operator new(size_t n) {
  return counted_alloc(n);
}
void* operator new[](size_t n) {
  return counted_alloc(n);
}
void operator delete(void* p) noexcept {
  counted_free(p);
}
void operator delete[](void* p) noexcept {
  counted_free(p);
}
void operator delete(void* p, size_t) noexcept {
  counted_free(p);
}
void operator delete[](void* p, size_t) noexcept {
  counted_free(p);
}

namespace {

using Clock = std::chrono::steady_clock;

struct Graph {
  std::string name;
  uint32_t n = 0, root = 0;
  std::vector<uint32_t> begin, target;
};

// What one step cost: wall and CPU time, and the peak of heap bytes it added above where it
// started. CPU time is printed too because this machine is shared: other sessions' work shows
// in wall time, not (much) in CPU time.
struct Cost {
  double seconds = 0;
  double cpu_seconds = 0;
  double peak_bytes = 0;
};

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

template <typename F>
Cost measure(F&& step) {
  const size_t base = g_live;
  g_peak = g_live;
  const double c0 = cpu_now();
  const auto t0 = Clock::now();
  step();
  const auto t1 = Clock::now();
  return {std::chrono::duration<double>(t1 - t0).count(), cpu_now() - c0, double(g_peak - base)};
}

std::string load_average() {
  char text[64] = "?";
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (!std::fgets(text, sizeof text, f)) text[0] = 0;
    std::fclose(f);
  }
  return std::string(text, strcspn(text, "\n"));
}

Graph to_graph(std::string name, uint32_t n, uint32_t root,
               std::vector<std::pair<uint32_t, uint32_t>>& edges) {
  Graph g{std::move(name), n, root, std::vector<uint32_t>(n + 1, 0),
          std::vector<uint32_t>(edges.size())};
  for (auto [from, to] : edges) ++g.begin[from + 1];
  for (uint32_t v = 0; v < n; ++v) g.begin[v + 1] += g.begin[v];
  std::vector<uint32_t> fill(g.begin.begin(), g.begin.end() - 1);
  for (auto [from, to] : edges) g.target[fill[from]++] = to;
  std::vector<std::pair<uint32_t, uint32_t>>().swap(edges);
  return g;
}

// Shaped like a Ruby heap: a virtual root over Object (which holds every class) and a few
// thousand stack/global roots; every object has a class edge (skewed to a few hot classes),
// an owner that is usually a recent older object (nesting), about 3% have no owner (garbage),
// and one more reference on average, mostly local. About 3 edges per node.
Graph heap_like(uint32_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto below = [&](uint64_t bound) { return static_cast<uint32_t>(rng() % bound); };
  constexpr uint32_t kClasses = 5000, kFirstObject = kClasses + 2, kRoots = 2000;
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(size_t{n} * 3 + kClasses + kRoots);
  edges.emplace_back(0, 1);  // virtual root -> Object
  for (uint32_t c = 2; c < kFirstObject; ++c) edges.emplace_back(1, c);
  for (uint32_t i = 0; i < kRoots; ++i)
    edges.emplace_back(0, kFirstObject + below(n - kFirstObject));
  for (uint32_t v = kFirstObject; v < n; ++v) {
    const double r = double(below(1 << 20)) / (1 << 20);
    edges.emplace_back(v, 2 + static_cast<uint32_t>(r * r * r * (kClasses - 1)));
    const uint32_t older = v - kFirstObject;
    if (older > 0 && below(100) >= 3) {
      const bool local = below(10) < 7;
      edges.emplace_back(local ? v - 1 - below(std::min(older, 64u)) : kFirstObject + below(older),
                         v);
    }
    const uint32_t from = kFirstObject + below(n - kFirstObject);
    const bool local = below(10) < 7;
    const uint32_t to = local ? std::min(n - 1, from + 1 + below(1024)) : below(n);
    edges.emplace_back(from, to);
  }
  return to_graph("heap-like", n, 0, edges);
}

// The same graph with ids in random order: a dump whose order says nothing of the structure.
Graph shuffled(const Graph& g, uint64_t seed) {
  std::vector<uint32_t> id(g.n);
  for (uint32_t v = 0; v < g.n; ++v) id[v] = v;
  std::shuffle(id.begin(), id.end(), std::mt19937_64(seed));
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(g.target.size());
  for (uint32_t v = 0; v < g.n; ++v) {
    for (uint32_t e = g.begin[v]; e < g.begin[v + 1]; ++e)
      edges.emplace_back(id[v], id[g.target[e]]);
  }
  return to_graph(g.name + ", shuffled ids", g.n, id[g.root], edges);
}

// A list: 0 -> 1 -> ... -> n-1, and n-1 -> 1 so that EVAL must compress a path of n-2 nodes.
Graph chain(uint32_t n) {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(n);
  for (uint32_t v = 0; v + 1 < n; ++v) edges.emplace_back(v, v + 1);
  edges.emplace_back(n - 1, 1);
  return to_graph("chain with back edge", n, 0, edges);
}

// Semi-NCA's worst case: a list of k nodes whose tail holds k leaves that an array also holds
// (walked list first). Climbing from each leaf's parent to its semidominator costs k steps, so
// heapq falls back to Lengauer-Tarjan's buckets here; this shows what that costs.
Graph list_with_shared_leaves(uint32_t n) {
  const uint32_t k = (n - 2) / 2, array = k + 1, leaf = k + 2;
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(size_t{k} * 3 + 2);
  for (uint32_t v = 0; v < k; ++v) edges.emplace_back(v, v + 1);
  for (uint32_t i = 0; i < k; ++i) edges.emplace_back(k, leaf + i);
  edges.emplace_back(0, array);
  for (uint32_t i = 0; i < k; ++i) edges.emplace_back(array, leaf + i);
  return to_graph("list with shared leaves (semi-NCA's worst case)", leaf + k, 0, edges);
}

struct HeapqResult {
  Cost dominators, retained;
  uint32_t reachable = 0;
  std::vector<uint32_t> idom;  // for the comparison with boost
};

HeapqResult run_heapq(const Graph& g, int repeats) {
  std::vector<uint64_t> size(g.n);
  for (uint32_t v = 0; v < g.n; ++v) size[v] = 40 + (v * 2654435761u) % 200;
  HeapqResult best;
  for (int i = 0; i < repeats; ++i) {
    HeapqResult r;
    std::optional<heapq::DominatorTree> tree;
    r.dominators =
        measure([&] { tree = heapq::DominatorTree::compute(g.n, g.begin, g.target, g.root); });
    heapq::RetainedSizes sizes;
    r.retained = measure([&] { sizes = heapq::compute_retained(*tree, size); });
    r.reachable = tree->reachable_count();
    if (i == 0 || r.dominators.seconds + r.retained.seconds <
                      best.dominators.seconds + best.retained.seconds) {
      r.idom.assign(tree->idoms().begin(), tree->idoms().end());
      best = std::move(r);
    }
  }
  return best;
}

struct BoostResult {
  Cost build, dominators;
  int agrees = 0;  // 1 when every idom equals heapq's
  int crash_signal = 0;
};

using BoostGraph =
    boost::compressed_sparse_row_graph<boost::bidirectionalS, boost::no_property,
                                       boost::no_property, boost::no_property, uint32_t, uint32_t>;
using BoostVertex = boost::graph_traits<BoostGraph>::vertex_descriptor;

}  // namespace

// Boost 1.74's bidirectional CSR graph lacks degree(), which BidirectionalGraphConcept checks.
namespace boost {
inline uint32_t degree(BoostVertex v, const BoostGraph& g) {
  return out_degree(v, g) + in_degree(v, g);
}
}  // namespace boost

namespace {

// Boost needs in-edges: a bidirectional CSR built from an edge list, both counted as its cost.
BoostResult run_boost(const Graph& g, const std::vector<uint32_t>& expected_idom) {
  BoostResult r;
  std::optional<BoostGraph> bg;
  r.build = measure([&] {
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    edges.reserve(g.target.size());
    for (uint32_t v = 0; v < g.n; ++v) {
      for (uint32_t e = g.begin[v]; e < g.begin[v + 1]; ++e) edges.emplace_back(v, g.target[e]);
    }
    bg.emplace(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), g.n);
  });
  const BoostVertex null = boost::graph_traits<BoostGraph>::null_vertex();
  std::vector<BoostVertex> idom;
  r.dominators = measure([&] {
    const auto index = boost::get(boost::vertex_index, *bg);
    std::vector<uint32_t> dfnum(g.n, UINT32_MAX);  // unreachable: the maximum, as boost asks
    std::vector<BoostVertex> parent(g.n, null), by_dfnum(g.n, null);
    idom.assign(g.n, null);
    boost::lengauer_tarjan_dominator_tree(
        *bg, g.root, index, boost::make_iterator_property_map(dfnum.begin(), index),
        boost::make_iterator_property_map(parent.begin(), index), by_dfnum,
        boost::make_iterator_property_map(idom.begin(), index));
  });
  r.agrees = 1;
  for (uint32_t v = 0; v < g.n; ++v) {
    const uint32_t want = expected_idom[v];
    const uint32_t got = v == g.root ? g.root : (idom[v] == null ? heapq::kNoDominator : idom[v]);
    if (want != got) r.agrees = 0;
  }
  return r;
}

// Boost's EVAL recurses once per path node, so it runs in a child that may die of it.
BoostResult run_boost_isolated(const Graph& g, const std::vector<uint32_t>& expected_idom) {
  int fd[2];
  if (pipe(fd) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    const BoostResult r = run_boost(g, expected_idom);
    if (write(fd[1], &r, sizeof r) != sizeof r) _exit(2);
    _exit(0);
  }
  close(fd[1]);
  BoostResult r;
  const bool got = read(fd[0], &r, sizeof r) == sizeof r;
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!got) r.crash_signal = WIFSIGNALED(status) ? WTERMSIG(status) : -1;
  return r;
}

std::string mb(double bytes) {
  char s[32];
  std::snprintf(s, sizeof s, "%.0f MB", bytes / 1e6);
  return s;
}

void report(const Graph& g, const HeapqResult& h, const BoostResult& b) {
  const double n = g.n;
  std::printf("\n%s: %u nodes, %zu edges, %u reachable from the root\n", g.name.c_str(), g.n,
              g.target.size(), h.reachable);
  std::printf("  %-30s %14s %18s %10s\n", "", "heapq", "boost", "boost/heapq");
  auto row = [](const char* what, std::string a, std::string b_, std::string ratio) {
    std::printf("  %-30s %14s %18s %10s\n", what, a.c_str(), b_.c_str(), ratio.c_str());
  };
  auto secs = [](double s) {
    char t[32];
    std::snprintf(t, sizeof t, "%.3f s", s);
    return std::string(t);
  };
  auto bpn = [&](double bytes) {
    char t[32];
    std::snprintf(t, sizeof t, "%.1f B/node", bytes / n);
    return std::string(t);
  };
  auto ratio = [](double x, double y) {
    char t[32];
    std::snprintf(t, sizeof t, "%.1fx", x / y);
    return std::string(t);
  };
  if (b.crash_signal) {
    const std::string crashed = "died: " + std::string(strsignal(b.crash_signal));
    row("dominators time", secs(h.dominators.seconds), crashed, "-");
    row("  (cpu)", secs(h.dominators.cpu_seconds), "-", "-");
    row("dominators peak memory", bpn(h.dominators.peak_bytes), "-", "-");
  } else {
    row("input for the algorithm", "CSR as given", secs(b.build.seconds), "-");
    row("  its memory", "0", bpn(b.build.peak_bytes), "-");
    row("dominators time", secs(h.dominators.seconds), secs(b.dominators.seconds),
        ratio(b.dominators.seconds, h.dominators.seconds));
    row("  (cpu)", secs(h.dominators.cpu_seconds), secs(b.dominators.cpu_seconds),
        ratio(b.dominators.cpu_seconds, h.dominators.cpu_seconds));
    row("dominators peak memory", bpn(h.dominators.peak_bytes), bpn(b.dominators.peak_bytes),
        ratio(b.dominators.peak_bytes, h.dominators.peak_bytes));
    row("  (as bytes)", mb(h.dominators.peak_bytes), mb(b.dominators.peak_bytes), "");
  }
  row("retained sizes time", secs(h.retained.seconds), "-", "-");
  row("  (cpu)", secs(h.retained.cpu_seconds), "-", "-");
  row("retained sizes memory (output)", bpn(h.retained.peak_bytes), "-", "-");
  const double total = h.dominators.seconds + h.retained.seconds;
  const double total_cpu = h.dominators.cpu_seconds + h.retained.cpu_seconds;
  row("dominators + retained", secs(total),
      total <= 1.5 ? "target 1.5 s: met" : "target 1.5 s: MISSED", "");
  row("  (cpu)", secs(total_cpu), total_cpu <= 1.5 ? "target 1.5 s: met" : "target 1.5 s: MISSED",
      "");
  if (!b.crash_signal) row("boost's idoms equal heapq's", "", b.agrees ? "yes" : "NO", "");
}

void run(const Graph& g) {
  const HeapqResult h = run_heapq(g, 3);
  const BoostResult b = run_boost_isolated(g, h.idom);
  report(g, h, b);
}

}  // namespace

int main(int argc, char** argv) {
  const uint32_t n =
      argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 3'000'000;
  std::printf(
      "heapq DominatorTree (semi-NCA, Lengauer-Tarjan fallback, iterative) vs boost %s "
      "lengauer_tarjan_dominator_tree; heapq: best of 3 runs, boost: 1 run\n",
      BOOST_LIB_VERSION);
  std::printf("memory: peak live heap bytes of the step, result included, input graph excluded\n");
  std::printf("load average at start: %s (2 cores; other sessions may be running)\n",
              load_average().c_str());
  {
    const Graph g = heap_like(n, 42);
    run(g);
    run(shuffled(g, 7));
  }
  run(chain(n));
  run(list_with_shared_leaves(n));
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("\npeak RSS of this process (generators and heapq): %ld MB\n",
              usage.ru_maxrss / 1024);
  std::printf("load average at end: %s\n", load_average().c_str());
  return 0;
}
