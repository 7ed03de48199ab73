#!/usr/bin/env bash
# Reruns kernel-diffcheck K0 K0 on every spec of this folder (K0 against itself: each must say ok;
# bf16gemm_..._m40 reproduced a range-check problem of the emulator, fixed since; see its .md).
#   bash test/corpus/aiter/run_checks.sh TOOLS_DIR AITER_HSA_DIR [extra kernel-diffcheck options]
# e.g. bash test/corpus/aiter/run_checks.sh build/bin /work/aiter/hsa --seeds 1 --threads 2
set -u
tools=$1 hsa=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
check() { # SPEC CO [options]
  local spec=$1 co=$2 t0 t1 rc
  shift 2
  t0=$(date +%s.%N)
  case $co in /*) ;; *) co=$hsa/$co ;; esac   # an absolute CO: a copy made here (fmha_v4)
  "$tools/kernel-diffcheck" "$co" "$co" --spec "$here/$spec.json" --timeout 300 "$@" -q 2>&1 | head -1
  rc=${PIPESTATUS[0]}
  t1=$(date +%s.%N)
  printf '  %s: exit %d, %.2f s\n' "$spec" "$rc" "$(echo "$t1 - $t0" | bc)"
}
check bf16gemm_fp32bf16_tn_32x64_pf3_splitk     gfx942/bf16gemm/bf16gemm_fp32bf16_tn_32x64_pf3_splitk.co "$@"
check bf16gemm_fp32bf16_tn_32x64_splitk_clean   gfx942/bf16gemm/bf16gemm_fp32bf16_tn_32x64_splitk_clean.co "$@"
check fmha_fwd_hd128_bf16_rtne                  gfx942/fmha_v3_fwd/MI300/fwd_hd128_bf16_rtne.co "$@"
check fmha_fwd_hd128_bf16_causal_rtne           gfx942/fmha_v3_fwd/MI300/fwd_hd128_bf16_causal_rtne.co "$@"
check bf16gemm_fp32bf16_tn_32x64_pf3_splitk_m40 gfx942/bf16gemm/bf16gemm_fp32bf16_tn_32x64_pf3_splitk.co "$@"
check f4gemm_bf16_per1x32Fp4_BpreShuffle_32x128 gfx950/f4gemm/f4gemm_bf16_per1x32Fp4_BpreShuffle_32x128.co "$@"
check fmha_fwd_hd128_bf16                       gfx950/fmha_v3_fwd/fwd_hd128_bf16.co "$@"
check fmha_fwd_hd128_fp8_gfx950                 gfx950/fmha_v3_fwd/fwd_hd128_fp8.co "$@"
check i8gemm_bf16_perTokenI8_BpreShuffle_32x128 gfx942/i8gemm/I8gemm_bf16_perTokenI8_BpreShuffle_32x128.co "$@"
check i8gemm_bf16_perTokenI8_BpreShuffle_32x128_splitk2 gfx942/i8gemm/I8gemm_bf16_perTokenI8_BpreShuffle_32x128.co "$@"
check i8gemm_bf16_perTokenI8_BpreShuffle_112x256 gfx942/i8gemm/I8gemm_bf16_perTokenI8_BpreShuffle_112x256.co "$@"
check pa_bf16_noquant_gqa8_1tg_4w              gfx942/pa/pa_bf16_noquant_gqa8_1tg_4w.co "$@"
check fmha_bwd_hd128_bf16_a16_rtne              gfx942/fmha_v3_bwd/bwd_hd128_bf16_a16_rtne.co "$@"
check fp8gemm_bf16_blockscale_BpreShuffle_32x128 gfx942/fp8gemm_blockscale/fp8gemm_bf16_blockscale_BpreShuffle_32x128.co "$@"
check mla_dec_stage1_bf16_a16w16_subQ16_mqa16  gfx942/mla/mla_dec_stage1_bf16_a16w16_subQ16_mqa16.co "$@"
# 4 atomic bf16 adds per output from different workgroups: their order varies on more than one
# host thread (as on a GPU) and K0 can differ from itself by a bf16 ulp; one thread fixes it.
check fmoe_fp8_blockscale_g1u1_novs_subGU_256  gfx942/fmoe/fmoe_fp8_blockscale_g1u1_novs_subGU_256.co "$@" --threads 1
# fmha_v4 declares its kernarg as one opaque 656-byte argument: run the copy whose metadata names
# the fields (same .text; see fmha_v4_fwd_hd128_fp8_gfx950.md).
v4dir=$(mktemp -d)
python3 "$here/ref_fmha_v4.py" named-co "$tools" "$hsa/gfx950/fmha_v4_fwd/fwd_hd128_fp8.co" "$v4dir/fwd_hd128_fp8_named.co" > /dev/null \
  && check fmha_v4_fwd_hd128_fp8_gfx950        "$v4dir/fwd_hd128_fp8_named.co" "$@"
rm -rf "$v4dir"
