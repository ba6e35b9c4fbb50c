#!/bin/sh
# Builds the libFuzzer targets with clang (libFuzzer + ASan + UBSan) and runs them: first every
# regression input under tests/fuzz/corpus/TARGET/ once, whole, then each target for a quarter of
# SECONDS (default 60). Crashes are written to build-fuzz/; each one found is fixed and becomes
# a regression input under tests/fuzz/corpus/.
# Usage: sh tests/fuzz/run.sh [SECONDS]
set -eu
cd "$(dirname "$0")/../.."
seconds=${1:-60}
out=build-fuzz
CC=clang CXX=clang++ cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHEAPQ_FUZZ=ON \
  -DHEAPQ_SANITIZE=ON -DHEAPQ_WERROR=ON >/dev/null
cmake --build "$out" -j "$(nproc)" --target reader_fuzz store_fuzz render_fuzz profile_fuzz >/dev/null

# Seeds for the reader: the first lines of every dump the tests know, and a memprof dump.
mkdir -p "$out/corpus-reader" "$out/corpus-store" "$out/corpus-render" "$out/corpus-profile"
for f in tests/fixtures/foreign-dumps/*.json.gz; do
  gzip -dc "$f" | head -c 4000 > "$out/corpus-reader/$(basename "$f" .gz)"
done
printf '%s\n' '{"type":"META","format":"memprof","version":1}' \
  '{"type":"ROOT","root":"vm","references":["0x10"],"reference_names":["$x"]}' \
  '{"address":"0x10","type":"HASH","class":"0x20","references":["0x30"],"reference_names":["[1]"],"memsize":40}' \
  '{"address":"0x20","type":"CLASS","name":"Hash","singleton":true,"superclass":"0x20","references":[]}' \
  '{"address":"0x30","type":"DATA","struct":"weakmap","references":["0x10"],"file":"a.rb","line":1}' \
  '{"type":"END","records":5}' > "$out/corpus-reader/memprof.json"
cp "$out"/corpus-reader/* "$out/corpus-render/"
# Seeds for the profile reader: memprof's profile, gzip'd and not.
cp tests/fixtures/profiles/widgets.pb.gz "$out/corpus-profile/"
gzip -dc tests/fixtures/profiles/widgets.pb.gz > "$out/corpus-profile/widgets.pb"

for target in reader store render profile; do
  fuzzer="$out/tests/${target}_fuzz"
  regressions=$(find "tests/fuzz/corpus/$target" -type f 2>/dev/null | sort)
  # shellcheck disable=SC2086  # one argument per file: libFuzzer runs each once
  [ -z "$regressions" ] || "$fuzzer" -artifact_prefix="$out/" $regressions 2>"$out/$target-regressions.log" ||
    { tail -40 "$out/$target-regressions.log" >&2; exit 1; }
  "$fuzzer" -max_total_time=$((seconds / 4)) -max_len=4096 -timeout=10 -artifact_prefix="$out/" \
    "$out/corpus-$target" "tests/fuzz/corpus/$target" 2>"$out/$target.log" ||
    { tail -40 "$out/$target.log" >&2; exit 1; }
  grep -h "^Done\|^#.*DONE" "$out/$target.log" | tail -1 | sed "s/^/$target: /" >&2
done
