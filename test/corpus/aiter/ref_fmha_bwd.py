#!/usr/bin/env python3
"""AITer fmha_v3_bwd (gfx942, hd128 bf16 a16 rtne, no mask, batch mode): writes the launch spec and
checks a `kernel-diffcheck --dump-inputs` dump against a plain-Python reference (no numpy).

    python3 ref_fmha_bwd.py spec AITER_HSA_DIR          # writes fmha_bwd_hd128_bf16_a16_rtne.json
    python3 ref_fmha_bwd.py check DIR/seed1 [B H S D]   # default 1 2 256 128

The kernel (`dqdkdv`) takes Q, K, V, dO [B, S, H, D] bf16 (BSHD), LSE and D [B, H, S] fp32 and
writes dQ, dK, dV [B, S, H, D] bf16. D = rowsum(dO * O) is the output of AITer's `fmha_bwd_odo`
pre-kernel (bwd_hd128_odo_bf16.co); the spec takes D (and LSE, the forward's output) as inputs,
so the check is of the dqdkdv kernel alone, for any LSE and D:

    S  = scale * Q K^T            P  = exp(S - LSE)        (the kernel: 2^((S - LSE) * log2e))
    dP = dO V^T                   dS = P * (dP - D)
    dV = P^T dO                   dK = scale * dS^T Q      dQ = scale * dS K

(op_tests/cpp/mha/benchmark_mha_bwd_v3.cpp lines 1369-1476, steps 1-5). Computed here in float64
with math.fsum; the kernel's outputs are bf16 (dQ accumulated with global_atomic_pk_add_bf16 into
a zeroed dQ, one add per workgroup: 2 k tiles here, so dQ has two bf16 roundings).

Every output is compared with the exact result (pass: finite and within 2^-7 * the tensor's
max |ref|; exit 1 otherwise) and, for information, with a model of the kernel's roundings: P and
dS rounded to bf16 (nearest even) before the dV / dK / dQ products (the op test's `cpu_lp_round`
variant), and dQ as one bf16 partial per 192-row k tile summed by bf16 adds.
"""
import glob, math, os, struct, sys
from operator import mul
from ref_common import bf16_round, bf16s, f32s, load

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "fmha_bwd_hd128_bf16_a16_rtne"
TS_KV = 192   # fmha_bwd_dqdkdv.csv line 71: ts (k rows per workgroup)


