#!/usr/bin/env bash
# Check the code objects that build.sh wrote to OUTDIR: each one must contain
# the features its source is meant to exercise (see README.md), the e_flags its
# folder name asks for, and no kernel may have been compiled into s_trap.
#
# Usage: check.sh OUTDIR        (exit status 1 if any check fails)
#
# Needs llvm-22 (llvm-objdump-22, llvm-readelf-22, llvm-nm-22); plain POSIX awk.
# "cond && note ... || fail ..." is intended: note (an array append) never fails.
# shellcheck disable=SC2015
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
OUTDIR=$1
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OBJDUMP=${OBJDUMP:-llvm-objdump-22}
READELF=${READELF:-llvm-readelf-22}
NM=${NM:-llvm-nm-22}
for tool in "$OBJDUMP" "$READELF" "$NM"; do
  command -v "$tool" >/dev/null || { echo "check.sh: '$tool' not found (apt-get install llvm-22)" >&2; exit 2; }
done
[ -d "$OUTDIR" ] || { echo "check.sh: no such directory: $OUTDIR" >&2; exit 2; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DIS=$TMP/dis KD=$TMP/kd SYMS=$TMP/syms

NFAIL=0 NOBJ=0
OBJ='' ARCH='' NOTES=()
fail() { echo "FAIL $OBJ: $*"; NFAIL=$((NFAIL + 1)); }
note() { NOTES+=("$*"); }

# need REGEX LABEL: the disassembly has a line matching REGEX (grep -E).
need() { if grep -qE -- "$1" "$DIS"; then note "$2"; else fail "missing $2 (/$1/)"; fi; }
# kernels [REGEX]: kernel symbol names (from the .kd symbols), optionally filtered.
kernels() { awk '$3 ~ /^[Rr]$/ && $4 ~ /\.kd$/ { sub(/\.kd$/, "", $4); print $4 }' "$SYMS" | grep -E -- "${1:-.}" || true; }
# kd_field KERNEL FIELD: value of .amdhsa_FIELD in KERNEL's descriptor (empty if not printed).
kd_field() { awk -v k="$1" -v f=".amdhsa_$2" '$1 == ".amdhsa_kernel" { cur = $2 } cur == k && $1 == f { print $2 }' "$KD"; }
# func_dis NAME: the disassembly of function NAME only.
func_dis() { awk -v n="<$1>:" '/^[0-9a-f]+ </ { on = ($2 == n); next } on' "$DIS"; }
# pcrel_targets [FUNC]: symbols named by s_getpc_b64 + s_add_u32 pairs (address = getpc + 4 + simm32),
# one "symbol nm-type" per line, in FUNC or in the whole object.
pcrel_targets() {
  { if [ -n "${1:-}" ]; then func_dis "$1"; else cat "$DIS"; fi; } | awk -v syms="$SYMS" '
    function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
      for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); v = v * 16 + c - 1 }
      return v }
    BEGIN { while ((getline l < syms) > 0) { split(l, f, " ")
              if (f[3] ~ /^[aUw]$/) continue
              n++; sa[n] = hex(f[1]); ss[n] = hex(f[2]); st[n] = f[3]; sn[n] = f[4] } }
    $1 == "s_getpc_b64" { reg = $2; sub(/^s\[/, "", reg); sub(/:.*/, "", reg)
                          a = $0; sub(/.*\/\/ */, "", a); sub(/:.*/, "", a); pc = hex(a) + 4; next }
    $1 == "s_add_u32" && pc > 0 { d = $2; sub(/,/, "", d)
        if (d == "s" reg) { imm = $4; if (imm ~ /^0x/) imm = hex(imm); else imm = imm + 0
          if (imm >= 2147483648) imm -= 4294967296
          t = pc + imm; best = ""
          for (i = 1; i <= n; i++) if (t == sa[i] || (t > sa[i] && t < sa[i] + ss[i])) { best = sn[i] " " st[i]; break }
          print (best == "" ? "?" : best) }
        pc = 0; next }
    { pc = 0 }'
}

