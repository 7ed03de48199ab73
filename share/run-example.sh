#!/usr/bin/env bash
# The main job on the bundled examples: install what is needed, build every tool into
# BUILD_DIR/bin and the two libraries into BUILD_DIR/lib (libasmevo-hip.so with hip-compat/, its
# links as libamdhip64, and libasmevo-capture.so, which dispatch-capture preloads), recover every
# bundled Triton code object (gfx90a, gfx942, gfx950) and run the round-trip gate on it, then run
# the whole workflow (Makefile.workflow: recover, gate, spec, baseline, profile, search with the
# rules driver, summary) on the gfx942 Triton layer norm on the emulator, print the verified,
# modeled result, write its HTML report, and say where the tools, the libraries, the run
# directory and the report are.
#   bash share/run-example.sh [BUILD_DIR]     (BUILD_DIR defaults to build/ in the repository)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
build=$(mkdir -p "$build" && cd "$build" && pwd)
bash "$src/test/setup-debian.sh"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
# What README.md's "Running the tools" says the set-up builds: every tool, and the libraries
# its HIP and dispatch-capture sections use (asmevo-hip also makes lib/hip-compat/).
tools=(hsaco-recover hsaco-rebuild hsaco-patch kernel-run kernel-diffcheck kernel-time asmevo-agent
  asmevo-report asmevo-install dispatch-capture)
libs=(asmevo-hip asmevo-capture)
ninja -C "$build" "${tools[@]}" "${libs[@]}"
for f in lib/libasmevo-hip.so lib/hip-compat/libamdhip64.so.5 lib/hip-compat/libamdhip64.so \
  lib/libasmevo-capture.so; do
  [ -e "$build/$f" ] || { echo "run-example.sh: error: the build made no $build/$f" >&2; exit 3; }
done
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
# The layer norm is checked on 3 rows (test/specs, three seeds) and timed on 1216 rows, 4 per CU
# of the modeled 304-CU MI300X (test/specs/timing: the representative launch).
make -s -f "$src/Makefile.workflow" -C "$src" TOOLS="$build/bin" RUN="$run" BUDGET=30 \
  OBJ=test/corpus/triton/gfx942/layernorm_fwd_fp16.hsaco \
  TIME_SPEC=test/specs/timing/layernorm_fwd_fp16.json
python3 - "$run" <<'PY'
import json, sys
k = json.load(open(sys.argv[1] + "/summary.json"))["kernels"][0]
d = sys.argv[1] + "/" + k["name"]
import os
grid = lambda f: ("x".join(str(g) for g in json.load(open(f))["grid"]) if os.path.exists(f)
                  else "(no %s)" % f)
print("the search: K* is %.4fx faster than K0 (%s on %s), verified by kernel-diffcheck against K0;"
      % (k["speedup"], "modeled, not measured" if k["kind"] == "modeled" else k["kind"], k["backend"]))
print("  %d candidates, %d commits; K* %s" % (k["candidates"], k["commits"], k["kstar"]))
print("  checked on grid %s (seeds 1,2,3; %s/spec.json), timed on grid %s (%s/time-spec.json)"
      % (grid(d + "/spec.json"), d, grid(d + "/time-spec.json"), d))
PY
kernel=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["kernels"][0]["name"])' \
  "$run/summary.json")
# The report: one self-contained HTML file (the lineage, the plots, every commit's evidence).
"$build/bin/asmevo-report" "$run" -o "$run/report.html" -q
for t in "${tools[@]}"; do
  "$build/bin/$t" --version
done
# Where everything is (README.md: "Running the tools").
echo "the tools: $build/bin; put them on PATH with:"
echo "  export PATH=\"$build/bin:\$PATH\""
echo "the libraries: $build/lib/libasmevo-hip.so (LD_LIBRARY_PATH=$build/lib/hip-compat runs a"
echo "  HIP program on the emulator) and $build/lib/libasmevo-capture.so (dispatch-capture's)"
echo "the run directory: $run (the kernel's steps in $run/$kernel/, its search in"
echo "  $run/$kernel/search/, the summary $run/summary.json)"
echo "the report: $run/report.html"
