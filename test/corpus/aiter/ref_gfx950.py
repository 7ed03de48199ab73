#!/usr/bin/env python3
"""Independent Python references for the gfx950 specs of this folder (plain Python, no numpy).

Reads the buffers that `kernel-diffcheck ... --dump-inputs DIR` writes (DIR/seedN/<entry>_<name>.in.bin
and .k0.bin) and compares K0's outputs with a reference computed here from the inputs.

    python3 ref_gfx950.py f4gemm DIR/seed1 M N K
    python3 ref_gfx950.py fmha   DIR/seed1 B Hq Hk Sq Sk D [causal]
    python3 ref_gfx950.py fmha-fp8 DIR/seed1 B Hq Hk Sq Sk D [causal]

fmha: O = softmax(scale * Q K^T) V and LSE = logsumexp(scale * Q K^T) (natural log) per (batch,
q head), BSHD layout, GQA head h -> h / (Hq / Hk); checked on rows i % 5 == 0, 250..261 and the
last 6 of every (batch, head).

f4gemm: AITer gemm_a4w4_asm (MXFP4 A and B with e8m0 per-1x32 scales, B preshuffled with
shuffle_weight(layout=(16, 16)), scales in the dynamic_mxfp4_quant(shuffle=True) layout); the
reference undoes both shuffles and computes D = (A*sA) @ (B*sB)^T in float64, as
op_tests/test_gemm_a4w4.py's run_torch does in fp32.
"""
import glob, math, os, struct, sys
from ref_common import bf16_round, bf16s, e4m3fn, f32s, load

FP4 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]


def e8m0(e):
    return 2.0 ** (e - 127)  # the generated scales stay in 122..132 (no 0 / 0xff special cases)


