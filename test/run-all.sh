#!/usr/bin/env bash
# The test command: install what is needed, build (Ninja, -O2 without debug information: the
# tests need none, and -g made a compile a third longer) and run every test
# (units, CLI, corpus: compiled, Triton, stock-tool reassembly, Debian libraries, fuzz replay).
#   bash test/run-all.sh [BUILD_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
bash "$src/test/setup-debian.sh"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release '-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG' \
  '-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG' > /dev/null
ninja -C "$build"
cd "$build"
ctest --output-on-failure --timeout 3600 -j"$(nproc)"
