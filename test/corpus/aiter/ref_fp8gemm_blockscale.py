#!/usr/bin/env python3
"""AITer's FP8 block-scale GEMM (gfx942 asm kernel fp8gemm_bf16_blockscale_BpreShuffle_32x128): the
launch spec and an independent plain-Python reference (no numpy, no torch).

    python3 ref_fp8gemm_blockscale.py spec [CO]     # writes fp8gemm_bf16_blockscale_BpreShuffle_32x128.json
                                                    # next to this file (CO: the .co whose metadata lists
                                                    # the args; default /work/aiter/hsa/gfx942/...)
    python3 ref_fp8gemm_blockscale.py check DIR/seed1 [k0|k1] [--b-layout 16x16|32x16|plain]
                                                    [--sa-layout km|mk]
                                                    # compares K0's (or K1's) C, from
                                                    # kernel-diffcheck --dump-inputs DIR, with the references

The operation (csrc/py_itfs_cu/asm_a8w8_blockscale_bpreshuffle.cu, gemm_a8w8_blockscale_bpreshuffle_asm;
op_tests/test_gemm_a8w8_blockscale.py run_torch / run_asm):
    C[m][n] = bf16( sum_k A[m][k] * SA[m][k/128] * B[n][k] * SB[n/128][k/128] + BIAS[n] )
A fp8 e4m3fnuz [M, K] (row stride LDA bytes), B fp8 e4m3fnuz [N, K] preshuffled by
aiter/ops/shuffle.py shuffle_weight(w, layout=(16, 16)), SA fp32 per token and 128-column block,
passed transposed (x_scale_t: memory [K/128][M]), SB fp32 per 128x128 block ([N/128][K/128]),
BIAS fp32 [N] (the op test passes none: the wrapper's zero buffer), C bf16 [M, N] (row stride LDC
bytes).

References, both from the dumped inputs:
  ref   -- the exact value: every fp8 value is an integer multiple of 2^-10 (e4m3fnuz: bias 8, 3
           mantissa bits, smallest subnormal 2^-10), so each product sum is an exact integer and the
           scales and the bias are applied in exact rational arithmetic. What the op test's
           run_torch computes (fp32 then .to(bf16)) up to its own fp32 rounding.
  model -- the kernel's arithmetic as its code does it (disassembly, llvm-objdump --mcpu=gfx942; the
           kernel at 0x2300 of the object, offsets kernel+0xNNN):
             per 128-column block kb: four v_mfma_f32_16x16x32_fp8_fp8 chained from 0 (kernel+0x914..
             0x998), modelled as c = fp32(c + exact sum of 32 products) each;
             s = fp32(SB[nb][kb] * SA[kb][m]) (v_mul_f32, kernel+0x960);
             acc = fma(s, c, acc) in fp32 (v_pk_fma_f32, kernel+0x9a0..0x9b8), acc from 0;
           then C = fp32(acc + BIAS[n]) (v_add_f32, kernel+0x16b8..) truncated to bf16 (v_perm_b32
           with 0x07060302 keeps the high 16 bits, kernel+0x16c0). The MFMA's internal summation order
           is not modelled, so this is a tightening, not the verdict.

The verdict (exit 0): every output within one bf16 ulp of the exact value (|C - ref| < 2^-7 |ref| +
2^-20 max|ref row|: the kernel truncates to bf16, and fp32 accumulation may leave a near-cancelled
output a few fp32 ulps of its terms off), and all within the op test's checkAllclose (atol = rtol =
1e-2).

--b-layout / --sa-layout read B or SA in another layout: a check that the comparison discriminates.
"""
import glob, json, math, os, struct, subprocess, sys
from fractions import Fraction
from ref_common import bf16_round, bf16_trunc, bf16s, bind_fields, f32s, load, metadata_args, round_f32, write_spec_json

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "fp8gemm_bf16_blockscale_BpreShuffle_32x128"
KERNEL = "_ZN5aiter42fp8gemm_bf16_blockscale_BpreShuffle_32x128E"
CO = "/work/aiter/hsa/gfx942/fp8gemm_blockscale/fp8gemm_bf16_blockscale_BpreShuffle_32x128.co"
READELF = os.environ.get("LLVM_READELF", "/usr/lib/llvm-22/bin/llvm-readelf")

M, N, K = 64, 256, 512         # N % 128 == 0 and K % 128 == 0 (validate_inputs, .cu lines 69-72)
TILE_M, TILE_N = 32, 128       # hsa/gfx942/fp8gemm_blockscale/fp8gemm_bf16_blockscale.csv line 3
BLK = 128                      # block_shape_k = block_shape_n = 128 (.cu line 203)
LDA, LDB, LDC = K, K, N * 2    # contiguous x and weight; stride_c = out->stride(0) * 2 bytes
KS = 1


# ---------------------------------------------------------------------------------------------
# the spec


