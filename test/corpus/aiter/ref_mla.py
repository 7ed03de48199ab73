#!/usr/bin/env python3
"""AITer's MLA decode stage-1 kernel mla_dec_stage1_bf16_a16w16_subQ16_mqa16 (gfx942 asm,
hsa/gfx942/mla/): the launch spec, its kv_indptr / kv_page_indices / kv_last_page_lens buffers,
and an independent plain-Python reference of the split-KV partial outputs and LSEs (no numpy,
no torch).

    python3 ref_mla.py spec [CO]        # writes mla_dec_stage1_bf16_a16w16_subQ16_mqa16.json and
                                        # mla_dec_stage1_bf16_a16w16_subQ16_mqa16.{ltp,ltd,ltl}.bin
                                        # next to this file (CO: the .co whose metadata lists
                                        # the args)
    python3 ref_mla.py check DIR/seed1 [k0|k1]   # compares K0's (or K1's) partial O and LSE,
                                        # from kernel-diffcheck --dump-inputs DIR, with the reference

Host: csrc/py_itfs_cu/asm_mla.cu `mla_decode_stage1_asm_fwd` (non-persistent: num_kv_splits_indptr
given, no work metadata), called by aiter/mla.py `mla_decode_fwd` for bf16 Q / bf16 KV, 16 heads,
one query token per sequence (max_seqlen_q = 1), page size 1, nhead_kv = 1. Layouts
(op_tests/test_mla.py, aiter/mla.py):
  Q       [NSEQ, H=16, DQK=576] bf16                 (kv_lora_rank 512 + qk_rope_head_dim 64)
  KV      [NPAGE, page_size=1, nhead_kv=1, 576] bf16 (K = all 576, V = the first 512)
  kv_indptr [NSEQ+1] i32 (token level: page size 1), kv_page_indices [total_kv] i32,
  kv_last_page_lens [NSEQ] i32 = 1
  logits (splitData) [NSEQ, S, H, 512] fp32, attn_lse (splitLse) [NSEQ, S, H, 1] fp32
Split rule (from the kernel, see the .md): the context is cut into chunks of 64 tokens and split
z takes chunks z, z + S, z + 2S, ...; a split with no chunk writes nothing (stage 2 reads only
min(S, ceil(len / 64)) splits, mla.py mgc = 64).
Reference per sequence b, split z, head h (ref_masked_attention of the op test restricted to the
split's tokens; one query row, so the causal mask keeps every key):
  s_j = sm_scale * q . k_j,  O = softmax(s_j) . v_j,  LSE = logsumexp(s_j)  (natural log),
in float64 here.
"""
import glob, json, math, os, re, struct, subprocess, sys
from ref_common import bf16_round, bf16s, f32, f32s, i32s, load, metadata_args, write_spec_json

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "mla_dec_stage1_bf16_a16w16_subQ16_mqa16"
KERNEL = "_ZN5aiter39mla_dec_stage1_bf16_a16w16_subQ16_mqa16E"
CO = "/work/aiter/hsa/gfx942/mla/mla_dec_stage1_bf16_a16w16_subQ16_mqa16.co"
READELF = os.environ.get("LLVM_READELF", "/usr/lib/llvm-22/bin/llvm-readelf")

NSEQ, H = 2, 16                        # sequences (batch), query heads (gqa_ratio, nhead_kv = 1)
DQK, DV = 576, 512                     # kv_lora_rank + qk_rope_head_dim, kv_lora_rank
CTX = [300, 100]                       # context lengths (page size 1: one page per token)
S = 3                                  # num_kv_splits (splitData.size(1))
CHUNK = 64                             # tokens per chunk (the kernel's s44 = 64 >> 0)
NPAGE = 512                            # pages in the KV buffer (>= sum(CTX) = 400)
TOTAL = sum(CTX)


def kv_indptr():
    out = [0]
    for c in CTX:
        out.append(out[-1] + c)
    return out


def page_indices():
    """total_kv distinct pages, scattered: (i * 37 + 5) % 512 (37 odd: a permutation)."""
    return [(i * 37 + 5) % NPAGE for i in range(TOTAL)]


def sm_scale():
    """mla.py: sm_scale = 1.0 / (qk_head_dim ** 0.5) (Python float), passed as a C float."""
    return f32(1.0 / (DQK ** 0.5))


