#!/usr/bin/env python3
"""Write the launch specs of the serving-stack Triton kernels (issue 41) and their routing tables.

Usage:  python3 test/specs/gen_serving_specs.py      (from the repository root; no arguments)

For test/corpus/triton's fused_moe_fp16, moe_lora_shrink_fp16, awq_gemm_fp16 and
w8a8_block_fp8e4m3fnuz_bf16 (gfx942), writes
    test/specs/<name>.json          the small correctness launch (partial tiles, a few workgroups)
    test/specs/timing/<name>.json   the representative launch the search times at (issue 39)
    test/specs/routing/*.bin        the MoE routing tables (sorted token ids, expert ids, ...)
The routing is a deterministic pseudo-random top-k routing (random.Random with a fixed seed),
sorted and padded per expert to BLOCK_M as vLLM's moe_align_block_size lays it out. Only the
Python standard library is used. Running it again rewrites the same bytes.
"""
import json
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write_i32(name, values, spec_path):
    """Writes routing/NAME; returns its path relative to the folder of spec_path."""
    with open(os.path.join(HERE, "routing", name), "wb") as f:
        f.write(struct.pack("<%di" % len(values), *values))
    return os.path.relpath(os.path.join(HERE, "routing", name),
                           os.path.dirname(os.path.join(HERE, spec_path)))


def write_spec(path, spec):
    text = "{\n"
    items = []
    for k, v in spec.items():
        if k == "args":
            rows = ",\n".join("    " + json.dumps(a) for a in v)
            items.append('  "args": [\n' + rows + "\n  ]")
        else:
            items.append("  %s: %s" % (json.dumps(k), json.dumps(v)))
    text += ",\n".join(items) + "\n}\n"
    with open(os.path.join(HERE, path), "w") as f:
        f.write(text)


