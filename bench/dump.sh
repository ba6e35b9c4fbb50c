# Sourced by the bench scripts: builds heapq, then makes the benchmark dump $1 of $2 orders
# (about 5 records each) with bench/make-dump.rb unless it exists; measure times a heapq run.
sh scripts/build >/dev/null
mkdir -p bench/out
measure() {  # prints "seconds peak-MB" of heapq --quiet ARGS
  /usr/bin/time -f "%e %M" -o bench/out/time.txt build/bin/heapq --quiet "$@" >/dev/null
  awk '{ printf "%.2f %.0f", $1, $2 / 1024 }' bench/out/time.txt
}
bench_dump() {
  if [ ! -f "$1" ]; then
    mkdir -p "$(dirname "$1")"
    echo "making $1 ($2 orders, about $(($2 * 5)) records) ..." >&2
    ruby bench/make-dump.rb "$1" "$2"
  fi
}
