#!/usr/bin/env bash
# The main job on the bundled examples: install what is needed, build, then recover every
# bundled Triton code object (gfx90a, gfx942, gfx950) and run the round-trip gate on it.
#   bash share/run-example.sh [BUILD_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
bash "$src/test/setup-debian.sh"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
ninja -C "$build" hsaco-recover
out=$build/examples
mkdir -p "$out"
for f in "$src"/test/corpus/triton/gfx*/*.hsaco; do
  arch=$(basename "$(dirname "$f")")
  "$build/tools/hsaco-recover/hsaco-recover" "$f" -o "$out/$arch-$(basename "$f" .hsaco).s" -q
done
echo "recovered assembly: $out"
"$build/tools/hsaco-recover/hsaco-recover" --check "$src"/test/corpus/triton/gfx*/*.hsaco
