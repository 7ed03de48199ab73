#!/usr/bin/env python3
"""Writes the launch specs of this folder from the AITer code objects' metadata.

AITer's hand-written kernels take one packed kernarg struct; their metadata lists every
field, padding included, as its own explicit argument (the padding ones all named "pad").
kernel-diffcheck needs one entry per explicit argument, so this script walks the metadata
(llvm-readelf --notes), gives every "pad" the value 0 and every named field the entry below.

    python3 gen_specs.py AITER_HSA_DIR   # e.g. /work/aiter/hsa
"""
import json, math, os, subprocess, sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ref_common import write_spec_json  # noqa: E402

READELF = os.environ.get("LLVM_READELF", "/usr/lib/llvm-22/bin/llvm-readelf")
HERE = os.path.dirname(os.path.abspath(__file__))


def metadata_args(co, kernel):
    out = subprocess.run([READELF, "--notes", co], capture_output=True, text=True, check=True).stdout
    doc = out[out.index("---"):]
    doc = doc[:doc.index("\n...")] if "\n..." in doc else doc
    for k in yaml.safe_load(doc)["amdhsa.kernels"]:
        if k[".name"] == kernel:
            return k[".args"]
    raise SystemExit(f"{co}: no kernel {kernel}")


def write_spec(name, co, kernel, grid, block, fields, comment, names_by_offset=None):
    """names_by_offset: for metadata without argument names (every arg unnamed), the field name
    of each argument by its kernarg offset; an offset not in it is a "pad"."""
    args = []
    seen = set()
    for i, a in enumerate(metadata_args(co, kernel)):
        n = a.get(".name") if names_by_offset is None else names_by_offset.get(a[".offset"], "pad")
        if n == "pad":
            args.append({"arg": f"#{i}", "value": 0})
            continue
        if n not in fields:
            raise SystemExit(f"{name}: no entry for field {n} (#{i}, offset {a['.offset']})")
        e = {"arg": f"#{i}"}
        e.update(fields[n])
        e["comment"] = f"{n} @ offset {a['.offset']}" + (f": {e['comment']}" if "comment" in e else "")
        args.append(e)
        seen.add(n)
    missing = set(fields) - seen
    if missing:
        raise SystemExit(f"{name}: fields not in the metadata: {sorted(missing)}")
    path = os.path.join(HERE, name + ".json")
    write_spec_json(path, comment, kernel, grid, block, args)
    print("wrote", path)


