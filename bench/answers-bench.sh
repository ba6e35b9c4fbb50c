#!/bin/sh
# heapq stats and heapq leaks on the 1M-record benchmark dumps, side by side with the same
# commands built from another revision (default: the last one before commands returned answers
# rendered by the render layer), each run three times alternately, the best time kept.
# Usage: sh bench/answers-bench.sh [REVISION]   (the baseline is built once under bench/out/)
set -eu
cd "$(dirname "$0")/.."
. bench/dump.sh
rev=${1:-562b000}
base=bench/out/baseline-$rev
if [ ! -x "$base/build/bin/heapq" ]; then
  rm -rf "$base"
  git worktree add --detach "$base" "$rev" >/dev/null 2>&1 || git worktree add --detach -f "$base" "$rev"
  cmake -S "$base" -B "$base/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$base/build" -j "$(nproc)" --target heapq >/dev/null
fi
prefix=bench/out/growth
[ -f "$prefix-3.json" ] || ruby bench/make-growth-dumps.rb "$prefix" 190000
cat "$prefix"-*.json > /dev/null  # warm the page cache

# best HEAPQ ARGS...: the best of three runs, "seconds peak-MB"
best() {
  bin=$1
  shift
  for i in 1 2 3; do
    /usr/bin/time -f "%e %M" -o bench/out/time.txt "$bin" --quiet "$@" > /dev/null
    cat bench/out/time.txt
  done | sort -n | head -1 | awk '{ printf "%.2f %.0f", $1, $2 / 1024 }'
}
row() {
  name=$1
  shift
  set -- "$name" $(best "$base/build/bin/heapq" "$@") $(best build/bin/heapq "$@")
  awk -v n="$1" -v bs="$2" -v bm="$3" -v ns="$4" -v nm="$5" -v r="$rev" 'BEGIN {
    printf "%-28s %s: %5.2f s %5.0f MB   now: %5.2f s %5.0f MB   %.2fx the time, %.2fx the memory\n",
      n, r, bs, bm, ns, nm, ns / bs, nm / bm }'
}
echo "three dumps of about $(wc -l < "$prefix-3.json") records each"
row "heapq stats (one dump)" stats "$prefix-3.json"
row "heapq leaks (three dumps)" leaks "$prefix-1.json" "$prefix-2.json" "$prefix-3.json"
