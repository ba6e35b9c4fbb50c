#!/bin/sh
# heapq at scale: three dumps of one growing process of about OBJECTS objects each (ObjectSpace,
# tracing on; bench/make-growth-dumps.rb), then, on the last one, side by side in one run:
# wc -l, stats, sites (and as pprof), strings, dominators, retainers, report and load (into
# SQLite), and leaks on all three. Prints each one's time, peak RSS, peak bytes per object and
# its time as a multiple of wc -l, with their targets. Deletes what it made (KEEP=1 keeps it
# under bench/out/scale-N/).
# --one DUMP: the same on one dump already made (bench/make-dump.rb DUMP 16000000 writes 80M
# records, 26.7 GB), leaks on it alone, no load; it is kept. COLD=1 (as root) empties the page
# cache before each run instead of filling it first: a dump bigger than the memory is read from
# the disk anyway.
# Usage: sh bench/scale.sh [OBJECTS]   (default 16000000: 5.6 GB a dump, 16 GB of disk)
#        [COLD=1] sh bench/scale.sh --one DUMP
set -eu
cd "$(dirname "$0")/.."
. bench/dump.sh
one=0
if [ "${1:-}" = --one ]; then
  one=1
  last=${2:?usage: sh bench/scale.sh --one DUMP}
  dir=bench/out/scale-one
  mkdir -p "$dir"
else
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
fi
cold() {  # the page cache emptied (COLD=1) before a run
  if [ "${COLD:-0}" = 1 ]; then
    sync
    echo 3 > /proc/sys/vm/drop_caches
  fi
}
size=$(stat -c %s "$last")
records=$(wc -l < "$last")
if [ "${COLD:-0}" != 1 ]; then  # the page cache warm, for every figure
  if [ $one = 1 ]; then cat "$last" > /dev/null; else cat "$dir"/d-*.json > /dev/null; fi
fi
cold
t0=$(date +%s.%N); wc -l "$last" > /dev/null; t1=$(date +%s.%N)
wc_s=$(echo "$t1 - $t0" | bc -l)

row() {  # NAME TARGET SECONDS PEAK-MB
  awk -v name="$1" -v target="$2" -v s="$3" -v mb="$4" -v wc="$wc_s" -v n="$records" 'BEGIN {
    printf "%-28s %8.2f s %7.0f MB %6.0f B/object %6.1fx wc -l   %s\n", name, s, mb,
           mb * 1048576 / n, s / wc, target
  }'
}
ratio() {  # SECONDS OF-SECONDS TEXT: "1.21x TEXT"
  awk -v a="$1" -v b="$2" -v text="$3" 'BEGIN { printf "%.2fx %s", a / b, text }'
}
awk -v size="$size" -v n="$records" -v path="$last" 'BEGIN { printf "dump: %.2f GB, %d records (%s)\n", size / 1e9, n, path }'
printf "%-28s %8.2f s%s\n" "wc -l" "$wc_s" "$([ "${COLD:-0}" = 1 ] && echo "   (page cache emptied before each run)" || echo "   (page cache warm)")"
cold; set -- $(measure stats "$last"); stats_s=$1
row "heapq stats" "target: <= 4x wc -l, <= 50 B/object" "$1" "$2"
cold; set -- $(measure sites "$last")
row "heapq sites" "target: <= 50 B/object" "$1" "$2"
cold; set -- $(measure --format pprof sites -o "$dir/sites.pb.gz" "$last")
row "heapq sites --format pprof" "$(ratio "$1" "$stats_s" stats)" "$1" "$2"
cold; set -- $(measure strings "$last")
row "heapq strings" "$(ratio "$1" "$stats_s" "stats (keeps the values)")" "$1" "$2"
cold; set -- $(measure dominators "$last"); dom_s=$1
row "heapq dominators" "$(ratio "$1" "$stats_s" "stats (target <= 1.5x)")" "$1" "$2"
cold; set -- $(measure retainers "$last" Order)
row "heapq retainers Order" "target: <= 50 B/object" "$1" "$2"
if [ $one = 0 ]; then
  cold; set -- $(measure leaks "$dir/d-1.json" "$dir/d-2.json" "$last")
  # Its bytes per object are those of the last dump's; it reads all three: per object read too.
  read_records=$(cat "$dir/d-1.json" "$dir/d-2.json" | wc -l)
  row "heapq leaks (three dumps)" "$(awk -v l="$1" -v s="$stats_s" -v mb="$2" -v n="$((read_records + records))" 'BEGIN {
    printf "%.2fx stats (target <= 3x); %.0f B per object read", l / s, mb * 1048576 / n }')" "$1" "$2"
else
  cold; set -- $(measure leaks "$last")
  row "heapq leaks (one dump)" "$(ratio "$1" "$stats_s" stats)" "$1" "$2"
fi
cold; set -- $(measure report -o "$dir/report.html" "$last")
row "heapq report" "$(ratio "$1" "$dom_s" "dominators (target <= 2x)")" "$1" "$2"
if [ $one = 0 ]; then
  cold; set -- $(measure load --force -o "$dir/store.db" "$last")
  row "heapq load (SQLite)" "$(awk -v s="$1" -v n="$records" 'BEGIN { printf "%.2fM rows/s (target >= 2M)", n / s / 1e6 }')" "$1" "$2"
fi