def bf16gemm(hsa, variant="pf3"):
    # csrc/py_itfs_cu/asm_gemm_a16w16.cu: KernelArgs, gemm_a16w16_asm(); CSV tileM=32 tileN=64,
    # pf=3, bPreshuffle=0, splitK=0, subK=64, bias=1.
    # variant "pf3": bf16gemm_fp32bf16_tn_32x64_pf3_splitk (CSV splitK=0), M % 32 == 0 (see the
    #   .md: a partial M tile needs the emulator's buffer range check fixed), fp32 out;
    # variant "m40": the same kernel with M = 40, which reproduces that emulator problem;
    # variant "clean": bf16gemm_fp32bf16_tn_32x64_splitk_clean (CSV splitK=1) with split-K 2,
    #   the semaphore workspace and bf16 out.
    M = 40 if variant == "m40" else 64
    N, K = 128, 256                  # N % 64 == 0; K % 64 == 0
    tileM, tileN = 32, 64
    split = 2 if variant == "clean" else 1
    out_b16 = 1 if variant == "clean" else 0
    out_bpe = 2 if out_b16 else 4
    grid = [(N + tileN - 1) // tileN, (M + tileM - 1) // tileM, split]  # gdx, gdy, gdz = splitk
    name = "bf16gemm_fp32bf16_tn_32x64_splitk_clean" if variant == "clean" else "bf16gemm_fp32bf16_tn_32x64_pf3_splitk"
    kernel = f"_ZN5aiter{len(name)}{name}E"
    co = os.path.join(hsa, f"gfx942/bf16gemm/{name}.co")
    f = {
        "D": {"type": "bf16" if out_b16 else "f32", "elements": M * N, "role": "out",
              "comment": f"out [M={M}, N={N}] {'bf16' if out_b16 else 'fp32'}"},
        "C": {"value": "null", "comment": "ptr_C = nullptr"},
        "A": {"type": "bf16", "elements": M * K + (128 if variant == "clean" else 0), "role": "in",
              "comment": f"A [M={M}, K={K}] bf16 row-major" + (" + 128 elements: the kernel prefetches 256 bytes past "
                         "the end, which hardware's raw-buffer range check zeroes and the emulator reads (see the .md)"
                         if variant == "clean" else "")},
        "B": {"type": "bf16", "elements": N * K + (128 if variant == "clean" else 0), "role": "in",
              "comment": f"B [N={N}, K={K}] bf16 row-major (tn, not preshuffled)" + (" + 128 elements, as A"
                         if variant == "clean" else "")},
        "alpha": {"type": "f32", "value": 1.0},
        "beta": {"type": "f32", "value": 0.0},
        "strideD0": {"value": N * out_bpe, "comment": "Ndim * out->element_size() bytes"},
        "strideD1": {"value": 0, "comment": "not set by the host (KernelArgs args = {})"},
        "strideC0": {"value": N * out_bpe, "comment": "= stride_D0"},
        "strideC1": {"value": 0, "comment": "not set by the host"},
        "strideA0": {"value": K * 2, "comment": "A->stride(0) * 2 bytes"},
        "strideA1": {"value": 0, "comment": "not set by the host"},
        "strideB0": {"value": K * 2, "comment": "B->stride(0) * 2 bytes"},
        "strideB1": {"value": 0, "comment": "not set by the host"},
        "Mdim": {"value": M}, "Ndim": {"value": N}, "Kdim": {"value": K},
        "splitk": {"value": split, "comment": "CSV splitK=0: split = 1; splitK=1: min(splitK, 16, K/subK) > 1"},
        "is_out_b16": {"value": out_b16, "comment": "out->dtype() == bf16"},
        "Bias": {"type": "bf16", "elements": N, "role": "in", "comment": f"bias [N={N}] bf16 (op_tests: torch.rand(n, dtype=bf16))"},
        "add_bias": {"value": 1},
    }
    if variant == "clean":
        f["ptr_semaphore"] = {"type": "u32", "elements": 16 * 64, "fill": "zero", "role": "inout",
                              "comment": "aiter/ops/gemm_op_a16w16.py: torch.zeros((16, 64), uint32), reset by the kernel"}
    write_spec(name + ("_m40" if variant == "m40" else ""), co, kernel, grid, [256, 1, 1], f,
               f"AITer gemm_a16w16_asm: D[M,N] = A[M,K] @ B[N,K]^T + bias, M={M} N={N} K={K} splitK={split}, "
               f"{'bf16' if out_b16 else 'fp32'} out, "
               f"grid ceil(N/64) x ceil(M/32) x splitk; see the .md")


def fmha_v3_bf16_fields(B, Hq, Hk, Sq, Sk, D, Dv, ts_qo, tune_opt, opt_comment):
    """The fields of struct fmha_fwd_v3_args (csrc/include/mha_fwd.h) for a bf16 batch-mode launch
    in the BSHD layout (torch [batch, seqlen, nhead, hdim], contiguous), as
    init_fmha_fwd_v3_args() fills them; byte strides are element strides * 2."""
    bpe = 2
    stride_q, nhs_q, bs_q = Hq * D, D, Sq * Hq * D
    stride_k, nhs_k, bs_k = Hk * D, D, Sk * Hk * D
    stride_v, nhs_v, bs_v = Hk * Dv, Dv, Sk * Hk * Dv
    stride_o, nhs_o, bs_o = Hq * Dv, Dv, Sq * Hq * Dv
    nhs_lse = Sq                      # lse [batch, nhead_q, seqlen_q] fp32
    return {
        "R": {"type": "bf16", "elements": B * Sq * Hq * Dv, "role": "out", "comment": f"ptr_o: O [B={B}, Sq={Sq}, Hq={Hq}, Dv={Dv}] bf16"},
        "Q": {"type": "bf16", "elements": B * Sq * Hq * D, "role": "in", "comment": f"ptr_q: Q [B, Sq, Hq, D={D}] bf16"},
        "K": {"type": "bf16", "elements": B * Sk * Hk * D, "role": "in", "comment": f"ptr_k: K [B, Sk={Sk}, Hk={Hk}, D] bf16"},
        "V": {"type": "bf16", "elements": B * Sk * Hk * Dv, "role": "in", "comment": f"ptr_v: V [B, Sk, Hk, Dv] bf16"},
        "LSE": {"type": "f32", "elements": B * Hq * Sq, "role": "out", "comment": f"ptr_lse: [B, Hq, Sq] fp32"},
        "scalar": {"type": "f32", "value": 1.0 / math.sqrt(D), "comment": "scale_s = 1/sqrt(hdim_q)"},
        "seq_len": {"value": Sq, "comment": "s_seq_len = seqlen_q"},
        "Seqs": {"value": stride_q * bpe, "comment": "s_Seqs = stride_q * 2"},
        "Ts": {"value": ts_qo * stride_q * bpe, "comment": "s_Ts = ts_qo * stride_q * 2"},
        "Hs": {"value": nhs_q * bpe, "comment": "s_Hs = nhead_stride_q * 2"},
        "Bs": {"value": bs_q * bpe, "comment": "s_Bs = batch_stride_q * 2"},
        "gqa": {"value": Hq // Hk, "comment": "s_gqa = nhead_q / nhead_k"},
        "k_Seqs": {"value": stride_k * bpe}, "k_Hs": {"value": nhs_k * bpe}, "k_Bs": {"value": bs_k * bpe},
        "msk_opt": {"value": tune_opt, "comment": opt_comment},
        "lse": {"value": 1, "comment": "s_lse = has_lse"},
        "kv_seq_len": {"value": Sk},
        "qk_head_dim": {"value": D}, "v_head_dim": {"value": Dv}, "q_head_num": {"value": Hq},
        "v_Seqs": {"value": stride_v * bpe}, "v_Hs": {"value": nhs_v * bpe}, "v_Bs": {"value": bs_v * bpe},
        "r_Seqs": {"value": stride_o * bpe, "comment": "s_o_Seqs"}, "r_Hs": {"value": nhs_o * bpe, "comment": "s_o_Hs"},
        "r_Bs": {"value": bs_o * bpe, "comment": "s_o_Bs"},
        "ptr_qseq": {"value": "null", "comment": "batch mode: nullptr"},
        "ptr_kseq": {"value": "null", "comment": "batch mode: nullptr"},
        "lse_Hs": {"value": nhs_lse * 4, "comment": "s_lse_Hs = nhead_stride_lse * 4"},
        "ptr_qseq_padding": {"value": "null"}, "ptr_kseq_padding": {"value": "null"},
    }


def fmha_fwd(hsa, causal):
    # csrc/cpp_itfs/mha_fwd.cu: init_fmha_fwd_v3_args(), get_grid_dim(), fmha_fwd_v3();
    # csrc/include/mha_fwd.h: struct fmha_fwd_v3_args. CSV: hdim 128/128, mask 0 or 2 (causal),
    # batch mode, bf16_cvt 0 (rtne), ts_qo 256, ts_kv 32.
    # Sq = 300: one full and one partial 256-row tile; Sk: a partial 32-row tile; gqa 2; 2 batches.
    B, Hq, Hk, Sq, Sk, D, Dv = 2, 4, 2, 300, (300 if causal else 100), 128, 128
    ts_qo = 256
    tg_div = 2 if causal else 1       # get_grid_dim: a masked launch merges head and tail tiles
    tune_opt = 5
    if causal and (Hq % 8 != 0 or Sq > 16384):
        tune_opt -= 2                 # init_fmha_fwd_v3_args
    grid = [((Sq + ts_qo - 1) // ts_qo + tg_div - 1) // tg_div, Hq, B]
    name = "fmha_fwd_hd128_bf16_causal_rtne" if causal else "fmha_fwd_hd128_bf16_rtne"
    kernel = f"_ZN5aiter{len(name)}{name}E"
    co = os.path.join(hsa, "gfx942/fmha_v3_fwd/MI300/" + name.replace("fmha_", "") + ".co")
    f = fmha_v3_bf16_fields(B, Hq, Hk, Sq, Sk, D, Dv, ts_qo, tune_opt,
                            "s_opt = tune_opt (5; 3 for a mask with nhead_q % 8 != 0)")
    write_spec(name, co, kernel, grid, [512, 1, 1], f,
               f"AITer fmha_v3_fwd batch mode, {'causal (mask 2)' if causal else 'no mask'}: B={B} Hq={Hq} Hk={Hk} Sq={Sq} Sk={Sk} d={D} dv={Dv}, BSHD layout, "
               f"grid ceil(ceil(Sq/256)/{tg_div}) x Hq x B, block 512; see the .md")


def f4gemm(hsa):
    # gfx950 MXFP4 GEMM. csrc/py_itfs_cu/asm_gemm_a4w4.cu: KernelArgs (lines 10-60), gemm_a4w4_asm()
    # (lines 158-278); hsa/gfx950/f4gemm/f4gemm_bf16_per1x32Fp4.csv: tile 32x128, splitK=0,
    # bpreshuffle=1. Inputs as op_tests/test_gemm_a4w4.py builds them: A [M, K/2] fp4x2, B
    # shuffle_weight(w, (16, 16)) [N, K/2], scales e8m0 from dynamic_mxfp4_quant(shuffle=True):
    # [ceil(rows/256)*256, ceil(K/32/8)*8] in the shuffled layout. See the .md.
    M, N, K = 64, 256, 1024          # K % 256 == 0 (the kernel's K step); N % 128, M % 32 == 0
    tileM, tileN = 32, 128
    scaleN = ((K // 32 + 7) // 8) * 8   # scale columns, padded to 8
    grid = [(N + tileN - 1) // tileN, (M + tileM - 1) // tileM, 1]
    name = "f4gemm_bf16_per1x32Fp4_BpreShuffle_32x128"
    kernel = f"_ZN5aiter{len(name)}{name}E"
    co = os.path.join(hsa, f"gfx950/f4gemm/{name}.co")
    Mpad = (M + 31) // 32 * 32
    f = {
        "D": {"type": "bf16", "elements": Mpad * N, "role": "out",
              "comment": f"out [(M+31)/32*32={Mpad}, N={N}] bf16 (gemm_op_a4w4.py pads rows to 32)"},
        "C": {"value": "null", "comment": "ptr_C = bias = nullptr (the kernel loads it but never uses it)"},
        "A": {"type": "u8", "elements": M * K // 2, "range": [0, 255], "role": "in",
              "comment": f"A [M={M}, K/2={K // 2}] fp4x2 (low nibble = even k), any byte"},
        "B": {"type": "u8", "elements": N * K // 2, "range": [0, 255], "role": "in",
              "comment": f"B [N={N}, K/2] fp4x2 preshuffled (shuffle_weight layout (16, 16)), any byte"},
        "alpha": {"type": "f32", "value": 1.0, "comment": "unused by the kernel"},
        "beta": {"type": "f32", "value": 0.0, "comment": "unused by the kernel"},
        "strideD0": {"value": 0, "comment": "not set by the host (KernelArgs args; uninitialised), not read"},
        "strideD1": {"value": 0, "comment": "not set by the host, not read"},
        "strideC0": {"value": N, "comment": "out->stride(0) in elements; the kernel's D row stride (x2 bytes)"},
        "strideC1": {"value": 0, "comment": "not set by the host, not read"},
        "strideA0": {"value": K, "comment": "A->stride(0) * 2 = K (fp4 elements); the kernel halves it"},
        "strideA1": {"value": 0, "comment": "not set by the host, not read"},
        "strideB0": {"value": K, "comment": "B->stride(0) * 2 = K"},
        "strideB1": {"value": 0, "comment": "not set by the host, not read"},
        "Mdim": {"value": M}, "Ndim": {"value": N}, "Kdim": {"value": K, "comment": "A->size(1) * 2"},
        "ScaleA": {"type": "u8", "elements": ((M + 255) // 256 * 256) * scaleN, "range": [122, 132], "role": "in",
                   "comment": f"A_scale [ceil(M/256)*256, {scaleN}] e8m0, shuffled; 2^-5..2^5"},
        "ScaleB": {"type": "u8", "elements": ((N + 255) // 256 * 256) * scaleN, "range": [122, 132], "role": "in",
                   "comment": f"B_scale [ceil(N/256)*256, {scaleN}] e8m0, shuffled; 2^-5..2^5"},
        "strideScaleA0": {"value": scaleN, "comment": "A_scale->stride(0) (bytes)"},
        "strideScaleA1": {"value": 0, "comment": "not set by the host, not read"},
        "strideScaleB0": {"value": scaleN, "comment": "B_scale->stride(0)"},
        "strideScaleB1": {"value": 0, "comment": "not set by the host, not read"},
        "log2_k_split": {"value": 0, "comment": "CSV splitK=0: 0 (not read by this kernel)"},
    }
    write_spec(name, co, kernel, grid, [256, 1, 1], f,
               f"AITer gemm_a4w4_asm (gfx950, MXFP4): D[M,N] = (A*sA)[M,K] @ (B*sB)[N,K]^T, M={M} N={N} K={K}, "
               f"B and scales preshuffled, bf16 out, grid ceil(N/128) x ceil(M/32) x 1, block 256; see the .md")


def fmha_fwd_gfx950(hsa):
    # gfx950 fmha_v3_fwd, bf16, hdim 128, no mask, batch mode: the same host code as fmha_fwd()
    # (csrc/cpp_itfs/mha_fwd.cu init_fmha_fwd_v3_args / get_grid_dim, no gfx950 special cases for
    # hdim 128); hsa/gfx950/fmha_v3_fwd/fmha_fwd.csv line 2: ts_qo 256, ts_kv 64, no MI300/ subdir.
    B, Hq, Hk, Sq, Sk, D, Dv = 2, 4, 2, 300, 100, 128, 128
    ts_qo = 256
    grid = [(Sq + ts_qo - 1) // ts_qo, Hq, B]
    name = "fmha_fwd_hd128_bf16"
    kernel = f"_ZN5aiter{len(name)}{name}E"
    co = os.path.join(hsa, "gfx950/fmha_v3_fwd/fwd_hd128_bf16.co")
    f = fmha_v3_bf16_fields(B, Hq, Hk, Sq, Sk, D, Dv, ts_qo, 5, "s_opt = tune_opt (5, no mask)")
    write_spec(name, co, kernel, grid, [512, 1, 1], f,
               f"AITer fmha_v3_fwd (gfx950) batch mode, no mask: B={B} Hq={Hq} Hk={Hk} Sq={Sq} Sk={Sk} d={D} dv={Dv}, BSHD layout, "
               f"grid ceil(Sq/256) x Hq x B, block 512; see the .md")


def fmha_fwd_fp8_gfx950(hsa):
    # gfx950 fmha_v3_fwd, fp8bf16 (fp8 e4m3fn Q/K/V, per-tensor fp32 descales, bf16 O), hdim 128,
    # no mask, batch mode. csrc/cpp_itfs/mha_fwd.cu init_fmha_fwd_v3_args lines 115-129 (in_bpe 1,
    # descale pointers and strides *4), csrc/py_itfs_cu/asm_mha_fwd.cu lines 103-131 (descale
    # sizes {1}: strides stay 0); fmha_fwd.csv line 10: ts_qo 256, ts_kv 128. See the .md.
    B, Hq, Hk, Sq, Sk, D, Dv = 2, 4, 2, 300, 200, 128, 128
    ts_qo, ibpe, obpe = 256, 1, 2
    stride_q, nhs_q, bs_q = Hq * D, D, Sq * Hq * D
    stride_k, nhs_k, bs_k = Hk * D, D, Sk * Hk * D
    stride_v, nhs_v, bs_v = Hk * Dv, Dv, Sk * Hk * Dv
    stride_o, nhs_o, bs_o = Hq * Dv, Dv, Sq * Hq * Dv
    grid = [(Sq + ts_qo - 1) // ts_qo, Hq, B]
    name = "fmha_fwd_hd128_fp8_gfx950"
    kernel = "_ZN5aiter24fmha_fwd_hd128_fp8_gfx950E"   # sic: the CSV's / .co's symbol says 24, the name has 25 chars
    co = os.path.join(hsa, "gfx950/fmha_v3_fwd/fwd_hd128_fp8.co")
    f = {
        "ptr_o": {"type": "bf16", "elements": B * Sq * Hq * Dv, "role": "out", "comment": f"O [B={B}, Sq={Sq}, Hq={Hq}, Dv={Dv}] bf16"},
        "ptr_q": {"type": "u8", "elements": B * Sq * Hq * D, "range": [0x20, 0x38], "role": "in",
                  "comment": f"Q [B, Sq, Hq, D={D}] fp8 e4m3fn, bytes 0x20..0x38 = +0.125..+1 (no NaN byte)"},
        "ptr_k": {"type": "u8", "elements": B * Sk * Hk * D, "range": [0xA0, 0xB8], "role": "in",
                  "comment": f"K [B, Sk={Sk}, Hk={Hk}, D] fp8 e4m3fn, bytes 0xa0..0xb8 = -0.125..-1"},
        "ptr_v": {"type": "u8", "elements": B * Sk * Hk * Dv, "range": [0x98, 0xC0], "role": "in",
                  "comment": f"V [B, Sk, Hk, Dv] fp8 e4m3fn, bytes 0x98..0xc0 = -0.0625..-2"},
        "ptr_lse": {"type": "f32", "elements": B * Hq * Sq, "role": "out", "comment": f"[B, Hq, Sq] fp32"},
        "scalar": {"type": "f32", "value": 1.0 / math.sqrt(D), "comment": "scale_s = 1/sqrt(hdim_q)"},
        "s_seq_len": {"value": Sq},
        "s_Seqs": {"value": stride_q * ibpe, "comment": "stride_q * in_bpe (1)"},
        "s_Ts": {"value": ts_qo * stride_q * ibpe, "comment": "ts_qo * stride_q * 1"},
        "s_Hs": {"value": nhs_q * ibpe}, "s_Bs": {"value": bs_q * ibpe},
        "s_gqa": {"value": Hq // Hk},
        "s_k_Seqs": {"value": stride_k * ibpe}, "s_k_Hs": {"value": nhs_k * ibpe}, "s_k_Bs": {"value": bs_k * ibpe},
        "s_opt": {"value": 5, "comment": "tune_opt (5, no mask)"},
        "s_lse": {"value": 1},
        "s_kv_seq_len": {"value": Sk},
        "s_qk_head_dim": {"value": D}, "s_v_head_dim": {"value": Dv}, "s_q_head_num": {"value": Hq},
        "s_v_Seqs": {"value": stride_v * ibpe}, "s_v_Hs": {"value": nhs_v * ibpe}, "s_v_Bs": {"value": bs_v * ibpe},
        "s_o_Seqs": {"value": stride_o * obpe, "comment": "stride_o * out_bpe (2)"},
        "s_o_Hs": {"value": nhs_o * obpe}, "s_o_Bs": {"value": bs_o * obpe},
        "ptr_qseq": {"value": "null", "comment": "batch mode: nullptr"},
        "ptr_kseq": {"value": "null", "comment": "batch mode: nullptr"},
        "s_lse_Hs": {"value": Sq * 4, "comment": "nhead_stride_lse * 4"},
        "ptr_qseq_padding": {"value": "null"}, "ptr_kseq_padding": {"value": "null"},
        "ptr_q_descale": {"type": "f32", "elements": 1, "range": [0.5, 2.0], "role": "in", "comment": "q_descale [1] fp32 (per tensor)"},
        "ptr_k_descale": {"type": "f32", "elements": 1, "range": [0.5, 2.0], "role": "in", "comment": "k_descale [1] fp32"},
        "ptr_v_descale": {"type": "f32", "elements": 1, "range": [0.5, 2.0], "role": "in", "comment": "v_descale [1] fp32"},
        "s_descale_q_Bs": {"value": 0, "comment": "per-tensor descale: batch/nhead strides 0"},
        "s_descale_q_Hs": {"value": 0}, "s_descale_k_Bs": {"value": 0}, "s_descale_k_Hs": {"value": 0},
        "s_descale_v_Bs": {"value": 0}, "s_descale_v_Hs": {"value": 0},
    }
    write_spec(name, co, kernel, grid, [512, 1, 1], f,
               f"AITer fmha_v3_fwd (gfx950) fp8bf16 batch mode, no mask: B={B} Hq={Hq} Hk={Hk} Sq={Sq} Sk={Sk} d={D} dv={Dv}, BSHD, "
               f"per-tensor descales, grid ceil(Sq/256) x Hq x B, block 512; see the .md")


def i8gemm(hsa, ks=1):
    # gfx942 int8 GEMM, per-token A scale, per-channel B scale, fp32 bias, bf16 out.
    # csrc/py_itfs_cu/asm_gemm_a8w8.cu: KernelArgs (lines 11-39), gemm_a8w8_asm() (lines 127-287);
    # hsa/gfx942/i8gemm/i8gemm_bf16_perTokenI8.csv line 3: tile 32x128, splitK=1, bpreshuffle=1.
    # Inputs as op_tests/test_gemm_a8w8.py test_gemm builds them (lines 146-168, 208-215): A and B
    # pertoken_quant to int8 (-127..127) with fp32 scales [M, 1] / [N, 1], B shuffle_weight(layout=
    # (16, 16)), A a [M, K] view of a [M, K + 128] buffer (pad_a=128), bias [1, N] fp32;
    # gemm_a8w8_ASM without a tuned config: splitK=1 (aiter/ops/gemm_op_a8w8.py line 643); ks=2: a
    # tuned config's splitK (asm_a8w8_gemm.csv), the host zeroes C (line 267) and the kernel adds
    # its bf16 partials with global_atomic_pk_add_bf16. See the .md.
    M, N, K = 64, 256, 512           # N % 128 == 0; K % 128 == 0 (the kernel's K step)
    pad_a = 128
    lda = K + pad_a                  # A->stride(0) (int8: elements = bytes)
    tileM, tileN = 32, 128
    grid = [(N // tileN) * ks, (M + tileM - 1) // tileM, 1]   # gdx = (N/SUBN)*256*ks / 256
    name = "I8gemm_bf16_perTokenI8_BpreShuffle_32x128"
    kernel = f"_ZN5aiter{len(name)}{name}E"
    co = os.path.join(hsa, f"gfx942/i8gemm/{name}.co")
    f = {
        "C": {"type": "bf16", "elements": M * N, "role": "out", "comment": f"out [M={M}, N={N}] bf16"} if ks == 1 else
             {"type": "bf16", "elements": M * N, "role": "out", "fill": "zero",
              "comment": f"out [M={M}, N={N}] bf16, zeroed by the host (hipMemsetAsync, line 267) for the atomic split-K adds"},
        "A": {"type": "i8", "elements": M * lda, "range": [-127, 127], "role": "in",
              "comment": f"A [M={M}, K={K}] int8, row stride {lda} (op_tests pad_a=128: a [M, K+128] buffer)"},
        "B": {"type": "i8", "elements": N * K, "range": [-127, 127], "role": "in",
              "comment": f"B [N={N}, K] int8 preshuffled (shuffle_weight layout (16, 16))"},
        "SA": {"type": "f32", "elements": M, "range": [0.005, 0.05], "role": "in",
               "comment": f"A_scale [M={M}, 1] fp32 per token (pertoken_quant: amax/127)"},
        "SB": {"type": "f32", "elements": N, "range": [0.005, 0.05], "role": "in",
               "comment": f"B_scale [N={N}, 1] fp32 per output channel"},
        "BIAS": {"type": "f32", "elements": N, "range": [0.0, 10.0], "role": "in",
                 "comment": f"bias [1, N] fp32 (op_tests: torch.rand([1, n]) * 10, .to(fp32))"},
        "M": {"value": M, "comment": "A->size(0)"},
        "Ndim": {"value": N, "comment": "out->size(1)"},
        "K": {"value": K, "comment": "A->size(1)"},
        "PA": {"value": lda, "comment": "lda = A->stride(0) (bytes: int8)"},
        "PB": {"value": K, "comment": "ldb = B->stride(0) (bytes: int8)"},
        "PC": {"value": N * 2, "comment": "ldc = out->stride(0) * sizeof(uint16_t) bytes"},
        "KS": {"value": ks, "comment": "splitK: gemm_a8w8_ASM passes splitK=1 without a tuned config"
               if ks == 1 else "splitK (a tuned config's); k per split ceil(K/KS/128)*128"},
    }
    write_spec("i8gemm_bf16_perTokenI8_BpreShuffle_32x128" + ("" if ks == 1 else f"_splitk{ks}"), co, kernel, grid, [256, 1, 1], f,
               f"AITer gemm_a8w8_asm (gfx942, int8): C[M,N] = bf16((A[M,K] @ B[N,K]^T) * sA[M] * sB[N] + bias[N]), "
               f"M={M} N={N} K={K} splitK={ks}, A row stride {lda}, B preshuffled (16, 16), "
               f"grid N/128*splitK x ceil(M/32) x 1, block 256; see "
               + ("the .md" if ks == 1 else "i8gemm_bf16_perTokenI8_BpreShuffle_32x128.md"))


def i8gemm_112x256(hsa):
    # gfx942 int8 GEMM, tile 112x256 (hsa/gfx942/i8gemm/i8gemm_bf16_perTokenI8.csv line 2: splitK 0,
    # bpreshuffle 1). Launched by the same gemm_a8w8_asm (csrc/py_itfs_cu/asm_gemm_a8w8.cu) with the
    # same 208-byte KernelArgs (lines 11-39, arg_size = sizeof(args), line 156), but this object's
    # metadata declares 256 bytes of kernarg as 55 unnamed args: the same 13 16-byte slots, then three
    # more pointer slots at 208, 224, 240, which the host never writes and the kernel never reads (its
    # only s_loads, kernel+0x10..0x68, read 0x0..0xb0; not even KS at 0xc0: no split-K). Reached only
    # through a tuned config's kernelName (aiter/configs/a8w8_bpreshuffle_tuned_gemm.csv, splitK 1):
    # the heuristic (lines 80-81) skips a config with splitK 0. Inputs as in i8gemm. See the .md.
    M, N, K = 224, 512, 512          # 2 x 2 workgroups; N % 256 == 0, K % 128 == 0
    pad_a = 128
    lda = K + pad_a
    tileM, tileN = 112, 256
    grid = [N // tileN, (M + tileM - 1) // tileM, 1]   # gdx = (N/SUBN)*256 / 256, gdy = ceil(M/SUBM)
    name = "I8gemm_bf16_perTokenI8_BpreShuffle_112x256"
    kernel = f"_ZN5aiter{len(name)}{name}E"
    co = os.path.join(hsa, f"gfx942/i8gemm/{name}.co")
    f = {
        "C": {"type": "bf16", "elements": M * N, "role": "out", "comment": f"out [M={M}, N={N}] bf16"},
        "A": {"type": "i8", "elements": M * lda, "range": [-127, 127], "role": "in",
              "comment": f"A [M={M}, K={K}] int8, row stride {lda} (op_tests pad_a=128: a [M, K+128] buffer)"},
        "B": {"type": "i8", "elements": N * K, "range": [-127, 127], "role": "in",
              "comment": f"B [N={N}, K] int8 preshuffled (shuffle_weight layout (16, 16))"},
        "SA": {"type": "f32", "elements": M, "range": [0.005, 0.05], "role": "in",
               "comment": f"A_scale [M={M}, 1] fp32 per token (pertoken_quant: amax/127)"},
        "SB": {"type": "f32", "elements": N, "range": [0.005, 0.05], "role": "in",
               "comment": f"B_scale [N={N}, 1] fp32 per output channel"},
        "BIAS": {"type": "f32", "elements": N, "range": [0.0, 10.0], "role": "in",
                 "comment": f"bias [1, N] fp32 (op_tests: torch.rand([1, n]) * 10, .to(fp32))"},
        "M": {"value": M, "comment": "A->size(0)"},
        "Ndim": {"value": N, "comment": "out->size(1)"},
        "K": {"value": K, "comment": "A->size(1)"},
        "PA": {"value": lda, "comment": "lda = A->stride(0) (bytes: int8)"},
        "PB": {"value": K, "comment": "ldb = B->stride(0) (bytes: int8)"},
        "PC": {"value": N * 2, "comment": "ldc = out->stride(0) * sizeof(uint16_t) bytes"},
        "KS": {"value": 1, "comment": "ks = 1 (line 153; cfg.splitK 0 skips lines 228-269); the kernel never reads it"},
    }
    for off in (208, 224, 240):
        f[f"unused{off}"] = {"value": "null", "comment": "past the host's 208-byte KernelArgs: never written by the host, never read by the kernel"}
    names = {0: "C", 16: "A", 32: "B", 48: "SA", 64: "SB", 80: "BIAS", 96: "M", 112: "Ndim", 128: "K",
             144: "PA", 160: "PB", 176: "PC", 192: "KS", 208: "unused208", 224: "unused224", 240: "unused240"}
    write_spec("i8gemm_bf16_perTokenI8_BpreShuffle_112x256", co, kernel, grid, [256, 1, 1], f,
               f"AITer gemm_a8w8_asm (gfx942, int8), tile 112x256: C[M,N] = bf16((A[M,K] @ B[N,K]^T) * sA[M] * sB[N] + bias[N]), "
               f"M={M} N={N} K={K}, A row stride {lda}, B preshuffled (16, 16), grid N/256 x ceil(M/112) x 1, block 256; "
               f"kernarg 256 bytes, 208.. unused (null); see the .md", names_by_offset=names)


if __name__ == "__main__":
    hsa = sys.argv[1] if len(sys.argv) > 1 else "/work/aiter/hsa"
    bf16gemm(hsa, "pf3")
    bf16gemm(hsa, "m40")
    bf16gemm(hsa, "clean")
    fmha_fwd(hsa, False)
    fmha_fwd(hsa, True)
    f4gemm(hsa)
    fmha_fwd_gfx950(hsa)
    fmha_fwd_fp8_gfx950(hsa)
    i8gemm(hsa)
    i8gemm(hsa, ks=2)
    i8gemm_112x256(hsa)
