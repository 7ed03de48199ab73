#!/usr/bin/env bash
# The opt-in AITer family run: every spec of this folder that has an independent reference is
# run on the emulator (kernel-diffcheck K0 K0, seed 1, its inputs and outputs dumped), then its
# plain-Python reference checks the dump. One line per kernel: the check's exit, the
# reference's verdict and its first line with an error figure (all of it in WORK_DIR/SPEC.ref),
# the wall time of each. Exit 1 if any fails.
#   bash test/corpus/aiter/run_refs.sh TOOLS_DIR AITER_HSA_DIR WORK_DIR [--threads N]
# e.g. bash test/corpus/aiter/run_refs.sh build/bin /work/aiter/hsa /tmp/aiter-refs --threads 2
# About 3 minutes on 2 cores (the references are plain Python).
set -u
tools=$1 hsa=$2 work=$3; shift 3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
fail=0
# SPEC CO REFERENCE-COMMAND... (the reference gets DUMP/seed1 where the word DUMP stands)
ref() {
  local spec=$1 co=$2 t0 t1 t2 rc rrc line
  shift 2
  rm -rf "$work/$spec"
  t0=$(date +%s.%N)
  case $co in /*) ;; *) co=$hsa/$co ;; esac   # an absolute CO: a copy made here (fmha_v4)
  "$tools/kernel-diffcheck" "$co" "$co" --spec "$here/$spec.json" --seeds 1 \
    --timeout 600 -q --dump-inputs "$work/$spec" "${opts[@]}" "${extra[@]}" > "$work/$spec.check" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  local args=()
  for a in "$@"; do args+=("${a//DUMP/$work/$spec/seed1}"); done
  python3 "${args[@]}" > "$work/$spec.ref" 2>&1
  rrc=$?
  t2=$(date +%s.%N)
  line=$(grep -m1 'max |' "$work/$spec.ref" | sed 's/^ *//')
  printf '%-52s check exit %d (%.1f s), reference %s (%.1f s): %s\n' "$spec" "$rc" \
    "$(echo "$t1 - $t0" | bc)" "$([ $rrc = 0 ] && echo pass || echo FAIL)" "$(echo "$t2 - $t1" | bc)" \
    "$line"
  [ "$rc" = 0 ] && [ "$rrc" = 0 ] || fail=1
}
opts=("$@")
extra=()
R=$here
ref i8gemm_bf16_perTokenI8_BpreShuffle_32x128 gfx942/i8gemm/I8gemm_bf16_perTokenI8_BpreShuffle_32x128.co \
  "$R/ref_i8gemm.py" DUMP 64 256 512 640
ref i8gemm_bf16_perTokenI8_BpreShuffle_32x128_splitk2 gfx942/i8gemm/I8gemm_bf16_perTokenI8_BpreShuffle_32x128.co \
  "$R/ref_i8gemm.py" DUMP 64 256 512 640 --ks 2
ref i8gemm_bf16_perTokenI8_BpreShuffle_112x256 gfx942/i8gemm/I8gemm_bf16_perTokenI8_BpreShuffle_112x256.co \
  "$R/ref_i8gemm.py" DUMP 224 512 512 640 --args C=0,A=3,B=6,SA=9,SB=12,BIAS=15 --epilogue sa-first
ref fp8gemm_bf16_blockscale_BpreShuffle_32x128 gfx942/fp8gemm_blockscale/fp8gemm_bf16_blockscale_BpreShuffle_32x128.co \
  "$R/ref_fp8gemm_blockscale.py" check DUMP
ref fmha_fwd_hd128_bf16_rtne gfx942/fmha_v3_fwd/MI300/fwd_hd128_bf16_rtne.co \
  "$R/ref_gfx950.py" fmha DUMP 2 4 2 300 100 128
ref fmha_bwd_hd128_bf16_a16_rtne gfx942/fmha_v3_bwd/bwd_hd128_bf16_a16_rtne.co \
  "$R/ref_fmha_bwd.py" check DUMP
ref pa_bf16_noquant_gqa8_1tg_4w gfx942/pa/pa_bf16_noquant_gqa8_1tg_4w.co "$R/ref_pa.py" check DUMP
ref mla_dec_stage1_bf16_a16w16_subQ16_mqa16 gfx942/mla/mla_dec_stage1_bf16_a16w16_subQ16_mqa16.co \
  "$R/ref_mla.py" check DUMP
# Each MoE output takes 4 atomic bf16 adds from different workgroups: on more than one host
# thread their order (and so the rounding) varies from run to run, as on a GPU, and K0 can differ
# from itself by a bf16 ulp; one thread keeps the order fixed (the last --threads wins).
extra=(--threads 1)
ref fmoe_fp8_blockscale_g1u1_novs_subGU_256 gfx942/fmoe/fmoe_fp8_blockscale_g1u1_novs_subGU_256.co \
  "$R/ref_fmoe.py" check DUMP
extra=()
ref f4gemm_bf16_per1x32Fp4_BpreShuffle_32x128 gfx950/f4gemm/f4gemm_bf16_per1x32Fp4_BpreShuffle_32x128.co \
  "$R/ref_gfx950.py" f4gemm DUMP 64 256 1024
ref fmha_fwd_hd128_bf16 gfx950/fmha_v3_fwd/fwd_hd128_bf16.co "$R/ref_gfx950.py" fmha DUMP 2 4 2 300 100 128
ref fmha_fwd_hd128_fp8_gfx950 gfx950/fmha_v3_fwd/fwd_hd128_fp8.co \
  "$R/ref_gfx950.py" fmha-fp8 DUMP 2 4 2 300 200 128
# fmha_v4's code object declares its 656-byte kernarg as one opaque argument; the spec runs on a
# copy whose metadata names the fields (same .text; ref_fmha_v4.py named-co checks that).
extra=(--threads 1)
v4co=$work/fmha_v4_fwd_hd128_fp8_named.co
python3 "$R/ref_fmha_v4.py" named-co "$tools" "$hsa/gfx950/fmha_v4_fwd/fwd_hd128_fp8.co" "$v4co" > "$work/named-co.log" 2>&1 \
  || { echo "fmha_v4_fwd_hd128_fp8_gfx950: named-co FAILED (see $work/named-co.log)"; fail=1; }
ref fmha_v4_fwd_hd128_fp8_gfx950 "$v4co" "$R/ref_fmha_v4.py" check DUMP
extra=()
exit $fail
