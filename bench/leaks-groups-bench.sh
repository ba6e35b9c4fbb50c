#!/bin/sh
# heapq leaks --top 0 (every growing group) beside --top 5 on three dumps of a process in which
# GROUPS allocation sites leak (bench/make-many-groups.rb): the work for the leaks is linear
# in the heap whatever --top is (target: --top 0 within 1.5x the time of --top 5).
# Usage: sh bench/leaks-groups-bench.sh [GROUPS] [BASE]   (the dumps are made once under bench/out/)
set -eu
cd "$(dirname "$0")/.."
. bench/dump.sh
groups=${1:-2000} base=${2:-300000}
prefix=bench/out/groups-$groups-$base
[ -f "$prefix-3.json" ] || ruby bench/make-many-groups.rb "$prefix" "$groups" "$base"
cat "$prefix"-*.json > /dev/null  # warm the page cache

set -- $(measure leaks --top 5 "$prefix-1.json" "$prefix-2.json" "$prefix-3.json")
top5_s=$1 top5_mb=$2
set -- $(measure leaks --top 0 "$prefix-1.json" "$prefix-2.json" "$prefix-3.json")
all_s=$1 all_mb=$2
awk -v g="$groups" -v r="$(wc -l < "$prefix-3.json")" -v fs="$top5_s" -v fm="$top5_mb" -v as="$all_s" -v am="$all_mb" 'BEGIN {
  printf "three dumps of about %d records each, %d growing groups\n", r, g
  printf "heapq leaks --top 5   %6.2f s %6.0f MB\n", fs, fm
  printf "heapq leaks --top 0   %6.2f s %6.0f MB   %.2fx the time of --top 5 (target <= 1.5x)\n", as, am, as / fs
}'
