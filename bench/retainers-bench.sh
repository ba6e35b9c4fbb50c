#!/bin/sh
# heapq retainers beside heapq dominators on the same dumps (target: at most 3x its time, and
# linear memory): every class target of the 1M-record benchmark dump's biggest classes, and a
# 100,000-node linked list (by class, and the address of its last node, 100,000 steps deep).
# Usage: sh bench/retainers-bench.sh
set -eu
cd "$(dirname "$0")/.."
. bench/dump.sh
big=bench/out/big.json
list=bench/out/list100k.json
bench_dump "$big" 200000
[ -f "$list.last" ] || ruby bench/make-list-dump.rb "$list" 100000

row() {  # NAME BASE_SECONDS BASE_MB ARGS...
  name=$1 base_s=$2 base_mb=$3
  shift 3
  set -- $(measure "$@")
  awk -v n="$name" -v s="$1" -v mb="$2" -v bs="$base_s" -v bmb="$base_mb" 'BEGIN {
    printf "%-34s %6.2f s %6.0f MB   %4.2fx the time, %4.2fx the memory of dominators\n", n, s, mb, s / bs, mb / bmb }'
}

for dump in "$big" "$list"; do
  cat "$dump" > /dev/null  # warm the page cache: every command below reads it from memory
  set -- $(measure dominators "$dump")
  dom_s=$1 dom_mb=$2
  echo "$dump: $(wc -l < "$dump") records"
  printf "%-34s %6.2f s %6.0f MB\n" "dominators" "$dom_s" "$dom_mb"
  if [ "$dump" = "$big" ]; then
    for class in String Order Hash Array; do row "retainers $class" "$dom_s" "$dom_mb" retainers "$dump" "$class"; done
  else
    row "retainers LruNode" "$dom_s" "$dom_mb" retainers "$dump" LruNode
    last=$(cat "$list.last")
    row "retainers (a node ~100k deep)" "$dom_s" "$dom_mb" retainers "$dump" "$last"
  fi
done
