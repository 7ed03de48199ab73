#!/usr/bin/env bash
# override.sh: Triton's kernel override picks up K*, end to end, on a machine with Triton (3.x,
# its AMD backend; no GPU needed: the compile is ahead of time for gfx942, as compile.py does).
#
#   bash test/corpus/triton/override.sh OUT [CONFIG] [TOOLS_DIR]
#
# OUT: a new or empty work directory; CONFIG: a configuration of compile.py with a partial spec
# in test/specs (default layernorm_fwd_fp16, which the rules driver improves within a dozen
# candidates); TOOLS_DIR: the AsmEvo tools (default build/bin of this checkout).
#  1. compile CONFIG for gfx942 with TRITON_KERNEL_DUMP=1, TRITON_DUMP_DIR=OUT/dump (K0);
#  2. run Makefile.workflow on K0 (RUN=OUT/run) and `make ... install INSTALL=triton:OUT/dump
#     INSTALL_DIR=OUT/override`;
#  3. compile again with TRITON_KERNEL_OVERRIDE=1, TRITON_OVERRIDE_DIR=OUT/override and check
#     that the code object Triton produces (k.asm["hsaco"]) is K*, byte for byte;
#  4. uninstall, and compile a third time: Triton's own K0 again.
# Prints every comparison with both SHA-256; exit 0 when all hold, 1 when one does not.
set -euo pipefail
if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
config=${2:-layernorm_fwd_fp16}
tools=$(cd "${3:-$src/build/bin}" && pwd)
arch=gfx942
sha() { sha256sum < "$1" | cut -d' ' -f1; }
status=0
# same FILE_A FILE_B WHAT: compare and print.
same() {
  if cmp -s "$1" "$2"; then
    echo "override.sh: ok: $3: $1 = $2 (SHA-256 $(sha "$1"))"
  else
    echo "override.sh: FAIL: $3: $1 (SHA-256 $(sha "$1")) differs from $2 (SHA-256 $(sha "$2"))"
    status=1
  fi
}
# compile DIR [VAR=value...]: compile.py's compile of CONFIG (a fresh Triton cache, always
# compiling) into DIR/<arch>/CONFIG.hsaco, with the environment given.
compile() {
  local dir=$1
  shift
  env "$@" python3 "$here/compile.py" "$dir" --archs "$arch" --only "$config" -j 1 \
    --log "$dir.log" > "$dir.out"
  [[ -f $dir/$arch/$config.hsaco ]] || { echo "override.sh: the compile failed: $dir.log" >&2; exit 1; }
}
[[ -z $(ls -A "$out") ]] || { echo "override.sh: error: '$out': not empty" >&2; exit 2; }
python3 -c 'import triton; print("override.sh: triton", triton.__version__, triton.__file__)'

echo "override.sh: 1. compile $config for $arch with TRITON_KERNEL_DUMP=1 TRITON_DUMP_DIR=$out/dump"
compile "$out/first" TRITON_KERNEL_DUMP=1 TRITON_DUMP_DIR="$out/dump"
k0=$out/first/$arch/$config.hsaco
dumped=$(find "$out/dump" -name '*.hsaco' | sort)
echo "override.sh: the dump holds: $(cd "$out/dump" && find . -type f | sort | tr '\n' ' ')"
[[ $(wc -l <<< "$dumped") -eq 1 ]] || { echo "override.sh: FAIL: one .hsaco expected in the dump" >&2; exit 1; }
same "$dumped" "$k0" "the dump's hsaco stage is K0 (k.asm[\"hsaco\"])"

echo "override.sh: 2. the workflow on K0, then install into $out/override"
wf=(make -s -f "$src/Makefile.workflow" -C "$src" RUN="$out/run" TOOLS="$tools" OBJ="$k0"
  MAX_CANDIDATES=12 BUDGET=600 AGENT_FLAGS='--seed 7 --seeds 1,2,3')
"${wf[@]}"
kstar=$out/run/$arch-$config/search/best.hsaco
if [[ ! -f $kstar ]] || cmp -s "$kstar" "$k0"; then
  echo "override.sh: FAIL: the search found no K* other than K0: nothing to override" >&2
  exit 1
fi
"${wf[@]}" install INSTALL="triton:$out/dump" INSTALL_DIR="$out/override"
rel=${dumped#"$out/dump/"}
same "$out/override/$rel" "$kstar" "the override file <override>/<hash>/<name>.hsaco is K*"

echo "override.sh: 3. compile again with TRITON_KERNEL_OVERRIDE=1 TRITON_OVERRIDE_DIR=$out/override"
compile "$out/second" TRITON_KERNEL_OVERRIDE=1 TRITON_OVERRIDE_DIR="$out/override"
same "$out/second/$arch/$config.hsaco" "$kstar" "Triton's hsaco with the override is K*"
grep -h 'Overriding kernel with file' "$out/second.log" || true

echo "override.sh: 4. uninstall; compile once more with the (now empty) override directory"
"${wf[@]}" uninstall INSTALL_DIR="$out/override"
[[ ! -e $out/override ]] && echo "override.sh: ok: $out/override is gone"
mkdir -p "$out/override"
compile "$out/third" TRITON_KERNEL_OVERRIDE=1 TRITON_OVERRIDE_DIR="$out/override"
same "$out/third/$arch/$config.hsaco" "$k0" "after the uninstall Triton's hsaco is K0 again"
echo "override.sh: $([[ $status -eq 0 ]] && echo PASS || echo FAIL)"
exit $status
