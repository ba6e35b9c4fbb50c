#!/bin/sh
# heapq leaks on three dumps of one growing process (about 1M records each) and heapq diff on
# the first and last, beside heapq stats on one of them (targets: leaks <= 3x, diff <= 2.5x).
# Usage: sh bench/leaks-bench.sh   (the dumps are made once under bench/out/)
set -eu
cd "$(dirname "$0")/.."
. bench/dump.sh
prefix=bench/out/growth
[ -f "$prefix-3.json" ] || ruby bench/make-growth-dumps.rb "$prefix" 190000
cat "$prefix"-*.json > /dev/null  # warm the page cache

set -- $(measure stats "$prefix-3.json")
stats_s=$1 stats_mb=$2
set -- $(measure leaks "$prefix-1.json" "$prefix-2.json" "$prefix-3.json")
leaks_s=$1 leaks_mb=$2
set -- $(measure diff "$prefix-1.json" "$prefix-3.json")
diff_s=$1 diff_mb=$2
awk -v r="$(wc -l < "$prefix-3.json")" -v ss="$stats_s" -v sm="$stats_mb" -v ls="$leaks_s" -v lm="$leaks_mb" \
    -v ds="$diff_s" -v dm="$diff_mb" 'BEGIN {
  printf "three dumps of about %d records each\n", r
  printf "heapq stats (one dump)        %5.2f s %6.0f MB\n", ss, sm
  printf "heapq leaks (three dumps)     %5.2f s %6.0f MB   %.2fx the time of stats (target <= 3x)\n", ls, lm, ls / ss
  printf "heapq diff (first and last)   %5.2f s %6.0f MB   %.2fx the time of stats (target <= 2.5x)\n", ds, dm, ds / ss
}'
