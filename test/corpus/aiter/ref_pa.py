#!/usr/bin/env python3
"""AITer's paged-attention decode kernel pa_bf16_noquant_gqa8_1tg_4w (gfx942 asm, hsa/gfx942/pa/):
the launch spec, its block-table / context-length buffers, and an independent plain-Python
reference (no numpy, no torch).

    python3 ref_pa.py spec [CO]        # writes pa_bf16_noquant_gqa8_1tg_4w.json and
                                       # pa_bf16_noquant_gqa8_1tg_4w.{bt,cl}.bin next to this file
                                       # (CO: the .co whose metadata lists the args; checked)
    python3 ref_pa.py check DIR/seed1 [k0|k1]   # compares K0's (or K1's) O, from
                                       # kernel-diffcheck --dump-inputs DIR, with the reference

Host: csrc/py_itfs_cu/asm_pa.cu `pa_fwd` (aiter e4048607a5), decode (max_qlen = 1, no qo_indptr,
no K/V scales). Layouts (op_tests/test_pa*.py: kv_cache_factory, asm_V_shuffle):
  Q   [NSEQ, HQ, D] bf16                      HQ = HK * GQA, D = 128
  K   [NB, HK, D/X, BS, X] bf16               X = 16 / 2 = 8, BS = 16 (the block size of the CSV)
  V   [NB, HK, BS/X, D, X] bf16               asm_V_shuffle of [NB, HK, D, BS]
  BT  [NSEQ, MBLK] i32 block tables, CL [NSEQ] i32 context lengths
  O   [NSEQ, HQ, D] bf16
Reference (torch_mha_extend / ref_masked_attention of the op test, decode: one query row, so the
causal mask keeps every key): per sequence b and q head h (kv head h // GQA),
  O[b, h] = softmax(q . k_j / sqrt(D), j < CL[b]) . V, in float64 here (float32 in the test).
"""
import glob, json, math, os, re, struct, subprocess, sys
from ref_common import bf16_round, bf16s, f32, i32s, load, metadata_args, write_spec_json

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "pa_bf16_noquant_gqa8_1tg_4w"
KERNEL = "_ZN5aiter27pa_bf16_noquant_gqa8_1tg_4wE"
CO = "/work/aiter/hsa/gfx942/pa/pa_bf16_noquant_gqa8_1tg_4w.co"
READELF = os.environ.get("LLVM_READELF", "/usr/lib/llvm-22/bin/llvm-readelf")

