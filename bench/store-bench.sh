#!/bin/sh
# heapq load on a dump of about 1M records, and heapq stats on the store beside heapq stats on
# the dump. Targets: load <= 3 s (>= 1M rows/s into SQLite), store <= the dump's size, stats on
# the store <= 10% of stats on the dump.
# Usage: sh bench/store-bench.sh [DUMP]   (without DUMP, bench/out/big.json is made once)
# HEAPQ_BUILD_DIR chooses the build (default build/, built by scripts/build); RUNS the number of
# runs per figure (default 3; the best run is shown, as other work on the machine only slows).
set -eu
cd "$(dirname "$0")/.."
build=${HEAPQ_BUILD_DIR:-build}
HEAPQ_BUILD_DIR=$build sh scripts/build >/dev/null
heapq=$build/bin/heapq
runs=${RUNS:-3}
dump=${1:-bench/out/big.json}
if [ ! -f "$dump" ]; then
  mkdir -p "$(dirname "$dump")"
  echo "making $dump ..." >&2
  ruby bench/make-dump.rb "$dump"
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/store-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT INT TERM
store=$out/big.db

# best_of CMD...: the fastest wall time of $runs runs, in seconds.
best_of() {
  best=""
  i=0
  while [ "$i" -lt "$runs" ]; do
    /usr/bin/time -f "%e" -o "$out/t" "$@" >/dev/null 2>"$out/err" || { cat "$out/err" >&2; exit 1; }
    t=$(cat "$out/t")
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
    i=$((i + 1))
  done
  echo "$best"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
cat "$dump" >/dev/null  # the page cache holds the dump for every run
load_s=$(best_of "$heapq" --quiet load --force -o "$store" "$dump")
rows=$("$heapq" --format csv sql "$store" "SELECT (SELECT count(*) FROM objects) + (SELECT count(*) FROM refs) + (SELECT count(*) FROM roots)" | tail -1 | tr -d '\r')
objects=$("$heapq" --format csv sql "$store" "SELECT count(*) FROM objects" | tail -1 | tr -d '\r')
dump_stats_s=$(best_of "$heapq" --quiet stats "$dump")
store_stats_s=$(best_of "$heapq" --quiet stats "$store")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

awk -v dump_size="$(stat -c %s "$dump")" -v store_size="$(stat -c %s "$store")" -v objects="$objects" \
    -v rows="$rows" -v load="$load_s" -v ds="$dump_stats_s" -v ss="$store_stats_s" \
    -v cores="$(nproc)" -v before="$load_before" -v after="$load_after" -v runs="$runs" 'BEGIN {
  printf "machine              %d cores, load average %s before, %s after (best of %d runs)\n", cores, before, after, runs
  printf "dump                 %.0f MB, %d objects\n", dump_size / 1e6, objects
  printf "heapq load           %.2f s   %.2fM rows/s (%d rows: objects, refs, roots)   target <= 3 s\n", load, rows / load / 1e6, rows
  printf "  of which writing   ~%.2f s   ~%.2fM rows/s (load minus stats on the dump, which is mostly the parse;\n", load - ds, rows / (load - ds) / 1e6
  printf "                     the writing includes dominators, distances and the indexes)\n"
  printf "store size           %.0f MB   %.2fx the dump                                     target <= 1x\n", store_size / 1e6, store_size / dump_size
  printf "heapq stats DUMP     %.3f s\n", ds
  printf "heapq stats STORE    %.3f s   %.1f%% of stats on the dump                          target <= 10%%\n", ss, 100 * ss / ds
}'
