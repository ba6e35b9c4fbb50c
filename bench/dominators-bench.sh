#!/bin/sh
# Builds bench/dominators-bench.cc against the dominator tree alone (no CMake build needed) and
# runs it. Usage: bench/dominators-bench.sh [NODES]   (default 3000000)
# BUILD_DIR chooses where the binary goes (default: build/bench under the repository).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${BUILD_DIR:-$repo/build/bench}
mkdir -p "$out"
${CXX:-g++} -std=c++20 -O2 -DNDEBUG -Wall -Wextra -Werror -I "$repo/analyzer/analyze/src" -I "$repo/analyzer/base/include" \
  "$repo/bench/dominators-bench.cc" "$repo/analyzer/analyze/src/dominator_tree.cc" \
  -o "$out/dominators-bench"
exec "$out/dominators-bench" "$@"
