#!/bin/sh
# heapq and memprof beside what Debian offers a Ruby user for the same job, on the same dumps:
# heapy (ruby-heapy) for reading and diffing ObjectSpace dumps, ObjectSpace.dump_all for
# dumping. Two sizes: three dumps of one growing process (bench/make-growth-dumps.rb, allocation
# tracing on) of about 1M and 4M records at the last dump. Prints a markdown table: time and
# peak RSS (GNU time) of each side, and the peer's figure divided by heapq's (or memprof's).
# Usage: sh bench/peers-bench.sh   (the dumps are made once under bench/out/: delete them to
# remake them at other sizes)
# Needs build/bin/heapq and build/dumper/ext (the CMake build) and heapy (apt install
# ruby-heapy). PEER_TIMEOUT: seconds any one run may take (default 900); SMALL and LARGE: the
# orders of the first dump of each size (default 190000 and 760000, about 5 records an order);
# DUMPER_RUNS: runs of each dumper, the median shown (default 3); OUT: the directory of the
# dumps and outputs (default bench/out).
set -eu
cd "$(dirname "$0")/.."
limit=${PEER_TIMEOUT:-900}
small=${SMALL:-190000}
large=${LARGE:-760000}
dumper_runs=${DUMPER_RUNS:-3}
heapq=build/bin/heapq
ext=build/dumper/ext
out=${OUT:-bench/out}

fail() { echo "peers-bench: $*" >&2; exit 1; }
[ -x "$heapq" ] || fail "$heapq is missing: build first (cmake -S . -B build && cmake --build build)"
[ -f "$ext/memprof.rb" ] || fail "$ext/memprof.rb is missing: build first (cmake --build build)"
ruby -I "$ext" -rmemprof -e '' 2>/dev/null || fail "ruby -I $ext -rmemprof fails: rebuild"
command -v heapy >/dev/null || fail "heapy is missing: apt install ruby-heapy"
[ -x /usr/bin/time ] || fail "/usr/bin/time is missing: apt install time"
mkdir -p "$out"
table=$out/peers-table.md
: > "$table"

echo "start: $(uptime)"

# measure NAME CMD...: runs CMD (stdout and stderr to bench/out/peers-NAME.out, .err) under
# GNU time and timeout; sets secs (e.g. "12.30 s (13.1 s CPU)", or "> 900 s (timeout)"), mb,
# and raw_s, raw_mb (numbers for the ratios; raw_s is the limit on timeout).
measure() {
  m_name=$1
  shift
  set +e
  /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" timeout "$limit" "$@" \
    > "$out/peers-$m_name.out" 2> "$out/peers-$m_name.err"
  status=$?
  set -e
  read -r raw_s user sys kb <<EOF
$(tail -n 1 "$out/time.txt")
EOF
  raw_mb=$(awk -v kb="$kb" 'BEGIN { printf "%.0f", kb / 1024 }')
  mb="$raw_mb MB"
  if [ "$status" -eq 124 ]; then
    raw_s=$limit secs="> $limit s (timeout)" mb=">= $raw_mb MB"
  elif [ "$status" -ne 0 ]; then
    cat "$out/peers-$m_name.err" >&2
    fail "$m_name: exit status $status (output in $out/peers-$m_name.out, .err)"
  else
    secs=$(awk -v s="$raw_s" -v u="$user" -v y="$sys" 'BEGIN { printf "%.2f s (%.1f s CPU)", s, u + y }')
  fi
  echo "  $m_name: $secs, $mb" >&2
}

# ratio PEER HEAPQ [PREFIX]: "12x", the peer's figure divided by heapq's, after PREFIX (a
# bound: "> " or ">= " when the peer timed out).
ratio() {
  awk -v p="$1" -v h="$2" -v pre="${3:-}" 'BEGIN {
    if (h <= 0) { print "n/a"; exit }
    r = p / h
    printf "%s%.*fx", pre, (r < 10 ? 1 : 0), r }'
}

# compare LABEL NAME "HEAPQ ARGS" "PEER COMMAND": one row of the table (both are split on
# spaces: no dump path holds one).
compare() {
  # shellcheck disable=SC2086
  measure "$2-heapq" $heapq --quiet $3
  h_s=$raw_s h_mb=$raw_mb h_secs=$secs h_mem=$mb
  # shellcheck disable=SC2086
  measure "$2-peer" $4
  t_pre="" m_pre=""
  case $secs in ">"*) t_pre="> " m_pre=">= " ;; esac
  # the table names the dumps without their directory
  printf "| %s | \`heapq %s\` | %s | %s | \`%s\` | %s | %s | %s | %s |\n" \
    "$1" "$(echo "$3" | sed "s|$out/||g")" "$h_secs" "$h_mem" "$(echo "$4" | sed "s|$out/||g")" \
    "$secs" "$mb" \
    "$(ratio "$raw_s" "$h_s" "$t_pre")" "$(ratio "$raw_mb" "$h_mb" "$m_pre")" >> "$table"
}