def spec(co):
    sk, sn = K // BLK, N // BLK
    fields = {
        "C": {"type": "bf16", "elements": M * N, "role": "out",
              "comment": f"out [M={M}, N={N}] bf16 (run_asm: torch.empty)"},
        "A": {"type": "f8e4m3fnuz", "elements": M * K, "range": [-1.0, 1.0], "role": "in",
              "comment": f"A = x [M, K={K}] fp8 e4m3fnuz, contiguous (op test: (rand/10).to(fp8); signed and wider here)"},
        "B": {"type": "f8e4m3fnuz", "elements": N * K, "range": [-1.0, 1.0], "role": "in",
              "comment": "B = weight [N, K] fp8 e4m3fnuz preshuffled (shuffle_weight layout (16, 16))"},
        "SA": {"type": "f32", "elements": sk * M, "range": [0.0, 1.0], "role": "in",
               "comment": f"A_scale = x_scale_t: x_scale [M, K/128] transposed, memory [K/128={sk}][M] fp32 (torch.rand)"},
        "SB": {"type": "f32", "elements": sn * sk, "range": [0.0, 1.0], "role": "in",
               "comment": f"B_scale = w_scale [N/128={sn}, K/128={sk}] fp32 block scales (torch.rand)"},
        "BIAS": {"type": "f32", "elements": N, "range": [-1.0, 1.0], "role": "in",
                 "comment": "bias [1, N] fp32 (the op test passes none: get_zero_bias_buf's zeros; random here to check its use)"},
        "M": {"value": M, "comment": "m = A->size(0)"},
        "Ndim": {"value": N, "comment": "n = out->size(1)"},
        "K": {"value": K, "comment": "k = A->size(1)"},
        "PA": {"value": LDA, "comment": "lda = A->stride(0) (bytes: fp8)"},
        "PB": {"value": LDB, "comment": "ldb = B->stride(0) (bytes: fp8)"},
        "PC": {"value": LDC, "comment": "ldc = out->stride(0) * sizeof(uint16_t) bytes"},
        "KS": {"value": KS, "comment": "ks = selectedsplitK: the heuristic's k_split.value_or(0) ?: 1 = 1"},
        "scale_m": {"value": M, "comment": "scale_m = ceil(M / block_shape_m 1) (not read by the kernel)"},
        "scale_n": {"value": sn, "comment": "scale_n = ceil(N / 128) (not read by the kernel)"},
        "scale_k": {"value": sk, "comment": "scale_k = ceil(K / 128): SB row stride"},
    }
    args = bind_fields(metadata_args(co), fields)
    grid = [N // TILE_N * KS, (M + TILE_M - 1) // TILE_M, 1]   # gdx / 256, gdy, gdz (.cu lines 349-357)
    sp = {"comment": f"AITer gemm_a8w8_blockscale_bpreshuffle_asm (gfx942, fp8 e4m3fnuz): C[M,N] = bf16(sum_k A*SA[k/128][m] * "
                     f"B*SB[n/128][k/128] + bias[n]), M={M} N={N} K={K} splitK=1, B preshuffled (16, 16), SA transposed "
                     f"[K/128][M], grid N/128*splitK x ceil(M/32) x 1, block 256; see the .md",
          "kernel": KERNEL, "grid": grid, "block": [256, 1, 1], "dynamic_lds": 0}
    path = os.path.join(HERE, NAME + ".json")
    write_spec_json(path, sp["comment"], sp["kernel"], sp["grid"], sp["block"], args, sp["dynamic_lds"])
    print("wrote", path, f"(grid {grid})")


# ---------------------------------------------------------------------------------------------
# the reference

def fp8fnuz_q(b):
    """fp8 e4m3fnuz byte -> integer multiple of 2^-10 (None for 0x80, the only NaN)."""
    if b == 0x80:
        return None
    s = -1 if b & 0x80 else 1
    e, m = (b >> 3) & 15, b & 7
    # subnormal: m/8 * 2^-7 = m * 2^-10; normal: (8 + m)/8 * 2^(e-8) = (8 + m) * 2^(e-11) = (8 + m) << (e-1) * 2^-10
    return s * (m if e == 0 else (8 + m) << (e - 1))


FP8Q = [fp8fnuz_q(b) for b in range(256)]
Q = Fraction(1, 1 << 10)


def b_offset(n, k, layout):
    """Byte offset of B[n][k] in the preshuffled buffer: shuffle_weight(x, layout=(IN, IK)) for a
    1-byte type (K-pack 16, BK = 2 * IK) is view(N/IN, IN, K/BK, BK/16, 16).permute(0, 2, 3, 1, 4)
    (aiter/ops/shuffle.py lines 192-203)."""
    if layout == "plain":
        return n * LDB + k
    IN, BK = {"16x16": (16, 32), "32x16": (32, 32)}[layout]
    n0, nn = divmod(n, IN)
    k0, rem = divmod(k, BK)
    kk, kp = divmod(rem, 16)
    return (((n0 * (K // BK) + k0) * (BK // 16) + kk) * IN + nn) * 16 + kp


def check(d, which="k0", layout="16x16", sa_layout="km"):
    A, B = load(d, "A"), load(d, "B")
    SA, SB, BIAS = f32s(load(d, "SA")), f32s(load(d, "SB")), f32s(load(d, "BIAS"))
    C = bf16s(load(d, "C", which))
    sk = K // BLK
    assert len(A) == M * LDA and len(B) == N * K and len(SA) == sk * M and len(SB) == (N // BLK) * sk
    a = [[FP8Q[A[m * LDA + k]] for k in range(K)] for m in range(M)]
    b = [[FP8Q[B[b_offset(n, k, layout)]] for k in range(K)] for n in range(N)]
    nan = sum(v is None for row in a + b for v in row)
    if nan:
        raise SystemExit(f"{nan} fp8 NaN (0x80) inputs")

    def sa(m, kb):
        return SA[kb * M + m] if sa_layout == "km" else SA[m * sk + kb]

    ref = [[None] * N for _ in range(M)]
    model = [[None] * N for _ in range(M)]
    for m in range(M):
        am = a[m]
        for n in range(N):
            bn = b[n]
            exact = Fraction(0)
            acc = 0.0
            for kb in range(sk):
                s_exact = Fraction(SB[(n // BLK) * sk + kb]) * Fraction(sa(m, kb))
                c = 0.0
                blk = 0
                for j in range(4):              # four 16x16x32 MFMAs per 128 columns
                    lo = kb * BLK + 32 * j
                    part = sum(x * y for x, y in zip(am[lo:lo + 32], bn[lo:lo + 32]))
                    blk += part
                    # fp32(c + part), part exact (a multiple of 2^-20): no rounding while c is exact and |sum| < 2^24
                    exact_c = exact_c and abs(blk) < 1 << 24 if j else abs(blk) < 1 << 24
                    c = math.ldexp(blk, -20) if exact_c else round_f32(Fraction(c) + part * Q * Q)
                exact += s_exact * blk * Q * Q
                s = round_f32(s_exact)          # v_mul_f32 SB * SA
                acc = round_f32(Fraction(s) * Fraction(c) + Fraction(acc))   # v_pk_fma_f32
            ref[m][n] = exact + Fraction(BIAS[n])
            model[m][n] = bf16_trunc(round_f32(Fraction(acc) + Fraction(BIAS[n])))

    worst_abs = worst_rel = 0.0
    beyond = test_bad = rne = trunc = model_eq = 0
    bad = []
    for m in range(M):
        rowmax = max(abs(float(v)) for v in ref[m])
        for n in range(N):
            got, rq = C[m * N + n], ref[m][n]
            r = float(rq)
            diff = abs(got - r)
            worst_abs = max(worst_abs, diff)
            worst_rel = max(worst_rel, diff / max(abs(r), 1e-30))
            rne += got == bf16_round(round_f32(rq))
            trunc += got == bf16_trunc(round_f32(rq))
            model_eq += got == model[m][n]
            if not diff < 2 ** -7 * abs(r) + 2 ** -20 * rowmax:
                beyond += 1
                bad.append((m, n, got, r, model[m][n]))
            if diff > 1e-2 + 1e-2 * abs(r):      # torch.isclose(rtol=1e-2, atol=1e-2)
                test_bad += 1
    amax = max(abs(float(v)) for row in ref for v in row)
    print(f"fp8gemm_blockscale ({which}) M={M} N={N} K={K} lda={LDA} ldc={LDC} B layout {layout} SA layout {sa_layout}: "
          f"{M * N} outputs, max |ref| = {amax:.4g}, NaN in C: {sum(v != v for v in C)}")
    print(f"  {M * N - beyond} within one bf16 ulp of the exact value, {rne} equal to bf16_rne(ref), {trunc} to "
          f"bf16_trunc(ref), {model_eq} equal to the kernel model; max |C - ref| = {worst_abs:.4g}, max rel = "
          f"{worst_rel:.4g}; beyond the op test's atol = rtol = 1e-2: {test_bad}")
    for m, n, got, r, mo in bad[:10]:
        print(f"  C[{m},{n}] = {got!r}, ref {r!r}, model {mo!r}")
    return beyond == 0 and test_bad == 0


if __name__ == "__main__":
    argv = sys.argv[1:]
    opts = {}
    for o in ("--b-layout", "--sa-layout"):
        if o in argv:
            i = argv.index(o)
            opts[o] = argv[i + 1]
            del argv[i:i + 2]
    what = argv[0] if argv else ""
    if what == "spec":
        spec(argv[1] if len(argv) > 1 else CO)
    elif what == "check":
        sys.exit(0 if check(argv[1], argv[2] if len(argv) > 2 else "k0",
                            opts.get("--b-layout", "16x16"), opts.get("--sa-layout", "km")) else 1)
    else:
        raise SystemExit(__doc__)
