#!/bin/sh
# Builds the reader fuzz target with clang (libFuzzer + ASan + UBSan) and runs it.
# Usage: sh tests/fuzz/run.sh [SECONDS]   (default 60); crashes are written to build-fuzz/.
set -eu
cd "$(dirname "$0")/../.."
out=build-fuzz
mkdir -p "$out/corpus"
src=$(find analyzer/src -name '*.cc' -not -path '*/store/*' | sort)  # the store needs SQLite: not fuzzed here
clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I analyzer/include -I analyzer/src \
  tests/fuzz/reader_fuzz.cc $src -lz -lpthread -o "$out/reader_fuzz"
# Seeds: the first lines of every dump the tests know.
for f in tests/fixtures/foreign-dumps/*.json.gz; do
  gzip -dc "$f" | head -c 4000 > "$out/corpus/$(basename "$f" .gz)"
done
printf '%s\n' '{"type":"META","format":"memprof","version":1}' \
  '{"type":"ROOT","root":"vm","references":["0x10"],"reference_names":["$x"]}' \
  '{"address":"0x10","type":"HASH","class":"0x20","references":["0x30"],"reference_names":["[1]"],"memsize":40}' \
  '{"address":"0x20","type":"CLASS","name":"Hash","singleton":true,"superclass":"0x20","references":[]}' \
  '{"address":"0x30","type":"DATA","struct":"weakmap","references":["0x10"],"file":"a.rb","line":1}' \
  '{"type":"END","records":5}' > "$out/corpus/memprof.json"
"$out/reader_fuzz" -max_total_time="${1:-60}" -max_len=4096 -timeout=10 "$out/corpus"
