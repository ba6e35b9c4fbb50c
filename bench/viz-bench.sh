#!/bin/sh
# heapq viz and heapq report on the 1M-record benchmark dump beside heapq dominators (which both
# compute), the report's size (target: under ~10 MB) and the time headless Chromium takes to
# open it (target: under 2 s).
# Usage: sh bench/viz-bench.sh
set -eu
cd "$(dirname "$0")/.."
. bench/dump.sh
big=bench/out/big.json
bench_dump "$big" 200000

row() {  # NAME ARGS...
  name=$1
  shift
  set -- $(measure "$@")
  printf "%-40s %6.2f s %6.0f MB\n" "$name" "$1" "$2"
}

echo "$big: $(wc -l < "$big") records"
row "dominators" dominators "$big"
row "viz Order (DOT)" viz "$big" Order
row "viz --format svg Order" viz --format svg -o bench/out/order.svg "$big" Order
row "viz --dominators --format svg" viz --dominators --format svg -o bench/out/dominators.svg "$big"
row "report" report -o bench/out/big-report.html "$big"
echo "report: $(wc -c < bench/out/big-report.html) bytes"
if /usr/bin/python3 tests/browser/check_report.py --open bench/out/big-report.html; then :; else
  echo "(the report was not opened in a browser: see above)"
fi
