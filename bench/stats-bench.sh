#!/bin/sh
# heapq stats on a dump of about 1M records, side by side with wc -l on the same file.
# Usage: sh bench/stats-bench.sh [DUMP]   (without DUMP, bench/out/big.json is made once)
set -eu
cd "$(dirname "$0")/.."
. bench/dump.sh
dump=${1:-bench/out/big.json}
bench_dump "$dump" 200000

size=$(stat -c %s "$dump")
records=$(wc -l < "$dump")   # also warms the page cache
t0=$(date +%s.%N); wc -l "$dump" >/dev/null; t1=$(date +%s.%N)
wc_s=$(echo "$t1 - $t0" | bc -l)
set -- $(measure stats "$dump")
stats_s=$1 stats_mb=$2

awk -v size="$size" -v records="$records" -v wc="$wc_s" -v st="$stats_s" -v peak="$stats_mb" 'BEGIN {
  mb = size / 1e6
  printf "dump                 %.0f MB, %d records\n", mb, records
  printf "wc -l (cached)       %.3f s  %6.0f MB/s\n", wc, mb / wc
  printf "heapq stats          %.3f s  %6.0f MB/s   (%.1fx the time of wc -l; target >= 400 MB/s)\n", st, mb / st, st / wc
  printf "heapq stats peak RSS %.0f MB  = %.2fx the dump size (target <= 0.5x)\n", peak, peak * 1048576 / size
}'
