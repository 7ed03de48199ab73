#!/usr/bin/env bash
# The main job on the bundled examples: install what is needed, build every tool into
# BUILD_DIR/bin, recover every bundled Triton code object (gfx90a, gfx942, gfx950) and run the
# round-trip gate on it, then run the whole workflow (Makefile.workflow: recover, gate, spec,
# baseline, profile, search with the rules driver, summary) on the gfx942 Triton layer norm on
# the emulator, print the verified, modeled result and where the run directory is, and write
# its HTML report.
#   bash share/run-example.sh [BUILD_DIR]     (BUILD_DIR defaults to build/ in the repository)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
bash "$src/test/setup-debian.sh"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
tools=(hsaco-recover hsaco-rebuild hsaco-patch kernel-run kernel-diffcheck kernel-time asmevo-agent
  asmevo-report asmevo-install)
ninja -C "$build" "${tools[@]}"
out=$build/examples
mkdir -p "$out"
for f in "$src"/test/corpus/triton/gfx*/*.hsaco; do
  arch=$(basename "$(dirname "$f")")
  "$build/bin/hsaco-recover" "$f" -o "$out/$arch-$(basename "$f" .hsaco).s" -q
done
echo "recovered assembly: $out"
"$build/bin/hsaco-recover" --check "$src"/test/corpus/triton/gfx*/*.hsaco
# The workflow on one kernel, on the emulator: every figure is modeled, not measured.
run=$build/examples/workflow
make -s -f "$src/Makefile.workflow" -C "$src" TOOLS="$build/bin" RUN="$run" BUDGET=30 \
  OBJ=test/corpus/triton/gfx942/layernorm_fwd_fp16.hsaco
python3 - "$run" <<'PY'
import json, sys
k = json.load(open(sys.argv[1] + "/summary.json"))["kernels"][0]
print("the search: K* is %.4fx faster than K0 (%s on %s), verified by kernel-diffcheck against K0;"
      % (k["speedup"], "modeled, not measured" if k["kind"] == "modeled" else k["kind"], k["backend"]))
print("  %d candidates, %d commits; K* %s" % (k["candidates"], k["commits"], k["kstar"]))
print("  run directory %s/%s" % (sys.argv[1], k["name"]))
PY
# The report: one self-contained HTML file (the lineage, the plots, every commit's evidence).
"$build/bin/asmevo-report" "$run" -o "$run/report.html" -q
echo "the report: $run/report.html"
# Where the tools are (README.md: "Running the tools").
for t in "${tools[@]}"; do
  "$build/bin/$t" --version
done
echo "the tools are in $build/bin; put them on PATH with:"
echo "  export PATH=\"$build/bin:\$PATH\""
