#!/usr/bin/env bash
# The main job on the bundled examples: install what is needed, build every tool into
# BUILD_DIR/bin, then recover every bundled Triton code object (gfx90a, gfx942, gfx950), run the
# round-trip gate on it, then run the gfx942 vector add on the emulator and check its output.
#   bash share/run-example.sh [BUILD_DIR]     (BUILD_DIR defaults to build/ in the repository)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
bash "$src/test/setup-debian.sh"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
tools=(hsaco-recover hsaco-rebuild hsaco-patch kernel-run kernel-diffcheck)
ninja -C "$build" "${tools[@]}"
out=$build/examples
mkdir -p "$out"
for f in "$src"/test/corpus/triton/gfx*/*.hsaco; do
  arch=$(basename "$(dirname "$f")")
  "$build/bin/hsaco-recover" "$f" -o "$out/$arch-$(basename "$f" .hsaco).s" -q
done
echo "recovered assembly: $out"
"$build/bin/hsaco-recover" --check "$src"/test/corpus/triton/gfx*/*.hsaco
# The emulator: the gfx942 Triton vector add over 3000 elements (a masked tail), checked here.
cd "$out"
python3 - <<'PY'
import struct
n = 3000
open("x.bin", "wb").write(struct.pack("<%df" % n, *[i * 0.25 for i in range(n)]))
open("y.bin", "wb").write(struct.pack("<%df" % n, *[7.0 - i for i in range(n)]))
PY
"$build/bin/kernel-run" "$src/test/corpus/triton/gfx942/vector_add_fp32.hsaco" \
  --block 256 --grid 3 --arg @x.bin --arg @y.bin --arg zeros:12288 --arg 3000 \
  --arg null --arg null --out '#2=out.bin'
python3 - <<'PY'
import struct
out = struct.unpack("<3072f", open("out.bin", "rb").read())
bad = [i for i in range(3000) if out[i] != i * 0.25 + 7.0 - i] + [i for i in range(3000, 3072) if out[i] != 0]
print("vector add on the emulator: %d of 3000 elements checked, %d wrong" % (3000, len(bad)))
raise SystemExit(1 if bad else 0)
PY
# Where the tools are (README.md: "Running the tools").
for t in "${tools[@]}"; do
  "$build/bin/$t" --version
done
echo "the tools are in $build/bin; put them on PATH with:"
echo "  export PATH=\"$build/bin:\$PATH\""
