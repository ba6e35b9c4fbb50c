#!/bin/sh
# Dominators and retained sizes on a dump of about 3M records, beside the time to load it.
# Usage: sh bench/retention-bench.sh [DUMP]   (without DUMP, bench/out/big3m.json is made once)
set -eu
cd "$(dirname "$0")/.."
sh scripts/build >/dev/null
dump=${1:-bench/out/big3m.json}
if [ ! -f "$dump" ]; then
  mkdir -p "$(dirname "$dump")"
  echo "making $dump (600k orders, about 3M records) ..." >&2
  ruby bench/make-dump.rb "$dump" 600000
fi
build/bin/heapq-retention-bench "$dump"
