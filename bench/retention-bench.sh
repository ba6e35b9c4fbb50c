#!/bin/sh
# Dominators and retained sizes on a dump of about 3M records, beside the time to load it.
# Usage: sh bench/retention-bench.sh [DUMP]   (without DUMP, bench/out/big3m.json is made once)
set -eu
cd "$(dirname "$0")/.."
. bench/dump.sh
dump=${1:-bench/out/big3m.json}
bench_dump "$dump" 600000
build/bin/heapq-retention-bench "$dump"