def route(tokens, experts, top_k, block_m, seed, em=None):
    """Top-k distinct experts per token; the (token, k) pairs sorted by expert, each expert's
    group padded to block_m with the pad value tokens * top_k; returns (sorted ids, expert of
    each block, valid length). em: pad the whole list to this length with pad blocks of expert
    -1 (the LoRA slots share one EM)."""
    rng = random.Random(seed)
    valid = tokens * top_k
    pairs = [[] for _ in range(experts)]
    for t in range(tokens):
        for k, e in enumerate(rng.sample(range(experts), top_k)):
            pairs[e].append(t * top_k + k)
    ids, blocks = [], []
    for e in range(experts):
        if not pairs[e]:
            continue
        group = pairs[e] + [valid] * (-len(pairs[e]) % block_m)
        ids += group
        blocks += [e] * (len(group) // block_m)
    used = len(ids)
    if em is not None:
        assert used <= em
        ids += [valid] * (em - used)
        blocks += [-1] * ((em - used) // block_m)
    return ids, blocks, used


def arg(i, **kw):
    d = {"arg": "#%d" % i}
    d.update(kw)
    return d


def hidden(n):
    # Triton's two trailing pointer arguments (global and profile scratch): null
    return [arg(n, value="null"), arg(n + 1, value="null")]


def fused_moe(path, tokens, experts, n, k, seed, comment):
    top_k, block_m = 2, 32
    ids, blocks, em = route(tokens, experts, top_k, block_m, seed)
    tag = "fused_moe_t%d_e%d" % (tokens, experts)
    grid = (em // block_m) * -(-n // 64)
    write_spec(path, {
        "comment": comment + " (grid: EM/32 blocks x N/64)",
        "kernel": "fused_moe_kernel",
        "grid": [grid, 1, 1], "block": [256, 1, 1], "dynamic_lds": 4096,
        "args": [
            arg(0, type="f16", elements=tokens * k, role="in", comment="A [tokens, K]"),
            arg(1, type="f16", elements=experts * n * k, role="in", comment="B [E, N, K]"),
            arg(2, type="f16", elements=tokens * top_k * n, role="out", comment="C [tokens*top_k, N]"),
            arg(3, type="f32", elements=tokens * top_k, range=[0, 1], role="in", comment="top-k weights"),
            arg(4, type="i32", file=write_i32(tag + ".sorted.bin", ids, path), role="in"),
            arg(5, type="i32", file=write_i32(tag + ".experts.bin", blocks, path), role="in"),
            arg(6, type="i32", file=write_i32(tag + ".npad.bin", [em], path), role="in"),
            arg(7, value=n), arg(8, value=k), arg(9, value=em), arg(10, value=tokens * top_k),
            arg(11, value=k, comment="stride_am"), arg(12, value=n * k, comment="stride_be"),
            arg(13, value=k, comment="stride_bn"), arg(14, value=n, comment="stride_cm"),
        ] + hidden(15),
    })


def lora_shrink(path, tokens, experts, slots, k, rank, seed, comment):
    top_k, block_m = 2, 32
    rng = random.Random(seed)
    # each token uses one adapter slot; every slot's pairs routed separately
    slot_of = [rng.randrange(slots) for _ in range(tokens)]
    per_slot = []
    for s in range(slots):
        toks = [t for t in range(tokens) if slot_of[t] == s]
        sub_ids, sub_blocks, used = route(len(toks), experts, top_k, block_m, seed * 31 + s)
        # back to global (token, k) pair numbers; the pad value is tokens * top_k
        ids = [tokens * top_k if p == len(toks) * top_k else toks[p // top_k] * top_k + p % top_k
               for p in sub_ids]
        per_slot.append((ids, sub_blocks, used))
    em = max(u for _, _, u in per_slot)
    ids_all, blocks_all, npad = [], [], []
    for ids, blocks, used in per_slot:
        ids_all += ids + [tokens * top_k] * (em - used)
        blocks_all += blocks + [-1] * ((em - used) // block_m)
        npad.append(used)
    lora_ids = [(s + 1) % slots for s in range(slots)]  # slot s holds adapter (s+1) % slots
    tag = "lora_t%d_e%d_s%d" % (tokens, experts, slots)
    write_spec(path, {
        "comment": comment + " (grid: EM/32 blocks x R/16, slots)",
        "kernel": "moe_lora_shrink_kernel",
        "grid": [(em // block_m) * -(-rank // 16), slots, 1], "block": [256, 1, 1],
        "dynamic_lds": 6144,
        "args": [
            arg(0, type="f16", elements=tokens * k, role="in", comment="x [tokens, K]"),
            arg(1, type="f16", elements=slots * experts * rank * k, role="in",
                comment="lora_a [num_loras, E, R, K]"),
            arg(2, type="f16", elements=tokens * top_k * rank, role="out", comment="out [tokens*top_k, R]"),
            arg(3, type="i32", file=write_i32(tag + ".sorted.bin", ids_all, path), role="in"),
            arg(4, type="i32", file=write_i32(tag + ".experts.bin", blocks_all, path), role="in"),
            arg(5, type="i32", file=write_i32(tag + ".npad.bin", npad, path), role="in"),
            arg(6, type="i32", file=write_i32(tag + ".loras.bin", lora_ids, path), role="in"),
            arg(7, value=rank), arg(8, value=k), arg(9, value=em), arg(10, value=tokens * top_k),
            arg(11, value=k, comment="stride_xm"), arg(12, value=experts * rank * k, comment="stride_al"),
            arg(13, value=rank * k, comment="stride_ae"), arg(14, value=k, comment="stride_ar"),
            arg(15, value=rank, comment="stride_om"),
        ] + hidden(16),
    })


def awq(path, m, n, k, comment):
    g, split_k = 128, 8
    write_spec(path, {
        "comment": comment + " (grid: M/32 x N/64 tiles, SPLIT_K 8)",
        "kernel": "awq_gemm_kernel",
        "grid": [-(-m // 32) * -(-n // 64), split_k, 1], "block": [256, 1, 1],
        "dynamic_lds": 6144,
        "args": [
            arg(0, type="f16", elements=m * k, role="in", comment="A [M, K]"),
            arg(1, type="u32", elements=k * n // 8, range=[0, 4294967295], role="in",
                comment="qweight [K, N/8], 8 int4 a word"),
            arg(2, type="u32", elements=(k // g) * n // 8, range=[0, 4294967295], role="in",
                comment="qzeros [K/128, N/8]"),
            arg(3, type="f16", elements=(k // g) * n, range=[0.001, 0.02], role="in",
                comment="scales [K/128, N]"),
            arg(4, type="f16", elements=split_k * m * n, role="out", comment="C [SPLIT_K, M, N]"),
            arg(5, value=m), arg(6, value=n), arg(7, value=k), arg(8, value=k, comment="stride_am"),
        ] + hidden(9),
    })


def w8a8(path, m, n, k, comment):
    kb = -(-k // 128)
    write_spec(path, {
        "comment": comment + " (grid: M/64 x N/128 tiles)",
        "kernel": "w8a8_block_fp8_matmul_kernel",
        "grid": [-(-m // 64) * -(-n // 128), 1, 1], "block": [256, 1, 1],
        "dynamic_lds": 24576,
        "args": [
            arg(0, type="f8e4m3fnuz", elements=m * k, range=[-8, 8], role="in", comment="A [M, K] fp8"),
            arg(1, type="f8e4m3fnuz", elements=n * k, range=[-8, 8], role="in", comment="B [N, K] fp8"),
            arg(2, type="bf16", elements=m * n, role="out", comment="C [M, N]"),
            arg(3, type="f32", elements=m * kb, range=[0.001, 0.01], role="in", comment="As [M, K/128]"),
            arg(4, type="f32", elements=-(-n // 128) * kb, range=[0.001, 0.01], role="in",
                comment="Bs [N/128, K/128]"),
            arg(5, value=m), arg(6, value=n), arg(7, value=k),
            arg(8, value=k, comment="stride_am"), arg(9, value=k, comment="stride_bn"),
            arg(10, value=n, comment="stride_cm"), arg(11, value=kb, comment="stride_as_m"),
            arg(12, value=kb, comment="stride_bs_n"),
        ] + hidden(13),
    })


def main():
    fused_moe("fused_moe_fp16.json", 10, 3, 64, 64, 1,
              "fused MoE: 10 tokens, top-2 of 3 experts, N 64, K 64")
    fused_moe("timing/fused_moe_fp16.json", 256, 8, 3584, 4096, 2,
              "timing launch: Mixtral-8x7B w1 at TP 8 (N = 2 * 14336 / 8 = 3584, K = 4096), "
              "256 tokens, top-2 of 8 experts")
    lora_shrink("moe_lora_shrink_fp16.json", 12, 3, 2, 128, 16, 3,
                "MoE-LoRA shrink: 12 tokens over 2 adapter slots, top-2 of 3 experts, K 128, rank 16")
    lora_shrink("timing/moe_lora_shrink_fp16.json", 4096, 8, 4, 4096, 16, 4,
                "timing launch: MoE-LoRA shrink, 4096 tokens over 4 adapters, top-2 of 8 experts, "
                "K 4096 (Mixtral hidden), rank 16")
    awq("awq_gemm_fp16.json", 40, 128, 512, "AWQ GEMM: M 40, N 128, K 512 (4 groups of 128)")
    awq("timing/awq_gemm_fp16.json", 128, 4096, 4096,
        "timing launch: AWQ GEMM of a Llama-3-8B projection (N = K = 4096), 128 tokens")
    w8a8("w8a8_block_fp8e4m3fnuz_bf16.json", 80, 160, 384,
         "W8A8 block-scale fp8 GEMM: M 80, N 160, K 384 (partial tiles; 3 K blocks of 128)")
    w8a8("timing/w8a8_block_fp8e4m3fnuz_bf16.json", 2048, 3072, 1536,
         "timing launch: DeepSeek-V3 q_b_proj at TP 8 (N 3072, K 1536), 2048 tokens")


if __name__ == "__main__":
    main()
