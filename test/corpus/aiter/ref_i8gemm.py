#!/usr/bin/env python3
"""Independent Python reference (plain Python, no numpy) for i8gemm_bf16_perTokenI8_BpreShuffle_32x128.json
(and _splitk2.json) and, with --args / --epilogue sa-first / --epilogue-race 112x256,
i8gemm_bf16_perTokenI8_BpreShuffle_112x256.json.

AITer gemm_a8w8_asm (gfx942, csrc/py_itfs_cu/asm_gemm_a8w8.cu):
    C[m][n] = bf16( sum_k A[m][k] * B[n][k] * SA[m] * SB[n] + BIAS[n] )
A int8 [M, K] with row stride LDA bytes, B int8 [N, K] preshuffled by
aiter/ops/shuffle.py shuffle_weight(w, layout=(16, 16)), SA fp32 [M] (per token), SB fp32 [N]
(per output channel), BIAS fp32 [N], C bf16 [M, N] (row stride N). This is
op_tests/test_gemm_a8w8.py run_torch: (x.fp32 * x_scale) @ (w.fp32 * w_scale)^T + bias.

Reads the buffers that `kernel-diffcheck ... --dump-inputs DIR` writes (DIR/seedN/<entry>_<name>.in.bin
and .k0.bin) and compares K0's C with:
  - ref:   the exact value (integer dot product, then the scales and the bias in exact rational
           arithmetic); an output is "within bf16 rounding" unless |C - ref| >= 2^-7 |ref|
           (one bf16 ulp: the kernel truncates, see below); also counted: C == bf16 of ref
           rounded to nearest even, and C == ref truncated to bf16 (toward zero);
  - model: the fp32 epilogue the kernel runs (disassembly, kernel+0x130c..0x1468:
           v_cvt_f32_i32 of the int32 MFMA sum, v_pk_mul_f32 by SB, v_fma_f32 with SA and
           BIAS, then v_perm_b32 ... 0x07060302, which keeps the high 16 bits of each fp32:
           bf16 by truncation), each step rounded exactly here: how many outputs equal it bit
           for bit.

    python3 ref_i8gemm.py DIR/seed1 M N K LDA [--ks KS] [--b-layout 16x16|32x16|plain]
                          [--args C=I,A=I,B=I,SA=I,SB=I,BIAS=I] [--epilogue sb-first|sa-first]
                          [--epilogue-race 112x256]

--ks KS (split-K, KS > 1): workgroup split s sums k in [s*KP, min(K, (s+1)*KP)), KP =
ceil(K/KS/128)*128 (asm_gemm_a8w8.cu lines 233-235; the kernel, kernel+0x1d4..0x270), adds the
bias only in split 0 (kernel+0x7ac..0x7f8: bias * (split == 0 ? 1.0 : 0)), truncates its fp32
partial to bf16 as above and adds it with global_atomic_pk_add_bf16 into C, which the host zeroes
first (line 267). The model then is C = bf16_rne(p_0 + p_1 + ...) summed in order (exact for
KS = 2: 0 + p_0 is p_0, and the one rounded sum does not depend on the order).

--b-layout reads B as if it were shuffled with another layout (or not at all): a check that the
comparison discriminates.

--args NAME=I,...: read buffer NAME from the dump of explicit argument #I (DIR/seedN/I_*.bin)
instead of by name: for code objects whose metadata names no argument (the 112x256 kernel:
--args C=0,A=3,B=6,SA=9,SB=12,BIAS=15; kernel-diffcheck then names the files I__I.*.bin).

--epilogue: the order of the fp32 epilogue the model follows. sb-first (the default; 32x128,
kernel+0x130c..): v_pk_mul_f32 by SB, then v_fma_f32 with SA and BIAS. sa-first (112x256,
kernel+0x848..0x8c0 and the loop at kernel+0x8c8..0xa50): v_pk_mul_f32 by SA, then v_pk_fma_f32
with SB and BIAS (both broadcast along each row of 16 lanes by v_mov_b32_dpp row_newbcast).
Either way each step is one fp32 rounding and the result is truncated to bf16 (v_perm_b32
with 0x07060302).

--epilogue-race TMxTN (112x256): also explain the outputs off the model by the 112x256 epilogue's
LDS write-after-read race between waves (see the .md): how many hold the model's value of
(m, n + TN/2) or (m + 16, n - TN/2) (tile-local). Exit 0 when every output is the model's value
at its own position or at one of those; the summary line above is printed as before.
"""
import glob, math, os, struct, sys
from fractions import Fraction
from ref_common import bf16_round, bf16_trunc, bf16s, f32s, round_f32