NSEQ, HK, GQA, D = 3, 2, 8, 128       # sequences, kv heads, q heads per kv head, head size
HQ = HK * GQA                          # 16 q heads
BS, X = 16, 8                          # block size (CSV blkSz), K x-packing (16 bytes of bf16)
CTX = [100, 300, 171]                  # context lengths: a tail only; a full 256-token part + tail; ...
MBLK = max((c + BS - 1) // BS for c in CTX)     # 19 = block_tables.size(1) = stride(0)
NB = 64                                # physical blocks in the cache (>= NSEQ * MBLK = 57)


def block_table():
    """NSEQ x MBLK distinct physical block ids, scattered: (i * 37 + 5) % 64 (37 odd: a
    permutation of 0..63). Entries past a sequence's last block are real blocks too."""
    return [(i * 37 + 5) % NB for i in range(NSEQ * MBLK)]


def sclg2e():
    """pa_fwd lines 203-205: f_log2E = log2f(expf(1)) (float), k_scalar = sqrt(dim) stored in a
    float, then (float)((double)k_log2e / (double)k_scalar)."""
    l2e = f32(math.log2(f32(math.exp(1.0))))
    return f32(l2e / f32(math.sqrt(D)))


# ---------------------------------------------------------------------------------------------
# spec


def spec(co=CO):
    bt = block_table()
    open(os.path.join(HERE, f"{NAME}.bt.bin"), "wb").write(struct.pack(f"<{len(bt)}i", *bt))
    open(os.path.join(HERE, f"{NAME}.cl.bin"), "wb").write(struct.pack(f"<{NSEQ}i", *CTX))
    kv = NB * HK * D * BS
    s = sclg2e()
    fields = {
        "O": {"type": "bf16", "elements": NSEQ * HQ * D, "role": "out",
              "comment": f"ptr_O = out_ [NSEQ={NSEQ}, HQ={HQ}, D={D}] bf16"},
        "Q": {"type": "bf16", "elements": NSEQ * HQ * D, "range": [-1, 1], "role": "in",
              "comment": f"ptr_Q = Q [NSEQ, HQ, D] bf16, uniform(-1, 1) as the op test"},
        "K": {"type": "bf16", "elements": kv, "range": [-1, 1], "role": "in",
              "comment": f"ptr_K = K cache [NB={NB}, HK={HK}, D/x=16, BS={BS}, x=8] bf16"},
        "V": {"type": "bf16", "elements": kv, "range": [-1, 1], "role": "in",
              "comment": f"ptr_V = V cache asm_V_shuffle'd [NB, HK, BS/x=2, D, x=8] bf16"},
        "BT": {"type": "i32", "file": f"{NAME}.bt.bin", "role": "in",
               "comment": f"ptr_BT = block_tables [NSEQ, MBLK={MBLK}] i32, (i*37+5)%64"},
        "CL": {"type": "i32", "file": f"{NAME}.cl.bin", "role": "in",
               "comment": f"ptr_CL = context_lens [NSEQ] i32 = {CTX}"},
        "KQ": {"value": "null", "comment": "ptr_KQ: K_QScale = None -> nullptr"},
        "VQ": {"value": "null", "comment": "ptr_VQ: V_QScale = None -> nullptr"},
        "sclg": {"type": "f32", "value": s,
                 "comment": f"sclg2e = log2(e)/sqrt(128) = 0x{struct.unpack('<I', struct.pack('<f', s))[0]:08x}"},
        "mblk": {"value": MBLK, "comment": "block_tables_stride0 = block_tables.size(1)"},
        "batch": {"value": HK, "comment": "kv_nheads = K.size(1) (the host struct's field; the metadata calls it batch)"},
        "Qs": {"value": HQ * D * 2, "comment": "stride_Q = Q.stride(0) * 2 bytes"},
        "Bs": {"value": HK * D * BS * 2, "comment": "stride_KV_blk = K.stride(0) * 2 bytes"},
        "KVs": {"value": D * BS * 2, "comment": "stride_KV_head = K.stride(1) * 2 bytes"},
        "mtp": {"value": 0, "comment": "max_qlen - 1 = 0 (decode)"},
        "GQA": {"value": GQA, "comment": "gqa_ratio = num_heads / num_kv_heads"},
        "QTP": {"value": "null", "comment": "ptr_QTP: qo_indptr = None -> nullptr"},
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
    sp = {"comment": f"AITer pa_fwd (asm_pa.cu) decode, bf16 Q/K/V, no quant: NSEQ={NSEQ} HK={HK} GQA={GQA} "
                     f"HQ={HQ} D={D} block {BS}, context {CTX}, grid HK x NSEQ x 1, block 256; see the .md",
          "kernel": KERNEL, "grid": [HK, NSEQ, 1], "block": [256, 1, 1], "dynamic_lds": 0, "args": args}
    path = os.path.join(HERE, NAME + ".json")
    write_spec_json(path, sp["comment"], sp["kernel"], sp["grid"], sp["block"], args, sp["dynamic_lds"])
    print("wrote", path, "and", NAME + ".{bt,cl}.bin")


# ---------------------------------------------------------------------------------------------
# reference


def check(d, which="k0"):
    Q, K, V = bf16s(load(d, "Q")), bf16s(load(d, "K")), bf16s(load(d, "V"))
    BT, CL = i32s(load(d, "BT")), i32s(load(d, "CL"))
    O = bf16s(load(d, "O", which))
    assert len(Q) == NSEQ * HQ * D and len(O) == NSEQ * HQ * D and len(K) == NB * HK * D * BS
    assert CL == CTX and BT == block_table(), (CL, BT)
    scale = 1.0 / math.sqrt(D)
    wa = wr = 0.0          # max |O - ref|, max |O - ref| / max |ref| of the (seq, head) row
    wa_m = 0.0             # the same against the model that rounds P to bf16 (kernel's PV MFMA)
    bad = 0                # beyond checkAllclose's default atol = rtol = 1e-2
    half = 0               # within half a bf16 ulp of O (its rounding) of the model
    n = 0
    worst = None
    for b in range(NSEQ):
        ctx = CL[b]
        toks = []
        for j in range(ctx):
            blk, off = BT[b * MBLK + j // BS], j % BS
            toks.append((blk, off))
        for hk in range(HK):
            keys = [[K[(((blk * HK + hk) * (D // X) + c // X) * BS + off) * X + c % X] for c in range(D)]
                    for blk, off in toks]
            vals = [[V[(((blk * HK + hk) * (BS // X) + off // X) * D + c) * X + off % X] for c in range(D)]
                    for blk, off in toks]
            for g in range(GQA):
                h = hk * GQA + g
                q = Q[(b * HQ + h) * D:][:D]
                s = [scale * math.fsum(x * y for x, y in zip(q, k)) for k in keys]
                mx = max(s)
                p = [math.exp(x - mx) for x in s]
                den = math.fsum(p)
                ref = [math.fsum(pj * v[c] for pj, v in zip(p, vals)) / den for c in range(D)]
                pb = [bf16_round(x) for x in p]     # model: P in bf16, normalised by the fp32 sum
                mod = [math.fsum(pj * v[c] for pj, v in zip(pb, vals)) / den for c in range(D)]
                rmax = max(abs(r) for r in ref)
                for c in range(D):
                    o = O[(b * HQ + h) * D + c]
                    e = abs(o - ref[c])
                    if e > wa:
                        wa, worst = e, (b, h, c, o, ref[c])
                    wr = max(wr, e / rmax)
                    em = abs(o - mod[c])
                    wa_m = max(wa_m, em)
                    if o == 0.0 or em <= 2.0 ** (math.floor(math.log2(abs(o))) - 8) * 1.001:
                        half += 1
                    if not (e <= 1e-2 + 1e-2 * abs(ref[c])):
                        bad += 1
                    n += 1
    print(f"pa {NAME} {which}: NSEQ={NSEQ} HK={HK} GQA={GQA} D={D} ctx={CTX}: {n} outputs, "
          f"max |O - ref| = {wa:.3g} (relative to the row's max |ref|: {wr:.3g}), "
          f"max |O - model(P bf16)| = {wa_m:.3g} ({half} within half a bf16 ulp of O), "
          f"{bad} beyond atol=rtol=1e-2")
    if worst:
        print(f"  worst: seq {worst[0]} head {worst[1]} col {worst[2]}: O = {worst[3]!r}, ref = {worst[4]!r}")
    return bad == 0


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "spec":
        spec(*sys.argv[2:3])
    elif what == "check":
        sys.exit(0 if check(*sys.argv[2:4]) else 1)
    else:
        raise SystemExit(__doc__)