check_object() {
  ARCH=$2 NOTES=()
  local sub=$3 name; name=$(basename "$1" .hsaco)
  OBJ=$sub/$name.hsaco
  NOBJ=$((NOBJ + 1))
  local nfail0=$NFAIL
  "$OBJDUMP" -d --mcpu="$ARCH" "$1" >"$DIS" 2>"$TMP/err" || { fail "llvm-objdump failed: $(cat "$TMP/err")"; return; }
  "$NM" -S --defined-only "$1" >"$SYMS"
  local ks; ks=$(kernels | paste -sd, -)
  [ -n "$ks" ] || { fail "no kernels (.kd symbols)"; return; }
  "$OBJDUMP" -D --mcpu="$ARCH" --disassemble-symbols="$(kernels | sed 's/$/.kd/' | paste -sd, -)" "$1" >"$KD" 2>/dev/null
  local nk; nk=$(kernels | wc -l)

  # --- generic checks ---
  local flags; flags=$("$READELF" -h "$1" | awk '/Flags:/ { print $2 }'); flags=${flags%,}
  local mach; case $ARCH in gfx90a) mach=$((0x3f)) ;; gfx942) mach=$((0x4c)) ;; gfx950) mach=$((0x4f)) ;; *) mach= ;; esac
  [ -z "$mach" ] || [ $((flags & 0xff)) = "$mach" ] || fail "e_flags $flags: machine is not $ARCH"
  local x=$((0x100)) s=$((0x400))   # xnack / sramecc "any" (no suffix in the target id)
  [[ $sub == *xnack-* ]] && x=$((0x200)); [[ $sub == *xnack+* ]] && x=$((0x300))
  [[ $sub == *sramecc-* ]] && s=$((0x800)); [[ $sub == *sramecc+* ]] && s=$((0xc00))
  [ $((flags & 0x300)) = $x ] || fail "e_flags $flags: xnack bits $(printf 0x%x $((flags & 0x300))), expected $(printf 0x%x $x) for '$sub'"
  [ $((flags & 0xc00)) = $s ] || fail "e_flags $flags: sramecc bits $(printf 0x%x $((flags & 0xc00))), expected $(printf 0x%x $s) for '$sub'"
  if grep -q 's_trap' "$DIS"; then
    fail "s_trap in $(awk '/^[0-9a-f]+ </ { f = $2 } $1 == "s_trap" { print f }' "$DIS" | sort -u | paste -sd' ' -)"
  fi
  if grep -q '<unknown>' "$DIS"; then fail "undecodable words in .text"; fi
  local k
  for k in $(kernels); do
    local body; body=$(func_dis "$k")
    [ -n "$body" ] || { fail "kernel $k has no code"; continue; }
    grep -q 's_endpgm' <<<"$body" || fail "kernel $k has no s_endpgm"
    [ "$(grep -c '' <<<"$body")" -ge 4 ] || fail "kernel $k is only $(grep -c '' <<<"$body") instructions"
  done

  # --- per-source features ---
  case $name in
    lds_reduce)
      need '^\s+ds_(write|store)' "ds_write"; need '^\s+ds_(read|load)' "ds_read"; need '^\s+s_barrier' "s_barrier"
      for k in $(kernels); do
        [ "$(kd_field "$k" group_segment_fixed_size)" -gt 0 ] 2>/dev/null || fail "$k: group_segment_fixed_size is 0"
      done ;;
    dpp_reduce)
      need '^\s+ds_bpermute_b32' "ds_bpermute(__shfl_xor)"; need '_dpp .*quad_perm:' "dpp quad_perm"
      need '_dpp .*row_shr:' "dpp row_shr"; need '_dpp .*row_bcast:' "dpp row_bcast"; need '^\s+ds_swizzle_b32' "ds_swizzle" ;;
    mfma)
      need '^\s+v_mfma_f32_32x32x8_?f16\s' "mfma 32x32x8f16"; need '^\s+v_mfma_f32_16x16x16_?f16\s' "mfma 16x16x16f16"
      need '^\s+v_mfma_f32_16x16x16_?bf16(_1k)?\s' "mfma 16x16x16bf16"; need '^\s+v_mfma_f32_32x32x8_?bf16(_1k)?\s' "mfma 32x32x8bf16"
      need '^\s+v_mfma_f64_16x16x4_?f64\s' "mfma f64"
      local want=4
      if [[ $ARCH == gfx942 || $ARCH == gfx950 ]]; then
        want=5; need '^\s+v_mfma_f32_16x16x32_fp8_fp8\s' "mfma fp8"; need '^\s+v_mfma_f32_16x16x32_bf8_fp8\s' "mfma bf8*fp8"
      fi
      if [[ $ARCH == gfx950 ]]; then
        want=6; need '^\s+v_mfma_f32_16x16x32_f16\s' "mfma 16x16x32f16"; need '^\s+v_mfma_f32_16x16x32_bf16\s' "mfma 16x16x32bf16"
      fi
      [ "$nk" = $want ] || fail "$nk kernels, expected $want for $ARCH" ;;
    packed_math)
      local op; for op in add_f16 mul_f16 fma_f16 add_f32 mul_f32 fma_f32; do need "^\s+v_pk_$op\s" "v_pk_$op"; done ;;
    fp64)
      need '^\s+v_fma(c)?_f64' "v_fma_f64"; need '^\s+v_mul_f64' "v_mul_f64"; need '^\s+v_add_f64' "v_add_f64"
      need '^\s+v_div_scale_f64' "v_div_scale_f64"; need '^\s+v_div_fmas_f64' "v_div_fmas_f64"
      need '^\s+v_(rsq|sqrt)_f64' "v_rsq/sqrt_f64"; need '^\s+v_floor_f64' "v_floor_f64"; need '^\s+v_cvt_f64_i32' "v_cvt_f64_i32" ;;
    scratch)
      need '^\s+(scratch|buffer)_store_dword' "scratch store"; need '^\s+(scratch|buffer)_load_dword' "scratch load"
      for k in $(kernels); do
        local p; p=$(kd_field "$k" private_segment_fixed_size)
        [ "${p:-0}" -gt 0 ] && note "private_segment_fixed_size=$p" || fail "$k: private_segment_fixed_size is ${p:-absent}"
      done ;;
    calls)
      need '^\s+s_swappc_b64' "s_swappc_b64"; need '^\s+s_setpc_b64 s\[30:31\]' "s_setpc_b64 return"
      # (no "cmd | grep -q" here: with pipefail, grep -q exiting early can fail the pipe)
      local kd kdt kdb; kd=$(kernels '^_Z[0-9]+direct_call'); kdt=$(pcrel_targets "$kd"); kdb=$(func_dis "$kd")
      if grep -q 'poly.* t$' <<<"$kdt" && grep -q s_swappc_b64 <<<"$kdb"; then note "direct call to poly"
      else fail "$kd does not call poly through s_getpc/s_swappc"; fi
      local ki kit kib nops; ki=$(kernels '^_Z[0-9]+indirect_call'); kit=$(pcrel_targets "$ki"); kib=$(func_dis "$ki")
      nops=$(grep -c 'op_.* t$' <<<"$kit" || true)
      if [ "$nops" -ge 2 ] && grep -q s_swappc_b64 <<<"$kib" && ! grep -qE 's_cmp_(lg|eq)_u64' <<<"$kib"; then
        note "indirect call (1 of $nops callees)"
      else fail "$ki: no indirect call (callee addresses: $nops, or the call was specialised into compares)"; fi ;;
    multi_kernel)
      [ "$nk" -ge 4 ] || fail "$nk kernels, expected >= 4"
      need '^\s+s_barrier' "s_barrier"
      [ "$(kd_field "$(kernels '^_Z[0-9]+copy3d')" system_vgpr_workitem_id)" = 2 ] && note "3-D workitem ids" || fail "copy3d: system_vgpr_workitem_id != 2" ;;
    kernarg_preload)
      if [[ $ARCH == gfx942 || $ARCH == gfx950 ]]; then
        for k in $(kernels); do
          local pl; pl=$(kd_field "$k" user_sgpr_kernarg_preload_length)
          [ "${pl:-0}" -gt 0 ] || fail "$k: user_sgpr_kernarg_preload_length is ${pl:-absent}"
          func_dis "$k" >"$TMP/f"
          awk -v k="$k" 'NR == 1 && $1 !~ /^s_load_dword/ { bad = 1 }
                         $1 == "s_branch" { if (index($0, "<" k "+0x100>") == 0) bad = 1; found = 1; exit }
                         END { exit !(found && !bad) }' "$TMP/f" || fail "$k: no 256-byte kernarg preload prologue"
        done
        note "kernarg preload + 256-byte prologue"
      else
        note "(no kernarg preload before gfx940)"
      fi ;;
    globals)
      local t; t=$(pcrel_targets)
      grep -q '^coeffs R$' <<<"$t" && note "pc-rel .rodata (coeffs)" || fail "no s_getpc_b64 reference to coeffs in .rodata"
      grep -q '^lut D$' <<<"$t" && note "pc-rel .data (lut)" || fail "no s_getpc_b64 reference to lut in .data"
      grep -q '^counter B$' <<<"$t" && note "pc-rel .bss (counter)" || fail "no s_getpc_b64 reference to counter in .bss" ;;
    loop_branch)
      need '^\s+s_cbranch_scc[01]' "s_cbranch_scc"; need '^\s+s_cbranch_(exec|vcc)n?z' "s_cbranch_exec/vcc"
      if awk '$1 ~ /^s_c?branch/ && $2 + 0 >= 32768 { f = 1 } END { exit !f }' "$DIS"; then note "backward branch (loop)"
      else fail "no backward branch"; fi ;;
    atomics)
      local op; for op in add smax smin or swap cmpswap add_x2; do need "^\s+global_atomic_$op\s" "global_atomic_$op"; done
      need '^\s+ds_add_(rtn_)?u32' "ds_add_u32"
      [[ $ARCH == gfx90a ]] || need '^\s+global_atomic_add_f32' "global_atomic_add_f32" ;;
    ocl_kernels)
      [ "$nk" -ge 2 ] || fail "$nk kernels, expected >= 2"
      need '^\s+ds_(write|store)' "ds_write"; need '^\s+ds_(read|load)' "ds_read"; need '^\s+s_barrier' "s_barrier" ;;
    *) fail "no expectations for '$name' in check.sh" ;;
  esac
  if [ $NFAIL = "$nfail0" ]; then
    local IFS=,; echo "ok   $OBJ ($nk kernels, e_flags $flags): ${NOTES[*]}"
  fi
}

shopt -s nullglob
for dir in "$OUTDIR"/*/; do
  sub=$(basename "$dir")
  [ "$sub" = devlibs ] && continue
  arch=${sub%%-*}
  if [ "$sub" = "$arch" ]; then          # base arch folder: every source must be there
    for src in "$HERE"/src/*.hip "$HERE"/src/*.cl; do
      n=$(basename "$src"); n=${n%.*}
      [ -f "$dir/$n.hsaco" ] || { OBJ=$sub/$n.hsaco; fail "not built"; }
    done
  fi
  for obj in "$dir"*.hsaco; do check_object "$obj" "$arch" "$sub"; done
done

[ $NOBJ -gt 0 ] || { echo "check.sh: no code objects under $OUTDIR" >&2; exit 1; }
if [ $NFAIL -gt 0 ]; then echo "check.sh: $NFAIL check(s) failed in $NOBJ code objects"; exit 1; fi
echo "check.sh: all $NOBJ code objects passed"
