#!/bin/sh
# heapq at scale: three dumps of one growing process of about OBJECTS objects each (ObjectSpace,
# tracing on; bench/make-growth-dumps.rb), then, on the last one, side by side in one run:
# wc -l, stats, sites (and as pprof), strings, dominators, retainers, report and load (into
# SQLite), and leaks on all three. Prints each
# one's time, peak RSS, peak bytes per object and its time as a multiple of wc -l, with the
# targets of the scale issue. Deletes what it made (KEEP=1 keeps it under bench/out/scale-N/).
# Usage: sh bench/scale.sh [OBJECTS]   (default 16000000: about 4 GB a dump, 13 GB of disk)
set -eu
cd "$(dirname "$0")/.."
. bench/dump.sh
objects=${1:-16000000}
dir=bench/out/scale-$objects
cleanup() { [ "${KEEP:-0}" = 1 ] || rm -rf "$dir"; }
trap cleanup EXIT INT TERM
mkdir -p "$dir"
if [ ! -f "$dir/d-3.json" ]; then
  echo "making three dumps of about $objects objects ..." >&2
  ruby bench/make-growth-dumps.rb "$dir/d" $((objects * 19 / 100))  # ~5.3 records an order
fi
last=$dir/d-3.json
cat "$dir"/d-*.json > /dev/null  # the page cache warm, as for every figure below
size=$(stat -c %s "$last")
records=$(wc -l < "$last")
t0=$(date +%s.%N); wc -l "$last" > /dev/null; t1=$(date +%s.%N)
wc_s=$(echo "$t1 - $t0" | bc -l)

row() {  # NAME TARGET SECONDS PEAK-MB
  awk -v name="$1" -v target="$2" -v s="$3" -v mb="$4" -v wc="$wc_s" -v n="$records" 'BEGIN {
    printf "%-28s %8.2f s %7.0f MB %6.0f B/object %6.1fx wc -l   %s\n", name, s, mb,
           mb * 1048576 / n, s / wc, target
  }'
}
awk -v size="$size" -v n="$records" -v path="$last" 'BEGIN { printf "dump: %.2f GB, %d records (%s)\n", size / 1e9, n, path }'
printf "%-28s %8.2f s\n" "wc -l (page cache warm)" "$wc_s"
set -- $(measure stats "$last"); stats_s=$1
row "heapq stats" "target: <= 4x wc -l, <= 50 B/object" "$1" "$2"
set -- $(measure sites "$last")
row "heapq sites" "target: <= 50 B/object" "$1" "$2"
set -- $(measure --format pprof sites -o "$dir/sites.pb.gz" "$last")
row "heapq sites --format pprof" "$(awk -v t="$1" -v s="$stats_s" 'BEGIN { printf "%.2fx stats", t / s }')" "$1" "$2"
set -- $(measure strings "$last")
row "heapq strings" "$(awk -v t="$1" -v s="$stats_s" 'BEGIN { printf "%.2fx stats (keeps the values)", t / s }')" "$1" "$2"
set -- $(measure dominators "$last"); dom_s=$1
row "heapq dominators" "$(awk -v d="$1" -v s="$stats_s" 'BEGIN { printf "%.2fx stats (target <= 1.5x)", d / s }')" "$1" "$2"
set -- $(measure retainers "$last" Order)
row "heapq retainers Order" "target: <= 50 B/object" "$1" "$2"
set -- $(measure leaks "$dir/d-1.json" "$dir/d-2.json" "$last")
# Its bytes per object are those of the last dump's; it reads all three: per object read too.
read_records=$(cat "$dir/d-1.json" "$dir/d-2.json" | wc -l)
row "heapq leaks (three dumps)" "$(awk -v l="$1" -v s="$stats_s" -v mb="$2" -v n="$((read_records + records))" 'BEGIN {
  printf "%.2fx stats (target <= 3x); %.0f B per object read", l / s, mb * 1048576 / n }')" "$1" "$2"
set -- $(measure report -o "$dir/report.html" "$last")
row "heapq report" "$(awk -v r="$1" -v d="$dom_s" 'BEGIN { printf "%.2fx dominators (target <= 2x)", r / d }')" "$1" "$2"
set -- $(measure load --force -o "$dir/store.db" "$last")
row "heapq load (SQLite)" "$(awk -v s="$1" -v n="$records" 'BEGIN { printf "%.2fM rows/s (target >= 2M)", n / s / 1e6 }')" "$1" "$2"