def spec(hsa, B=1, H=2, S=256, D=128):
    sys.path.insert(0, HERE)
    from gen_specs import write_spec
    # hsa/gfx942/fmha_v3_bwd/fmha_bwd_dqdkdv.csv line 71: bf16, hdim 128/128, mask 0, atomic32 0,
    # pssk 0, pddv 0, mode 0 (batch), bf16_cvt 0 (rtne), ts_qo 16, ts (kv) 192.
    ts_kv = TS_KV
    Hq = Hk = H                       # np(): dk/dv batch stride / k batch stride == Hq / Hk; no GQA here
    n = B * S * H * D                 # every BSHD tensor
    st = H * D                        # x.stride(1) (elements), the same for q, k, v, do, dq, dk, dv
    hst = D                           # x.stride(2)
    bst = S * H * D                   # x.stride(0)
    grid = [(S + ts_kv - 1) // ts_kv, Hq, B]   # mha_bwd.cu lines 692-695 (no mask: no halving)
    bf = lambda role, what: {"type": "bf16", "elements": n, "role": role, "comment": what}
    f = {
        "dQ": dict(bf("out", f"ptr_dq = a.dq_ptr (a16 on gfx942: no post kernel) [B={B}, Sq={S}, Hq={Hq}, D={D}] bf16, "
                             "zeroed (mha.py dq.zero_(); the kernel adds with global_atomic_pk_add_bf16)"), fill="zero"),
        "dK": bf("out", f"ptr_dk = dk_expanded (= dk, Hq == Hk) [B, Sk={S}, Hq, D] bf16"),
        "dV": bf("out", "ptr_dv = dv_expanded (= dv) [B, Sk, Hq, Dv] bf16"),
        "Q": bf("in", "ptr_q [B, Sq, Hq, D] bf16"),
        "K": bf("in", "ptr_k [B, Sk, Hk, D] bf16"),
        "V": bf("in", "ptr_v [B, Sk, Hk, Dv] bf16"),
        "dO": bf("in", "ptr_do [B, Sq, Hq, Dv] bf16"),
        "Lse": {"type": "f32", "elements": B * Hq * S, "role": "in", "range": [5.4, 5.8],
                "comment": "ptr_lse = softmax_lse [B, Hq, Sq] fp32 (natural log); 5.4..5.8 ~ logsumexp of "
                           "scale*QK^T for uniform [-1,1) Q, K and Sk=256 (ln 256 + 0.06)"},
        "D": {"type": "f32", "elements": B * Hq * S, "role": "in", "range": [-0.5, 0.5],
              "comment": "ptr_d = softmax_d [B, Hq, Sq] fp32 = rowsum(dO*O), the odo pre-kernel's output "
                         "(bwd_hd128_odo_bf16.co), given as an input"},
        "scalar": {"type": "f32", "value": 1 / math.sqrt(D), "comment": "a.scale = softmax_scale = 1/sqrt(hdim_q)"},
        "log2e": {"type": "f32", "value": 1.4426950408889634, "comment": "ck_tile::log2e_v<float>"},
        "seqlen_q": {"value": S},
        "Ts": {"value": ts_kv * st * 2, "comment": "ts_kv (192) * stride_k * 2"},
        "Hs_q": {"value": hst * 2, "comment": "nhead_stride_q * 2"},
        "BAs_q": {"value": bst * 2, "comment": "batch_stride_q * 2"},
        "Seqs_q": {"value": st * 2, "comment": "stride_q * 2"},
        "ratio": {"value": Hq // Hk, "comment": "nhead_q / nhead_k"},
        "Hs_k": {"value": hst * 2}, "BAs_k": {"value": bst * 2}, "Seqs_k": {"value": st * 2},
        "Seqs_dk": {"value": st * 2, "comment": "stride_dk * 2"},
        "seqlen_k": {"value": S},
        "head_dim_q": {"value": D}, "head_dim_v": {"value": D},
        "nhead_q": {"value": Hq},
        "Hs_v": {"value": hst * 2}, "BAs_v": {"value": bst * 2}, "Seqs_v": {"value": st * 2},
        "Hs_do": {"value": hst * 2}, "BAs_do": {"value": bst * 2}, "Seqs_do": {"value": st * 2},
        "Hs_dk": {"value": hst * 2}, "BAs_dk": {"value": bst * 2},
        "Hs_dv": {"value": hst * 2}, "BAs_dv": {"value": bst * 2}, "Seqs_dv": {"value": st * 2},
        "Hs_lsed": {"value": S * 4, "comment": "nhead_stride_lse * 4"},
        "ptr_qseq": {"value": "null", "comment": "batch mode: seqstart_q_ptr = nullptr"},
        "ptr_kseq": {"value": "null", "comment": "batch mode: nullptr"},
        "ptr_qseq_padded": {"value": "null", "comment": "batch mode: nullptr"},
        "ptr_kseq_padded": {"value": "null", "comment": "batch mode: nullptr"},
        "max_seq_len_dq": {"value": (S + 15) // 16 * 16, "comment": "a16: (max_seqlen_q + 15) / 16 * 16"},
        "mask_x": {"value": 0, "comment": "set only for mask type 3 (uninitialised otherwise); 0"},
        "mask_y": {"value": 0, "comment": "set only for mask type 3; 0"},
    }
    co = os.path.join(hsa, "gfx942/fmha_v3_bwd/bwd_hd128_bf16_a16_rtne.co")
    write_spec(NAME, co, f"_ZN5aiter{len(NAME)}{NAME}E", grid, [256, 1, 1], f,
               f"AITer fmha_v3_bwd dQdKdV kernel (gfx942, a16, rtne), batch mode, no mask: B={B} Hq=Hk={H} "
               f"Sq=Sk={S} d=dv={D}, BSHD layout, LSE and D (odo pre-kernel's rowsum(dO*O)) as inputs, "
               f"grid ceil(Sk/192) x Hq x B, block 256; see the .md")


def ulp(x):
    """bf16 ulp at x (8 significant bits)."""
    return 2.0 ** (math.frexp(abs(x))[1] - 8) if x else 2.0 ** -133


def check(d, B=1, H=2, S=256, D=128):
    Q, K, V, dO = (bf16s(load(d, x)) for x in ("Q", "K", "V", "dO"))
    L, Dd = f32s(load(d, "Lse")), f32s(load(d, "D"))
    got = {x: bf16s(load(d, x, "k0")) for x in ("dQ", "dK", "dV")}
    scale = 1.0 / math.sqrt(D)
    idx = lambda b, s, h: ((b * S + s) * H + h) * D       # BSHD row start
    ref = {x: [0.0] * (B * S * H * D) for x in ("dQ", "dK", "dV")}
    lp = {x: [0.0] * (B * S * H * D) for x in ("dQ", "dK", "dV")}   # P, dS rounded to bf16 first
    for b in range(B):
        for h in range(H):
            q = [Q[idx(b, i, h):][:D] for i in range(S)]
            k = [K[idx(b, j, h):][:D] for j in range(S)]
            v = [V[idx(b, j, h):][:D] for j in range(S)]
            do = [dO[idx(b, i, h):][:D] for i in range(S)]
            P, dS = [], []
            for i in range(S):
                lse, di = L[(b * H + h) * S + i], Dd[(b * H + h) * S + i]
                p = [math.exp(scale * math.fsum(map(mul, q[i], k[j])) - lse) for j in range(S)]
                dp = [math.fsum(map(mul, do[i], v[j])) for j in range(S)]
                P.append(p)
                dS.append([pj * (dpj - di) for pj, dpj in zip(p, dp)])
            kT, qT, doT = (list(zip(*m)) for m in (k, q, do))   # [D][S]
            for out, (Pm, dSm) in ((ref, (P, dS)),
                                   (lp, ([[bf16_round(x) for x in r] for r in P], [[bf16_round(x) for x in r] for r in dS]))):
                PT, dST = list(zip(*Pm)), list(zip(*dSm))        # [Sk][Sq]
                for i in range(S):      # dQ_i = scale * sum_j dS_ij k_j
                    o = idx(b, i, h)
                    for c in range(D):
                        if out is ref:
                            out["dQ"][o + c] = scale * math.fsum(map(mul, dSm[i], kT[c]))
                            continue
                        # the kernel: one bf16 partial per 192-row k tile (workgroup), added with
                        # global_atomic_pk_add_bf16 into the zeroed dQ (bf16 result of each add)
                        acc = 0.0
                        for t in range(0, S, TS_KV):
                            acc = bf16_round(acc + bf16_round(scale * math.fsum(map(mul, dSm[i][t:t + TS_KV], kT[c][t:t + TS_KV]))))
                        out["dQ"][o + c] = acc
                for j in range(S):      # dK_j = scale * sum_i dS_ij q_i, dV_j = sum_i P_ij dO_i
                    o = idx(b, j, h)
                    for c in range(D):
                        out["dK"][o + c] = scale * math.fsum(map(mul, dST[j], qT[c]))
                        out["dV"][o + c] = math.fsum(map(mul, PT[j], doT[c]))
    ok = True
    for x in ("dQ", "dK", "dV"):
        r, g = ref[x], got[x]
        amax = max(abs(t) for t in r)
        nonfinite = sum(1 for t in g if not math.isfinite(t))
        diffs = [abs(a - e) for a, e in zip(g, r) if math.isfinite(a)]
        wabs = max(diffs) if diffs else float("inf")
        # relative error per element, against max(|ref|, 1% of the tensor's max |ref|)
        wrel = max(abs(a - e) / max(abs(e), 0.01 * amax) for a, e in zip(g, r) if math.isfinite(a))
        exact = sum(1 for a, e in zip(g, r) if a == bf16_round(e))
        tol = 2 ** -7 * amax    # bf16 output rounding (2^-9 relative) plus bf16 P / dS in the MFMAs
        bad = [(i, a, e) for i, (a, e) in enumerate(zip(g, r)) if not abs(a - e) <= tol]
        print(f"{x}: {len(r)} compared, max |ref| {amax:.4g}, max |{x} - ref| = {wabs:.4g} "
              f"({wabs / amax:.3g} of max |ref|), max rel = {wrel:.4g} (rel to max(|ref|, 1% of max |ref|)), "
              f"{exact} = bf16(ref), {len(bad)} beyond 2^-7 * max |ref|, {nonfinite} not finite")
        l = lp[x]
        lpabs = max(abs(a - e) for a, e in zip(g, l) if math.isfinite(a))
        print(f"    against the model with P and dS rounded to bf16 before the GEMMs"
              f"{' (and dQ as bf16 partials per k tile, added in bf16)' if x == 'dQ' else ''}: "
              f"max |{x} - model| = {lpabs:.4g} ({lpabs / amax:.3g} of max |ref|, {lpabs / ulp(amax):.3g} bf16 ulp "
              f"at max |ref|), {sum(1 for a, e in zip(g, l) if a == bf16_round(e))} = bf16(model)")
        for i, a, e in bad[:10]:
            s, c = divmod(i, D)
            bb, rest = divmod(s, S * H)
            row, hh = divmod(rest, H)
            print(f"  {x}[b={bb}, s={row}, h={hh}, c={c}] = {a!r}, ref {e!r}")
        ok &= not bad and nonfinite == 0
    return ok


if __name__ == "__main__":
    what, arg, *n = sys.argv[1:]
    if what == "spec":
        spec(arg, *map(int, n))
    elif what == "check":
        sys.exit(0 if check(arg, *map(int, n)) else 1)
    else:
        raise SystemExit(f"unknown command {what}")
