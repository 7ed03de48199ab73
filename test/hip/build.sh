#!/usr/bin/env bash
# Build the HIP host programs of test/hip for the emulated runtime's tests:
#   OUTDIR/<name>        host program + its gfx942 fat binary, linked against -lamdhip64
#                        (Debian's libamdhip64.so; run it with LD_LIBRARY_PATH pointing at
#                        libasmevo-hip's hip-compat folder)
#   OUTDIR/<name>.hsaco  the same source's device code alone, for hipModuleLoad
#   OUTDIR/<name>        for each <name>.cpp: a host-only program (g++), which opens the runtime
#                        with dlopen as Triton does
#   OUTDIR/<name>-linked with ASMEVO_LIB_DIR set (build/lib): the program linked against
#                        libasmevo-hip itself (-lasmevo-hip, with an rpath to it)
# Usage: build.sh OUTDIR [ARCH]   (default gfx942). Needs clang-22, clang-tools-22
# (clang-offload-bundler), llvm-22, rocm-device-libs and libamdhip64-dev.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [ARCH]" >&2; exit 2; }
OUTDIR=$1
ARCH=${2:-gfx942}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CLANG=${CLANG:-clang-22}
export PATH=/usr/lib/llvm-22/bin:$PATH # clang-offload-bundler
command -v clang-offload-bundler >/dev/null ||
  { echo "build.sh: error: no clang-offload-bundler (apt-get install clang-tools-22)" >&2; exit 1; }
mkdir -p "$OUTDIR"
DEVLIBS=$OUTDIR/devlibs
"$HERE/../corpus/clang/devlibs.sh" "$DEVLIBS" "$ARCH"
FLAGS=(-x hip -std=c++17 --offload-arch="$ARCH" -D__AMDGCN_WAVEFRONT_SIZE=64 --rocm-path=/usr
  --rocm-device-lib-path="$DEVLIBS"
  -Xclang -mlink-builtin-bitcode -Xclang "$DEVLIBS/oclc_daz_opt_off.bc"
  -Xclang -mlink-builtin-bitcode -Xclang "$DEVLIBS/hip.bc" -O2 -Wno-unused-command-line-argument)
for src in "$HERE"/*.hip; do
  name=$(basename "$src" .hip)
  "$CLANG" "${FLAGS[@]}" --cuda-device-only --no-gpu-bundle-output "$src" -o "$OUTDIR/$name.hsaco.tmp"
  mv "$OUTDIR/$name.hsaco.tmp" "$OUTDIR/$name.hsaco"
  "$CLANG" "${FLAGS[@]}" "$src" -o "$OUTDIR/$name.tmp" -lamdhip64 -lstdc++ 2> "$OUTDIR/$name.log" ||
    { cat "$OUTDIR/$name.log" >&2; exit 1; }
  mv "$OUTDIR/$name.tmp" "$OUTDIR/$name"
  if [ -n "${ASMEVO_LIB_DIR:-}" ]; then
    "$CLANG" "${FLAGS[@]}" "$src" -o "$OUTDIR/$name-linked.tmp" -no-hip-rt -L"$ASMEVO_LIB_DIR" -lasmevo-hip \
      -Wl,-rpath,"$ASMEVO_LIB_DIR" -lstdc++ 2> "$OUTDIR/$name.log" ||
      { cat "$OUTDIR/$name.log" >&2; exit 1; }
    mv "$OUTDIR/$name-linked.tmp" "$OUTDIR/$name-linked"
  fi
done
for src in "$HERE"/*.cpp; do
  name=$(basename "$src" .cpp)
  g++ -std=c++17 -O2 -Wall "$src" -o "$OUTDIR/$name.tmp" -ldl
  mv "$OUTDIR/$name.tmp" "$OUTDIR/$name"
done