def scale_offset(r, kb, scaleN):
    # aiter/utility/fp4_utils.py _dynamic_mxfp4_quant_kernel_asm_layout, SHUFFLE branch
    # (= aiter/ops/shuffle.py shuffle_scale: view(sm/32, 2, 16, sn/8, 2, 4).permute(0,3,5,2,4,1))
    return ((r % 32) // 16 + ((kb % 8) // 4) * 2 + (r % 16) * 4 + (kb % 4) * 64 + (kb // 8) * 256
            + (r // 32) * 32 * scaleN)


def b_offset(n, kbyte, Kb):
    # aiter/ops/shuffle.py shuffle_weight(layout=(16, 16)) on uint8 [N, K/2]:
    # view(N/16, 16, Kb/32, 2, 16).permute(0, 2, 3, 1, 4)
    n0, nn = divmod(n, 16)
    kb0, rem = divmod(kbyte, 32)
    kk, k = divmod(rem, 16)
    return (((n0 * (Kb // 32) + kb0) * 2 + kk) * 16 + nn) * 16 + k


def f4gemm(d, M, N, K):
    A, B = load(d, "A"), load(d, "B")
    SA, SB = load(d, "ScaleA"), load(d, "ScaleB")
    D = bf16s(load(d, "D", "k0"))
    Kb, scaleN = K // 2, ((K // 32 + 7) // 8) * 8

    def deq(row, get_byte, S):
        v = []
        for kbyte in range(Kb):
            byte = get_byte(row, kbyte)
            s = e8m0(S[scale_offset(row, kbyte * 2 // 32, scaleN)])
            v.append(FP4[byte & 15] * s)   # even k: low nibble
            v.append(FP4[byte >> 4] * s)   # odd k: high nibble
        return v

    a = [deq(m, lambda r, kb: A[r * Kb + kb], SA) for m in range(M)]
    b = [deq(n, lambda r, kb: B[b_offset(r, kb, Kb)], SB) for n in range(N)]
    worst_abs = worst_rel = 0.0
    bad = []
    exact = 0
    for m in range(M):
        for n in range(N):
            ref = math.fsum(x * y for x, y in zip(a[m], b[n]))
            got = D[m * N + n]
            diff = abs(got - ref)
            rel = diff / max(abs(ref), 1e-30)
            worst_abs, worst_rel = max(worst_abs, diff), max(worst_rel, rel)
            exact += got == bf16_round(ref)
            if rel > 2 ** -8 and diff > 1e-6 * max(1.0, abs(ref)):
                bad.append((m, n, got, ref))
    print(f"f4gemm M={M} N={N} K={K}: {M * N} outputs, {exact} equal to bf16(ref), "
          f"max |D - ref| = {worst_abs:.4g}, max rel = {worst_rel:.4g}, {len(bad)} beyond bf16 rounding")
    for m, n, got, ref in bad[:20]:
        print(f"  D[{m},{n}] = {got!r}, ref {ref!r}")
    return not bad


def fmha(d, Bt, Hq, Hk, Sq, Sk, Dh, causal, fp8=False):
    if fp8:   # fp8bf16: Q, K, V fp8 e4m3fn times their per-tensor fp32 descales
        dq, dk, dv = (f32s(load(d, f"ptr_{x}_descale"))[0] for x in "qkv")
        Q = [e4m3fn(b) * dq for b in load(d, "ptr_q")]
        Kt = [e4m3fn(b) * dk for b in load(d, "ptr_k")]
        V = [e4m3fn(b) * dv for b in load(d, "ptr_v")]
        O, L = bf16s(load(d, "ptr_o", "k0")), f32s(load(d, "ptr_lse", "k0"))
    else:
        Q, Kt, V = bf16s(load(d, "Q")), bf16s(load(d, "K")), bf16s(load(d, "V"))
        O, L = bf16s(load(d, "R", "k0")), f32s(load(d, "LSE", "k0"))
    wor = 0.0   # max |O - ref| / max |ref| of the row
    scale = 1.0 / math.sqrt(Dh)
    wo = wl = 0.0
    rows = 0
    for b in range(Bt):
        for h in range(Hq):
            hk = h // (Hq // Hk)
            for i in range(Sq):
                if not (i % 5 == 0 or 250 <= i < 262 or i >= Sq - 6):
                    continue   # a sample: every 5th row, the rows around the 256-row tile edge, the last 6
                q = Q[((b * Sq + i) * Hq + h) * Dh:][:Dh]
                # causal (mask 2, top-left aligned when Sq == Sk): j <= i + Sk - Sq
                js = [j for j in range(Sk) if not causal or j <= i + Sk - Sq]
                s = [scale * math.fsum(x * y for x, y in zip(q, Kt[((b * Sk + j) * Hk + hk) * Dh:][:Dh])) for j in js]
                mx = max(s)
                p = [math.exp(x - mx) for x in s]
                den = math.fsum(p)
                lse = mx + math.log(den)
                refs = [math.fsum(pj * V[((b * Sk + j) * Hk + hk) * Dh + c] for pj, j in zip(p, js)) / den
                        for c in range(Dh)]
                rmax = max(abs(r) for r in refs)
                for c, ref in enumerate(refs):
                    e = abs(O[((b * Sq + i) * Hq + h) * Dh + c] - ref)
                    wo, wor = max(wo, e), max(wor, e / rmax)
                wl = max(wl, abs(L[(b * Hq + h) * Sq + i] - lse))
                rows += 1
    print(f"fmha{'-fp8' if fp8 else ''} B={Bt} Hq={Hq} Hk={Hk} Sq={Sq} Sk={Sk} d={Dh} causal={causal}: {rows} rows, "
          f"max |O - ref| = {wo:.3g} (relative to the row's max |ref|: {wor:.3g}), max |LSE - ref| = {wl:.3g}")
    if fp8:   # the kernel rounds P to fp8 for the PV MFMA (3 mantissa bits: 2^-4 relative)
        return wor < 2 ** -4 and wl < 1e-3
    return wo < 4e-3 and wl < 1e-4


if __name__ == "__main__":
    what, d, *n = sys.argv[1:]
    if what == "f4gemm":
        ok = f4gemm(d, *map(int, n[:3]))
    elif what in ("fmha", "fmha-fp8"):
        ok = fmha(d, *map(int, n[:6]), causal=len(n) > 6 and n[6] == "causal", fp8=what == "fmha-fp8")
    else:
        raise SystemExit(f"unknown reference {what}")
    sys.exit(0 if ok else 1)
