#!/usr/bin/env bash
# Build the clang test corpus: every src/*.hip and src/*.cl compiled into
# device-only AMDGPU code objects, OUTDIR/<arch>/<name>.hsaco, plus a few
# target-id variants (xnack/sramecc on/off) in OUTDIR/<arch>-<features>/.
#
# Usage: build.sh OUTDIR [ARCH...]        (default ARCHs: gfx90a gfx942 gfx950)
#
# Needs (Debian 12):  apt-get install clang-22 lld-22 llvm-22 rocm-device-libs libamdhip64-dev
#   clang-22          compiler (HIP and OpenCL front ends, AMDGPU back end)
#   lld-22            ld.lld-22, links the OpenCL objects into code objects
#   llvm-22           llvm-as-22, assembles the missing device-library files
#   rocm-device-libs  ocml/ockl/oclc_*.bc under /usr/lib/x86_64-linux-gnu/amdgcn/bitcode
#   libamdhip64-dev   HIP headers (/usr/include/hip)
#
# Environment overrides: CLANG, LLD, LLVM_AS, ROCM_PATH, ROCM_DEVICE_LIB_PATH, JOBS.
#
# A source may carry extra compiler flags in a comment line of the form
#   // corpus-flags: <flags...>
# (used by kernarg_preload.hip).
set -euo pipefail

usage() { echo "usage: $0 OUTDIR [ARCH...]   (default ARCHs: gfx90a gfx942 gfx950)" >&2; exit 2; }
[ $# -ge 1 ] || usage
case "$1" in -h|--help) usage ;; esac

OUTDIR=$1; shift
ARCHS=("$@")
[ ${#ARCHS[@]} -gt 0 ] || ARCHS=(gfx90a gfx942 gfx950)

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRCDIR=$HERE/src
CLANG=${CLANG:-clang-22}
LLD=${LLD:-ld.lld-22}
LLVM_AS=${LLVM_AS:-llvm-as-22}
ROCM_PATH=${ROCM_PATH:-/usr}
SYS_DEVLIBS=${ROCM_DEVICE_LIB_PATH:-/usr/lib/x86_64-linux-gnu/amdgcn/bitcode}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# Target-id variants (different e_flags xnack/sramecc settings), built for the
# sources in VARIANT_SOURCES when their base arch is among ARCHS. The output
# folder is the target id with ':' replaced by '-', e.g. OUTDIR/gfx942-xnack-/.
VARIANTS=(gfx90a:xnack+ gfx90a:sramecc-:xnack- gfx942:xnack- gfx942:sramecc+:xnack+ gfx950:xnack-)
VARIANT_SOURCES=(lds_reduce.hip ocl_kernels.cl)

die() { echo "build.sh: error: $*" >&2; exit 1; }

for tool in "$CLANG" "$LLD" "$LLVM_AS"; do
  command -v "$tool" >/dev/null || die "'$tool' not found (apt-get install clang-22 lld-22 llvm-22)"
done
[ -f "$SYS_DEVLIBS/ocml.bc" ] || die "no device libraries in $SYS_DEVLIBS (apt-get install rocm-device-libs)"
[ -f "$ROCM_PATH/include/hip/hip_runtime.h" ] || die "no HIP headers in $ROCM_PATH/include/hip (apt-get install libamdhip64-dev)"

shopt -s nullglob
SOURCES=("$SRCDIR"/*.hip "$SRCDIR"/*.cl)
[ ${#SOURCES[@]} -gt 0 ] || die "no sources in $SRCDIR"

mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

# --- device libraries: symlinks to the system ones + generated missing files ---
DEVLIBS=$OUTDIR/devlibs
CLANG=$CLANG LLVM_AS=$LLVM_AS ROCM_DEVICE_LIB_PATH=$SYS_DEVLIBS "$HERE/devlibs.sh" "$DEVLIBS" "${ARCHS[@]}"

# --- one compile job: compile_one TARGET_ID OUTSUBDIR SOURCE ---
compile_one() {
  local tid=$1 sub=$2 src=$3
  local name; name=$(basename "$src"); name=${name%.*}
  local out=$OUTDIR/$sub/$name.hsaco
  local log=$OUTDIR/$sub/$name.log
  local -a extra=()
  local line
  line=$(sed -n 's|^[[:space:]]*//[[:space:]]*corpus-flags:||p;T;q' "$src")
  [ -n "$line" ] && read -r -a extra <<<"$line"
  mkdir -p "$OUTDIR/$sub"
  rm -f "$out"
  local ok=1
  case "$src" in
    *.hip)
      "$CLANG" -x hip -std=c++17 --cuda-device-only --no-gpu-bundle-output --offload-arch="$tid" \
        -D__AMDGCN_WAVEFRONT_SIZE=64 --rocm-path="$ROCM_PATH" --rocm-device-lib-path="$DEVLIBS" \
        -Xclang -mlink-builtin-bitcode -Xclang "$DEVLIBS/oclc_daz_opt_off.bc" \
        -Xclang -mlink-builtin-bitcode -Xclang "$DEVLIBS/hip.bc" \
        -O3 "${extra[@]}" "$src" -o "$out.tmp" >"$log" 2>&1 || ok=0 ;;
    *.cl)
      { "$CLANG" -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu="$tid" \
          --rocm-path="$ROCM_PATH" --rocm-device-lib-path="$DEVLIBS" \
          -O3 "${extra[@]}" -c "$src" -o "$out.o" &&
        "$LLD" -shared "$out.o" -o "$out.tmp"; } >"$log" 2>&1 || ok=0
      rm -f "$out.o" ;;
    *) echo "unknown source type: $src" >"$log"; ok=0 ;;
  esac
  if [ $ok = 1 ]; then
    mv "$out.tmp" "$out"
    [ -s "$log" ] && { echo "== $name ($tid):"; cat "$log"; } >&2
    rm -f "$log"
    return 0
  fi
  rm -f "$out.tmp"
  { echo "build.sh: FAILED: $src for $tid"; cat "$log"; } >&2
  echo "$src ($tid)" >>"$OUTDIR/.failed"
  return 1
}
export -f compile_one
export OUTDIR DEVLIBS CLANG LLD ROCM_PATH

JOBLIST=()
for arch in "${ARCHS[@]}"; do
  for src in "${SOURCES[@]}"; do JOBLIST+=("$arch" "$arch" "$src"); done
done
for v in "${VARIANTS[@]}"; do
  base=${v%%:*}
  [[ " ${ARCHS[*]} " == *" $base "* ]] || continue
  for s in "${VARIANT_SOURCES[@]}"; do JOBLIST+=("$v" "${v//:/-}" "$SRCDIR/$s"); done
done

rm -f "$OUTDIR/.failed"
rc=0
printf '%s\0' "${JOBLIST[@]}" | xargs -0 -n 3 -P "$JOBS" bash -c 'compile_one "$@"' _ || rc=$?
if [ -s "$OUTDIR/.failed" ]; then
  echo "build.sh: $(wc -l <"$OUTDIR/.failed") compile(s) failed:" >&2
  sed 's/^/  /' "$OUTDIR/.failed" >&2
  exit 1
fi
rm -f "$OUTDIR/.failed"
[ $rc = 0 ] || die "xargs exited with status $rc"
echo "build.sh: built $(( ${#JOBLIST[@]} / 3 )) code objects in $OUTDIR"
