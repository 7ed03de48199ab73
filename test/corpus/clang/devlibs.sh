#!/usr/bin/env bash
# Make a device-library folder for clang-22 HIP/OpenCL compiles against Debian's ROCm 5.2
# device libraries: symlinks to the system's bitcode files plus the one-global files they lack
# (oclc_abi_version_600.bc and oclc_isa_version_<N>.bc for each ARCH; see
# /work/shared/notes/building-amdgpu-kernels.md). Used by build.sh and test/hip/build.sh.
#
# Usage: devlibs.sh DIR ARCH...      Environment overrides: CLANG, LLVM_AS, ROCM_DEVICE_LIB_PATH.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 DIR ARCH..." >&2; exit 2; }
DEVLIBS=$1; shift
CLANG=${CLANG:-clang-22}
LLVM_AS=${LLVM_AS:-llvm-as-22}
SYS_DEVLIBS=${ROCM_DEVICE_LIB_PATH:-/usr/lib/x86_64-linux-gnu/amdgcn/bitcode}
die() { echo "devlibs.sh: error: $*" >&2; exit 1; }
[ -f "$SYS_DEVLIBS/ocml.bc" ] || die "no device libraries in $SYS_DEVLIBS (apt-get install rocm-device-libs)"

mkdir -p "$DEVLIBS"
for f in "$SYS_DEVLIBS"/*.bc; do ln -sfn "$f" "$DEVLIBS/"; done

DATALAYOUT=$("$CLANG" -x c -target amdgcn-amd-amdhsa -nogpulib -S -emit-llvm -o - /dev/null | grep '^target datalayout') \
  || die "cannot get the AMDGPU datalayout from $CLANG"

# gen_devlib FILE GLOBAL VALUE: a one-global bitcode file, unless the system has it.
gen_devlib() {
  local file=$DEVLIBS/$1
  [ -e "$file" ] && return 0
  printf '%s\ntarget triple = "amdgcn-amd-amdhsa"\n@%s = linkonce_odr protected local_unnamed_addr addrspace(4) constant i32 %s, align 4\n' \
    "$DATALAYOUT" "$2" "$3" | "$LLVM_AS" -o "$file.tmp" - || die "llvm-as failed for $file"
  mv "$file.tmp" "$file"
}

gen_devlib oclc_abi_version_600.bc __oclc_ABI_version 600
for arch in "$@"; do
  [[ $arch =~ ^gfx([0-9a-f]+)([0-9a-f])([0-9a-f])$ ]] || die "bad arch '$arch' (expected e.g. gfx942)"
  # ISA version = major*1000 + minor*100 + stepping (gfx942 -> 9402, gfx90a -> 9010)
  gen_devlib "oclc_isa_version_${arch#gfx}.bc" __oclc_ISA_version \
    $(( BASH_REMATCH[1] * 1000 + 16#${BASH_REMATCH[2]} * 100 + 16#${BASH_REMATCH[3]} ))
done
