#!/bin/sh
# heapq load --to a PostgreSQL server (a cluster of its own in a temporary directory, started
# by scripts/pg-cluster): rows per second of heapq load next to psql's \copy of the same rows
# into tables of the same kind (the server's own limit here), and 8 dumps loaded at once next
# to one after another, in one run. Goals: heapq load at least 0.7x \copy's rate (heapq's time
# includes parsing the dump, its analyses, and the partitions' indexes); parallel loads at
# least 1.5x faster in total than serial ones on 2 cores. One load already works on two
# connections at once: the cores the machine kept busy in each phase say how much room
# running loads side by side had left.
# Every table of the dump is counted, graph_columns (the arrays heapq reads back) included.
# Usage: sh bench/pg-bench.sh [DUMP [SMALL_DUMP]]   (without them, bench/out/big.json (about 1M
# records) and bench/out/small.json (about 100k) are made once)
set -eu
cd "$(dirname "$0")/.."
build=${HEAPQ_BUILD_DIR:-build}
HEAPQ_BUILD_DIR=$build sh scripts/build >/dev/null
heapq=$(pwd)/$build/bin/heapq
dump=${1:-bench/out/big.json}
small=${2:-bench/out/small.json}
for d in "$dump:200000" "$small:20000"; do
  file=${d%:*}
  if [ ! -f "$file" ]; then
    mkdir -p "$(dirname "$file")"
    echo "making $file ..." >&2
    ruby bench/make-dump.rb "$file" "${d##*:}"
  fi
done
out=$(mktemp -d "${TMPDIR:-/tmp}/pg-bench.XXXXXX")
cleanup() {
  sh scripts/pg-cluster stop "$out/pg" >/dev/null 2>&1 || true
  rm -rf "$out"
}
trap cleanup EXIT INT TERM
chmod 711 "$out"  # the cluster's owner (postgres, when run as root) reaches its directory
mkdir "$out/pg"
url=$(sh scripts/pg-cluster start "$out/pg")
q() { psql "$url" -qAtc "$1"; }
seconds() { date +%s.%N; }
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }  # ticks, all cores

cat "$dump" "$small" >/dev/null  # the page cache holds the dumps
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# 1. One big dump: heapq load, then \copy of the very rows it wrote (every table of the dump).
t0=$(seconds)
"$heapq" --quiet load --to "$url" "$dump" >/dev/null
t1=$(seconds)
id=$(q "SELECT max(id) FROM heapq.dumps")
tables=$(q "SELECT string_agg(p.relname, ' ') FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
  JOIN pg_class p ON p.oid = i.inhparent WHERE c.relname = p.relname || '_d$id'")
rows=0
for t in $tables; do
  n=$(q "SELECT count(*) FROM heapq.${t}_d$id")
  rows=$((rows + n))
  psql "$url" -qc "\\copy heapq.${t}_d$id TO '$out/$t.bin' (FORMAT binary)"
done
# Into tables of the same columns: without an index, then with the indexes heapq's tables have
# (PostgreSQL's LIKE ... INCLUDING INDEXES), which heapq builds once each table's rows are in.
t2=$(seconds)
for t in $tables; do
  psql "$url" -qc "CREATE TABLE heapq.${t}_plain (LIKE heapq.$t INCLUDING DEFAULTS INCLUDING STORAGE)" \
    -c "\\copy heapq.${t}_plain FROM '$out/$t.bin' (FORMAT binary)"
done
t3=$(seconds)
for t in $tables; do
  psql "$url" -qc "CREATE TABLE heapq.${t}_indexed (LIKE heapq.$t INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING INDEXES)" \
    -c "\\copy heapq.${t}_indexed FROM '$out/$t.bin' (FORMAT binary)"
done
t3i=$(seconds)

# 2. Eight small dumps, one after another, then all at once.
t4=$(seconds)
b4=$(busy)
for i in 1 2 3 4 5 6 7 8; do "$heapq" --quiet load --to "$url" "$small" >/dev/null; done
t5=$(seconds)
b5=$(busy)
for i in 1 2 3 4 5 6 7 8; do "$heapq" --quiet load --to "$url" "$small" >/dev/null & done
wait
t6=$(seconds)
b6=$(busy)
loaded=$(q "SELECT count(*) FROM heapq.dumps")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

awk -v rows="$rows" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" -v t3i="$t3i" -v t4="$t4" -v t5="$t5" \
    -v t6="$t6" -v objects="$(q "SELECT objects FROM heapq.dumps WHERE id = $id")" \
    -v loaded="$loaded" -v cores="$(nproc)" -v before="$load_before" -v after="$load_after" \
    -v b4="$b4" -v b5="$b5" -v b6="$b6" -v hz="$(getconf CLK_TCK)" 'BEGIN {
  printf "machine              %d cores, load average %s before, %s after (one run)\n", cores, before, after
  printf "big dump             %d objects, %d rows in the dump'"'"'s tables\n", objects, rows
  load = t1 - t0; copy = t3 - t2; indexed = t3i - t3
  printf "heapq load --to      %6.2f s  %8.0f rows/s (parsing, analyses and indexes included)\n", load, rows / load
  printf "psql \\copy           %6.2f s  %8.0f rows/s (the same rows, indexed as heapq'"'"'s)\n", indexed, rows / indexed
  printf "psql \\copy, no index %6.2f s  %8.0f rows/s\n", copy, rows / copy
  printf "ratio                %6.2fx of \\copy'"'"'s rate with indexes, %.2fx without (goal >= 0.7x)\n", indexed / load, copy / load
  serial = t5 - t4; parallel = t6 - t5
  printf "8 small dumps        %6.2f s one after another, %6.2f s at once: %.2fx faster (goal >= 1.5x)\n", serial, parallel, serial / parallel
  printf "cores busy           %6.2f of %d one after another, %.2f at once\n", (b5 - b4) / hz / serial, cores, (b6 - b5) / hz / parallel
  printf "dumps in the store   %d (1 + 8 + 8 expected)\n", loaded
}'
