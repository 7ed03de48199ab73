#!/usr/bin/env bash
# Mutant tests for kernel-diffcheck: every mutant listed in MANIFEST.tsv is made from a real
# corpus kernel (hsaco-recover -> mutate.py -> hsaco-rebuild --abi-of K0) and must get the
# verdict the manifest names; K0 against itself must be ok. Prints one line per mutant and
# the counts per mutant class; exits 1 if any mutant escapes or any K0 is rejected.
#   run.sh TOOLS_DIR [WORK_DIR]
# MUTANTS_SAMPLE=N (default 1: every mutant) runs every N-th mutant of each kernel and target,
# rotated by target (gfx90a from the first, gfx942 from the second, ...), so that with N = 2 each
# kernel built for gfx90a and gfx942 still meets every class on one of them; K0 against itself
# is checked for every kernel whatever N. CI (ctest check.mutants) runs N = 2.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
tools=$1
work=${2:-$(mktemp -d)}
mkdir -p "$work"
recover=$tools/hsaco-recover
rebuild=$tools/hsaco-rebuild
diffcheck=$tools/kernel-diffcheck
declare -A class_total class_caught seen
sample=${MUTANTS_SAMPLE:-1}
skipped=0
fails=0
checked_k0=""
verdict_of() { # K0 K1 SPEC -> prints the report's outcome (or "error:<rc>:<stderr>")
  local out rc
  out=$("$diffcheck" "$1" "$2" --spec "$3" --json 2>"$work/stderr")
  rc=$?
  local v
  v=$(printf '%s' "$out" | python3 -c '
import json, sys
o = json.load(sys.stdin)["outcome"]
print("" if o == "input_error" else o)' 2>/dev/null)
  if [ -z "$v" ]; then echo "error:$rc:$(head -c 300 "$work/stderr")"; else echo "$v"; fi
}
while IFS=$'\t' read -r arch object kernel spec class edit expect why; do
  case "$arch" in ''|'#'*|arch) continue ;; esac
  k0=$src/test/corpus/triton/$arch/$object.hsaco
  specf=$src/test/specs/$spec
  base=$work/$arch-$object
  if [ ! -f "$base.s" ]; then
    "$recover" "$k0" -o "$base.s" -q || { echo "FAIL recover $k0"; fails=$((fails+1)); continue; }
  fi
  case " $checked_k0 " in
    *" $arch/$object "*) ;;
    *) checked_k0="$checked_k0 $arch/$object"
       v=$(verdict_of "$k0" "$k0" "$specf")
       if [ "$v" = ok ]; then echo "ok    $arch $object: K0 vs K0 ok"
       else echo "FAIL  $arch $object: K0 vs K0 gave $v"; fails=$((fails+1)); fi ;;
  esac
  id="$arch-$object-$class"
  k=${seen[$arch/$object]:-0}
  seen[$arch/$object]=$((k + 1))
  case "$arch" in gfx90a) rot=0 ;; gfx942) rot=1 ;; *) rot=2 ;; esac
  if [ $(((k + rot) % sample)) -ne 0 ]; then skipped=$((skipped + 1)); continue; fi
  class_total[$class]=$(( ${class_total[$class]:-0} + 1 ))
  if [[ $edit == *:@* ]]; then # seed-only:SREG:@N -> the first dword of argument N, seed 1
    n=${edit##*:@}
    rm -rf "$work/dump" && "$diffcheck" "$k0" "$k0" --spec "$specf" --seeds 1 \
      --dump-inputs "$work/dump" -q >/dev/null 2>&1
    bits=$(od -An -tx4 -N4 "$work"/dump/seed1/"${n}"_*.in.bin | tr -d ' ')
    edit=${edit%:@*}:$bits
  fi
  if ! python3 "$here/mutate.py" "$base.s" "$work/$id.s" "$kernel" "$edit"; then
    echo "FAIL  $id: mutation did not apply"; fails=$((fails+1)); continue
  fi
  if ! "$rebuild" "$work/$id.s" -o "$work/$id.hsaco" --abi-of "$k0" -q 2>"$work/$id.rebuild"; then
    got="abi_invalid"
  else
    got=$(verdict_of "$k0" "$work/$id.hsaco" "$specf")
  fi
  if [ "$got" = "$expect" ]; then
    class_caught[$class]=$(( ${class_caught[$class]:-0} + 1 ))
    echo "ok    $id: $got ($why)"
  else
    echo "FAIL  $id: expected $expect, got $got ($why)"; fails=$((fails+1))
  fi
done < "$here/MANIFEST.tsv"
[ "$skipped" -eq 0 ] || echo "MUTANTS_SAMPLE=$sample: $skipped mutants not run (every one: MUTANTS_SAMPLE=1)"
echo "mutants per class (verdict as expected / total):"
for c in "${!class_total[@]}"; do echo "  $c ${class_caught[$c]:-0}/${class_total[$c]}"; done | sort
[ "$fails" -eq 0 ]