ARG_INDEX = {}   # --args: buffer name -> explicit argument index


def load(d, name, kind="in"):
    if name in ARG_INDEX:
        fs = glob.glob(os.path.join(d, f"{ARG_INDEX[name]}_*.{kind}.bin"))
    else:
        fs = glob.glob(os.path.join(d, f"*_{name}.{kind}.bin"))
    if len(fs) != 1:
        raise SystemExit(f"{d}: expected one *_{name}.{kind}.bin, found {fs}")
    return open(fs[0], "rb").read()


def i8s(b):
    return list(struct.unpack(f"<{len(b)}b", b))


def b_offset(n, k, K, layout):
    """Byte offset of B[n][k] in the preshuffled buffer: shuffle_weight(x, layout=(IN, IK)) for int8
    (element_size 1: K-pack 16, BK = 2 * IK) is view(N/IN, IN, K/BK, BK/16, 16).permute(0, 2, 3, 1, 4)."""
    if layout == "plain":
        return n * K + k
    IN, BK = {"16x16": (16, 32), "32x16": (32, 32)}[layout]
    n0, nn = divmod(n, IN)
    k0, rem = divmod(k, BK)
    kk, kp = divmod(rem, 16)
    return (((n0 * (K // BK) + k0) * (BK // 16) + kk) * IN + nn) * 16 + kp


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    layout = "16x16"
    ks = 1
    if "--ks" in sys.argv:
        ks = int(sys.argv[sys.argv.index("--ks") + 1])
        args.remove(str(ks))
    if "--b-layout" in sys.argv:
        layout = sys.argv[sys.argv.index("--b-layout") + 1]
        args.remove(layout)
    if "--args" in sys.argv:
        spec = sys.argv[sys.argv.index("--args") + 1]
        args.remove(spec)
        for kv in spec.split(","):
            k, v = kv.split("=")
            ARG_INDEX[k] = int(v.lstrip("#"))
    race = None
    if "--epilogue-race" in sys.argv:
        t = sys.argv[sys.argv.index("--epilogue-race") + 1]
        args.remove(t)
        race = tuple(int(x) for x in t.split("x"))
    epilogue = "sb-first"
    if "--epilogue" in sys.argv:
        epilogue = sys.argv[sys.argv.index("--epilogue") + 1]
        args.remove(epilogue)
        if epilogue not in ("sb-first", "sa-first"):
            raise SystemExit(f"--epilogue {epilogue}: sb-first or sa-first")
    d = args[0]
    M, N, K, LDA = (int(x) for x in args[1:5])
    A, B = i8s(load(d, "A")), i8s(load(d, "B"))
    SA, SB, BIAS = f32s(load(d, "SA")), f32s(load(d, "SB")), f32s(load(d, "BIAS"))
    C = bf16s(load(d, "C", "k0"))
    KP = -(-K // ks // 128) * 128 if ks > 1 else K
    a = [A[m * LDA:m * LDA + K] for m in range(M)]
    b = [[B[b_offset(n, k, K, layout)] for k in range(K)] for n in range(N)]
    def model_at(m, n):
        am = a[m]
        model = 0.0
        for s in range(ks):
            part = sum(x * y for x, y in zip(am[s * KP:(s + 1) * KP], b[n][s * KP:(s + 1) * KP]))
            first, second = (SB[n], SA[m]) if epilogue == "sb-first" else (SA[m], SB[n])
            t = round_f32(Fraction(float(part)) * Fraction(first))          # v_pk_mul_f32
            bias = BIAS[n] if s == 0 else 0.0
            r = round_f32(Fraction(t) * Fraction(second) + Fraction(bias))  # v_fma_f32 / v_pk_fma_f32
            p = bf16_trunc(r)                                                # v_perm_b32
            model = p if ks == 1 else bf16_round(round_f32(Fraction(model) + Fraction(p)))  # atomic add
        return model

    worst_abs = worst_rel = 0.0
    rne = trunc = model_eq = 0
    bad = []
    off_model = []
    for m in range(M):
        am = a[m]
        for n in range(N):
            acc = sum(x * y for x, y in zip(am, b[n]))           # int32 MFMA sum, exact
            refq = Fraction(acc) * Fraction(SA[m]) * Fraction(SB[n]) + Fraction(BIAS[n])
            ref = float(refq)
            got = C[m * N + n]
            diff = abs(got - ref)
            rel = diff / max(abs(ref), 1e-30)
            worst_abs, worst_rel = max(worst_abs, diff), max(worst_rel, rel)
            rne += got == bf16_round(round_f32(refq))
            trunc += got == bf16_trunc(round_f32(refq))
            model = model_at(m, n)
            model_eq += got == model
            if got != model:
                off_model.append((m, n, got))
            if rel >= 2 ** -7:
                bad.append((m, n, got, ref))
    print(f"i8gemm M={M} N={N} K={K} lda={LDA} splitK={ks} B layout {layout}"
          + ("" if epilogue == "sb-first" else f" epilogue {epilogue}") + f": {M * N} outputs, "
          f"{M * N - len(bad)} within bf16 rounding, {rne} equal to bf16_rne(ref), {trunc} to bf16_trunc(ref), "
          f"{model_eq} equal to the fp32-epilogue model, max |C - ref| = {worst_abs:.4g}, "
          f"max rel = {worst_rel:.4g}, {len(bad)} beyond bf16 rounding")
    for m, n, got, ref in bad[:10]:
        print(f"  C[{m},{n}] = {got!r}, ref {ref!r}")
    if race:
        # The 112x256 epilogue stages each 16-row x 256-column block of C through one LDS buffer
        # in two phases, X (columns 0-127 of the tile) then Y (128-255), then the next block's X,
        # with one s_barrier between a phase's ds_write and its ds_reads and none between those
        # ds_reads and the next phase's ds_write (kernel+0x8c8 / 0x98c write, 0x904 / 0x9c4 read):
        # a wave that reads late sees the next phase's data in the same LDS bytes. Such an output
        # holds the model's value of (m, n + 128) (X read late) or (m + 16, n - 128) (Y read late).
        tm, tn = race
        x_late = y_late = 0
        for m, n, got in off_model:
            if n % tn < tn // 2:
                x_late += n + tn // 2 < N and got == model_at(m, n + tn // 2)
            elif m % tm + 16 < tm:
                # a row past M (in the last, partial M tile) is computed from zeros: the buffer
                # ranges of A and SA end at row M (kernel+0x104..0x11c, 0x1f4..0x20c), so its value
                # is fma(0 * 0, SB, BIAS) = BIAS, truncated; its own store is clipped at C's range.
                want = model_at(m + 16, n - tn // 2) if m + 16 < M else bf16_trunc(BIAS[n - tn // 2])
                y_late += got == want
        other = len(off_model) - x_late - y_late
        print(f"  epilogue LDS race (tile {tm}x{tn}): of {len(off_model)} outputs off the model, {x_late} equal "
              f"the model of (m, n+{tn // 2}) (phase X read after phase Y's write), {y_late} of "
              f"(m+16, n-{tn // 2}) (phase Y read after the next block's X write), {other} neither")
        return not other
    return model_eq == M * N and (ks > 1 or not bad)   # split-K: partials in bf16, exact only to the model


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