def split_tokens(ctx, z):
    return [j for j in range(ctx) if (j // CHUNK) % S == z]


# ---------------------------------------------------------------------------------------------
# spec


def spec(co=CO):
    ltp, ltd, ltl = kv_indptr(), page_indices(), [1] * NSEQ
    for ext, vals in (("ltp", ltp), ("ltd", ltd), ("ltl", ltl)):
        open(os.path.join(HERE, f"{NAME}.{ext}.bin"), "wb").write(struct.pack(f"<{len(vals)}i", *vals))
    s = sm_scale()
    # the metadata's names are those of the pa kernels; the host struct (asm_mla.cu KernelArgs)
    # has other fields at the same offsets
    fields = {
        "O": {"type": "f32", "elements": NSEQ * S * H * DV, "role": "out",
              "comment": f"ptr_R = splitData (logits) [NSEQ={NSEQ}, S={S}, H={H}, DV={DV}] fp32 (mla.py: torch.empty, fp32)"},
        "Q": {"type": "f32", "elements": NSEQ * S * H, "role": "out",
              "comment": f"ptr_LSE = splitLse (attn_lse) [NSEQ, S, H, 1] fp32"},
        "K": {"type": "bf16", "elements": NSEQ * H * DQK, "range": [-2, 2], "role": "in",
              "comment": f"ptr_Q = Q [NSEQ, H, {DQK}] bf16"},
        "V": {"type": "bf16", "elements": NPAGE * DQK, "range": [-2, 2], "role": "in",
              "comment": f"ptr_KV = kv_buffer [NPAGE={NPAGE}, page_size=1, nhead_kv=1, {DQK}] bf16"},
        "BT": {"type": "i32", "file": f"{NAME}.ltp.bin", "role": "in",
               "comment": f"ptr_LTP = kv_indptr [NSEQ+1] i32 = {ltp} (token level, page size 1)"},
        "CL": {"type": "i32", "file": f"{NAME}.ltd.bin", "role": "in",
               "comment": f"ptr_LTD = kv_page_indices [{TOTAL}] i32, (i*37+5)%{NPAGE}"},
        "KQ": {"type": "i32", "file": f"{NAME}.ltl.bin", "role": "in",
               "comment": f"ptr_LTL = kv_last_page_lens [NSEQ] i32 = 1 (loaded, never read by this kernel)"},
        "sclg": {"type": "f32", "value": s,
                 "comment": f"scalar = softmax_scale = 1/sqrt(576) = 0x{struct.unpack('<I', struct.pack('<f', s))[0]:08x}"},
        "mblk": {"value": H, "comment": "s_MQA = gqa_ratio * max_seqlen_q = 16 * 1"},
        "batch": {"value": S, "comment": "s_kv_split = kv_split = splitData.size(1)"},
        "Qs": {"value": H * DQK * 2, "comment": "s_Q_Bs = Q.stride(0) * 2 bytes * max_seqlen_q"},
        "Bs": {"value": DQK * 2, "comment": "s_Bs = stride_Page = KV.stride(0) * 2 bytes (page size 1)"},
        "Cs": {"value": 0, "comment": "s_log2_plen = log2(page_size = 1) (the kernel overwrites it with 0)"},
    }
    args = []
    seen = set()
    for i, (n, off, _) in enumerate(metadata_args(co)):
        if n == "pad":
            args.append({"arg": f"#{i}", "value": 0})
            continue
        e = {"arg": f"#{i}"}
        e.update(fields[n])
        e["comment"] = f"{n} @ offset {off}: {e['comment']}"
        args.append(e)
        seen.add(n)
    assert seen == set(fields), set(fields) - seen
    sp = {"comment": f"AITer mla_decode_stage1_asm_fwd (asm_mla.cu), non-persistent decode, bf16 Q/KV, "
                     f"NSEQ={NSEQ} H={H} nhead_kv=1 d={DQK} (V {DV}), page size 1, context {CTX}, "
                     f"S={S} kv splits, grid 1 x NSEQ x S, block 256; see the .md",
          "kernel": KERNEL, "grid": [1, NSEQ, S], "block": [256, 1, 1], "dynamic_lds": 0, "args": args}
    path = os.path.join(HERE, NAME + ".json")
    write_spec_json(path, sp["comment"], sp["kernel"], sp["grid"], sp["block"], args, sp["dynamic_lds"])
    print("wrote", path, "and", NAME + ".{ltp,ltd,ltl}.bin")


# ---------------------------------------------------------------------------------------------
# reference


def check(d, which="k0"):
    # dumped buffers carry the metadata's names: K = Q, V = KV, BT = kv_indptr, CL = page indices,
    # O = splitData, Q = splitLse
    Q, KV = bf16s(load(d, "K")), bf16s(load(d, "V"))
    LTP, LTD = i32s(load(d, "BT")), i32s(load(d, "CL"))
    R, LSE = f32s(load(d, "O", which)), f32s(load(d, "Q", which))
    assert len(Q) == NSEQ * H * DQK and len(KV) == NPAGE * DQK
    assert len(R) == NSEQ * S * H * DV and len(LSE) == NSEQ * S * H
    assert LTP == kv_indptr() and LTD == page_indices(), (LTP, LTD[:8])
    scale = sm_scale()
    wa = wr = wl = wa_m = 0.0
    bad = bad_l = n = nl = 0
    worst = None
    skipped = []
    for b in range(NSEQ):
        ctx = LTP[b + 1] - LTP[b]
        for z in range(S):
            toks = split_tokens(ctx, z)
            if not toks:
                skipped.append((b, z))
                continue
            rows = [KV[LTD[LTP[b] + j] * DQK:][:DQK] for j in toks]
            for h in range(H):
                q = Q[(b * H + h) * DQK:][:DQK]
                s = [scale * math.fsum(x * y for x, y in zip(q, k)) for k in rows]
                mx = max(s)
                p = [math.exp(x - mx) for x in s]
                den = math.fsum(p)
                lse_ref = mx + math.log(den)
                acc = [0.0] * DV
                acc_m = [0.0] * DV
                for pj, k in zip(p, rows):
                    pb = bf16_round(pj)     # model: P in bf16 (the PV MFMA's operand), exact sum
                    acc = [a + pj * v for a, v in zip(acc, k)]
                    acc_m = [a + pb * v for a, v in zip(acc_m, k)]
                ref = [a / den for a in acc]
                mod = [a / den for a in acc_m]
                rmax = max(abs(r) for r in ref)
                base = ((b * S + z) * H + h) * DV
                for c in range(DV):
                    o = R[base + c]
                    e = abs(o - ref[c])
                    if e > wa:
                        wa, worst = e, (b, z, h, c, o, ref[c])
                    wr = max(wr, e / rmax)
                    wa_m = max(wa_m, abs(o - mod[c]))
                    if not (e <= 1e-2 + 1e-2 * abs(ref[c])):
                        bad += 1
                    n += 1
                l = LSE[(b * S + z) * H + h]
                el = abs(l - lse_ref)
                wl = max(wl, el)
                if not (el <= 1e-2 + 1e-2 * abs(lse_ref)):
                    bad_l += 1
                nl += 1
    print(f"mla {NAME} {which}: NSEQ={NSEQ} H={H} d={DQK}/{DV} ctx={CTX} S={S}: {n} partial outputs, "
          f"max |O - ref| = {wa:.3g} (relative to the row's max |ref|: {wr:.3g}), "
          f"max |O - model(P bf16)| = {wa_m:.3g}, {bad} beyond atol=rtol=1e-2; "
          f"{nl} LSEs, max |LSE - ref| = {wl:.3g}, {bad_l} beyond atol=rtol=1e-2")
    if worst:
        print(f"  worst: seq {worst[0]} split {worst[1]} head {worst[2]} col {worst[3]}: "
              f"O = {worst[4]!r}, ref = {worst[5]!r}")
    untouched = True
    if skipped:
        # such a split must leave its slots as they were (the dump's .in.bin: kernel-diffcheck's fill)
        R0, L0 = load(d, "O", "in"), load(d, "Q", "in")
        Rw, Lw = load(d, "O", which), load(d, "Q", which)
        for b, z in skipped:
            o, l = ((b * S + z) * H * DV) * 4, ((b * S + z) * H) * 4
            untouched &= Rw[o:o + H * DV * 4] == R0[o:o + H * DV * 4] and Lw[l:l + H * 4] == L0[l:l + H * 4]
        print(f"  (seq, split) {skipped} without tokens (the kernel exits before any store): "
              f"{'left unchanged' if untouched else 'WRITTEN'}")
    return bad == 0 and bad_l == 0 and untouched


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "spec":
        spec(*sys.argv[2:3])
    elif what == "check":
        sys.exit(0 if check(*sys.argv[2:4]) else 1)
    else:
        raise SystemExit(__doc__)