for size in small large; do
  if [ "$size" = small ]; then orders=$small prefix=$out/growth; else orders=$large prefix=$out/growth4m; fi
  if [ ! -f "$prefix-3.json" ]; then
    echo "making $prefix-1.json .. -3.json ($orders orders, then 5% more twice) ..." >&2
    ruby bench/make-growth-dumps.rb "$prefix" "$orders"
  fi
  d1=$prefix-1.json d2=$prefix-2.json d3=$prefix-3.json
  records=$(wc -l < "$d3")  # also warms the page cache, as cat does for the others below
  cat "$d1" "$d2" > /dev/null
  label=$(awk -v r="$records" -v b="$(stat -c %s "$d3")" 'BEGIN {
    printf "%.1fM records, %.2f GB", r / 1e6, b / 1e9 }')
  echo "$label ($d3):" >&2
  compare "$label: summary" "$size-read" "stats $d3" "heapy read $d3"
  compare "$label: by allocation site" "$size-sites" "sites $d3" "heapy read $d3 all"
  compare "$label: diff of two" "$size-diff" "diff --by site $d1 $d3" "heapy diff $d1 $d3"
  compare "$label: growth over three" "$size-leaks" "leaks $d1 $d2 $d3" "heapy diff $d1 $d2 $d3"

  # The dumpers: one process of about as many objects (no allocation tracing: neither dumper
  # then writes sites), memprof and ObjectSpace alternating, the median of DUMPER_RUNS each.
  dump_orders=$((orders * 11 / 10))
  echo "  dumping ($dump_orders orders, $dumper_runs runs each) ..." >&2
  timeout "$limit" ruby -I "$ext" bench/dumper-bench.rb --fresh "$dump_orders" "$dumper_runs" \
    > "$out/peers-$size-dumper.out" || fail "dumper-bench.rb failed (see $out/peers-$size-dumper.out)"
  o_lines=""
  read -r m_s m_mb o_s o_mb m_lines o_lines <<EOF
$(sed -n -e 's/^fresh *median: memprof \([0-9.]*\) s (\([0-9.]*\) MB), ObjectSpace \([0-9.]*\) s (\([0-9.]*\) MB).*/\1 \2 \3 \4/p' \
  -e 's/^lines: memprof \([0-9]*\), ObjectSpace \([0-9]*\).*/\1 \2/p' "$out/peers-$size-dumper.out" | tr '\n' ' ')
EOF
  [ -n "$o_lines" ] || fail "cannot read the figures in $out/peers-$size-dumper.out"
  echo "  memprof $m_s s ($m_mb MB, $m_lines lines), ObjectSpace $o_s s ($o_mb MB, $o_lines lines)" >&2
  printf "| %s | \`Memprof.dump_all(path)\` | %.2f s | file %.0f MB | \`ObjectSpace.dump_all(output: f)\` | %.2f s | file %.0f MB | %s | %s (file) |\n" \
    "$(awk -v r="$o_lines" 'BEGIN { printf "%.1fM objects", r / 1e6 }'): dump the heap" \
    "$m_s" "$m_mb" "$o_s" "$o_mb" "$(ratio "$o_s" "$m_s")" "$(ratio "$o_mb" "$m_mb")" >> "$table"
done

echo "end: $(uptime)"
echo
echo "machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
  "$(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo) RAM; $(ruby -v | cut -d' ' -f1-2)," \
  "heapy $(heapy version), heapq $($heapq --version | awk '{ print $NF }')"
cat <<EOF
dumps: bench/make-growth-dumps.rb (ObjectSpace.dump_all, allocation tracing on), page cache
warm; heapq runs with --quiet and its default threads (one per core); every run under
timeout $limit s. Time is wall time (user + system CPU time in brackets), memory the peak
RSS (GNU time %M). The ratios are of wall time and peak RSS, the peer's over heapq's
(10x: heapq takes a tenth of the peer's).
what each pair does:
- summary: heapy read: objects and memsize by GC generation; heapq stats: objects and bytes
  by type and by class
- by allocation site: heapy read DUMP all: memsize, objects, references and duplicate
  strings by file:line; heapq sites: bytes and objects by file:line and class
- diff of two: heapy diff: the objects of the second dump whose address is not in the first,
  by type and file:line; heapq diff --by site: by file:line and class, the objects and bytes
  after, their change, how many were born and freed
- growth over three: heapy diff D1 D2 D3: the objects born between D1 and D2 still in D3; heapq
  leaks: those born after D1 and alive in D3 grouped by class and site, ranked by growth, each
  with what freeing them would free, the object holding them and its path from the roots
- dump the heap: both in one process without allocation tracing (bench/dumper-bench.rb
  --fresh: new files, the median of the runs); memprof's records also hold each class's name,
  the reference to the class and the name of each reference, hence its larger file
EOF
echo
echo "| dump: job | heapq / memprof | time | peak RSS | peer | time | peak RSS | peer time ÷ heapq's | peer RSS ÷ heapq's |"
echo "|---|---|---|---|---|---|---|---|---|"
cat "$table"
