# Sourced by the bench scripts: builds heapq, then makes the benchmark dump $1 of $2 orders
# (about 5 records each) with bench/make-dump.rb unless it exists.
sh scripts/build >/dev/null
bench_dump() {
  if [ ! -f "$1" ]; then
    mkdir -p "$(dirname "$1")"
    echo "making $1 ($2 orders, about $(($2 * 5)) records) ..." >&2
    ruby bench/make-dump.rb "$1" "$2"
  fi
}
