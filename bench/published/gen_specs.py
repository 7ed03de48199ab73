#!/usr/bin/env python3
"""Writes the launch spec of every row of rows.tsv from AITer's host code and the code object.

Each row names an AITer code object as of the commit that measured it. Its spec is written the
way test/corpus/aiter/gen_specs.py writes specs: every explicit argument of the kernel's metadata
gets an entry, padding words 0, and each field of the host's packed kernarg struct the value the
host code at that commit gives it (the functions below say which file). Fields are matched by byte
offset, not by name: some objects' metadata names no argument.

    python3 bench/published/gen_specs.py AITER_GIT_DIR [--check]

AITER_GIT_DIR is a git directory of ROCm/aiter holding every row's commit. Specs are written
for the rows whose use is quick or table (validate_published.py writes the others' at run time)
and specs/ keeps no other. --check writes nothing and exits 1 when a committed spec differs from
the one it would write, is missing, or belongs to no quick or table row. Needs
llvm-readelf (LLVM_READELF, default /usr/lib/llvm-22/bin/llvm-readelf). Standard library only.
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

READELF = os.environ.get("LLVM_READELF", "/usr/lib/llvm-22/bin/llvm-readelf")
HERE = os.path.dirname(os.path.abspath(__file__))


def read_rows(path):
    """rows.tsv as a list of dicts, each with its line number as "_line" (the header line names
    the columns; empty lines and '#' lines are comments). Errors: SystemExit naming the line."""
    with open(path, encoding="utf-8") as f:
        lines = [(n, l.rstrip("\n")) for n, l in enumerate(f, 1)]
    lines = [(n, l) for n, l in lines if l.strip() and not l.startswith("#")]
    if not lines:
        raise SystemExit(f"'{path}': no header line")
    head = lines[0][1].split("\t")
    rows = []
    for n, l in lines[1:]:
        cells = l.split("\t")
        if len(cells) != len(head):
            raise SystemExit(f"'{path}':{n}: {len(cells)} cells, the header has {len(head)}")
        row = dict(zip(head, cells))
        row["_line"] = n
        rows.append(row)
    return rows


def parse_shape(text):
    """'B=1 Hq=32 S=1024' -> {'B': 1, 'Hq': 32, 'S': 1024} (whole numbers only)."""
    out = {}
    for kv in text.split():
        k, _, v = kv.partition("=")
        out[k] = int(v)
    return out


def git_blob(git_dir, commit, path):
    return subprocess.run(["git", "-C", git_dir, "rev-parse", f"{commit}:{path}"],
                          capture_output=True, text=True, check=True).stdout.strip()


def git_object(git_dir, commit, path, out):
    with open(out, "wb") as f:
        subprocess.run(["git", "-C", git_dir, "show", f"{commit}:{path}"], stdout=f, check=True)


def metadata_kernels(co):
    """The AMDGPU metadata's kernels: name -> list of args (dicts of '.offset', '.size', ...).

    A minimal reader of llvm-readelf's YAML for this one shape of document, so that the script
    needs no YAML package: a kernel is a '  - .key:' item, its keys at 4 spaces, its '.args'
    items at 6 and their keys at 8."""
    text = subprocess.run([READELF, "--notes", co], capture_output=True, text=True,
                          check=True).stdout
    kernels, cur, args, item = [], None, None, None
    for line in text.splitlines():
        m = re.match(r"^  - (\.[\w-]+):\s*(.*)$", line)
        if m:
            cur = {m.group(1): m.group(2).strip()}
            kernels.append(cur)
            args = item = None
            if m.group(1) == ".args":
                args = cur[".args"] = []
            continue
        if cur is None:
            continue
        m = re.match(r"^    (\.[\w-]+):\s*(.*)$", line)
        if m:
            item = None
            if m.group(1) == ".args":
                args = cur[".args"] = []
            else:
                args = None
                cur[m.group(1)] = m.group(2).strip()
            continue
        m = re.match(r"^      - (\.[\w-]+):\s*(.*)$", line)
        if m and args is not None:
            item = {m.group(1): m.group(2).strip()}
            args.append(item)
            continue
        m = re.match(r"^        (\.[\w-]+):\s*(.*)$", line)
        if m and item is not None:
            item[m.group(1)] = m.group(2).strip()
            continue
        if re.match(r"^\S", line):
            cur = args = item = None
    return {k[".name"]: k.get(".args", []) for k in kernels if ".name" in k}


def spec_json(comment, kernel, grid, block, args):
    lines = ["{"]
    for k, v in (("comment", comment), ("kernel", kernel), ("grid", grid), ("block", block),
                 ("dynamic_lds", 0)):
        lines.append(f"  {json.dumps(k)}: {json.dumps(v)},")
    lines.append('  "args": [')
    lines.append(",\n".join("    " + json.dumps(a) for a in args))
    lines.append("  ]\n}\n")
    return "\n".join(lines)


def build_args(meta_args, fields, where):
    """One entry per explicit argument; fields: byte offset -> (name, entry)."""
    out, seen = [], set()
    for i, a in enumerate(meta_args):
        off = int(a[".offset"])
        if off not in fields:
            out.append({"arg": f"#{i}", "value": 0})
            continue
        name, entry = fields[off]
        e = {"arg": f"#{i}"}
        e.update({k: v for k, v in entry.items() if k != "optional"})
        e["comment"] = f"{name} @ offset {off}" + (f": {entry['comment']}" if "comment" in entry
                                                   else "")
        out.append(e)
        seen.add(off)
    missing = sorted(o for o in set(fields) - seen if not fields[o][1].get("optional"))
    if missing:
        raise SystemExit(f"{where}: struct fields at offsets {missing} are not arguments of the "
                         "kernel's metadata (another kernarg layout?)")
    return out


def slots(*named):
    """Offsets of a packed AITer kernarg struct: every field in its own 16-byte slot (pointer +
    p2, or 32-bit value + p3), in order."""
    return {16 * i: (n, e) for i, (n, e) in enumerate(named)}


# --- fmha_v3_fwd (gfx942 MI300/ and gfx950), batch mode, BSHD ---------------------------------
# Host code at a83421bee6 (the table's commit): hsa/gfx942/fmha_v3_fwd/codegen.py and
# hsa/gfx950/fmha_v3_fwd/codegen.py, fmha_fwd_v3_dispatcher() (args), fmha_fwd_v3_kernel::
# launch_kernel() (grid, block); struct fmha_fwd_v3_args (csrc/include/mha_fwd.h); the benchmark
# op_tests/cpp/mha/benchmark_mha_fwd.cpp fills mha_fwd_args from BSHD tensors (iperm=operm=0).
def fmha_fwd(s, target):
    B, Hq, Hk, S, causal = s["B"], s["Hq"], s["Hk"], s["S"], s["causal"]
    D = Dv = s.get("d", 128)
    ts_qo, bpe = 256, 2
    tg_div = 2 if causal else 1
    tune_opt = 5 - (2 if causal and (Hq % 8 != 0 or S > 16384) else 0)
    grid = [((S + ts_qo - 1) // ts_qo + tg_div - 1) // tg_div, Hq, B]
    stride_q, stride_k, stride_o = Hq * D, Hk * D, Hq * Dv
    f = slots(
        ("ptr_o", {"type": "bf16", "elements": B * S * Hq * Dv, "role": "out",
                   "comment": f"O [B={B}, S={S}, Hq={Hq}, {Dv}] bf16"}),
        ("ptr_q", {"type": "bf16", "elements": B * S * Hq * D, "role": "in",
                   "comment": f"Q [B, S, Hq, {D}] bf16"}),
        ("ptr_k", {"type": "bf16", "elements": B * S * Hk * D, "role": "in",
                   "comment": f"K [B, S, Hk={Hk}, {D}] bf16"}),
        ("ptr_v", {"type": "bf16", "elements": B * S * Hk * Dv, "role": "in",
                   "comment": f"V [B, S, Hk, {Dv}] bf16"}),
        ("ptr_lse", {"type": "f32", "elements": B * Hq * S, "role": "out",
                     "comment": "LSE [B, Hq, S] fp32 (lse=1, as the README's fwd_v3 command)"}),
        ("scalar", {"type": "f32", "value": 1.0 / math.sqrt(D), "comment": "1/sqrt(hdim_q)"}),
        ("s_seq_len", {"value": S}),
        ("s_Seqs", {"value": stride_q * bpe}),
        ("s_Ts", {"value": ts_qo * stride_q * bpe}),
        ("s_Hs", {"value": D * bpe}),
        ("s_Bs", {"value": S * Hq * D * bpe}),
        ("s_gqa", {"value": Hq // Hk}),
        ("s_k_Seqs", {"value": stride_k * bpe}),
        ("s_k_Hs", {"value": D * bpe}),
        ("s_k_Bs", {"value": S * Hk * D * bpe}),
        ("s_opt", {"value": tune_opt, "comment": "tune_opt"}),
        ("s_lse", {"value": 1, "comment": "kStoreLSE"}),
        ("s_kv_seq_len", {"value": S}),
        ("s_qk_head_dim", {"value": D}),
        ("s_v_head_dim", {"value": Dv}),
        ("s_q_head_num", {"value": Hq}),
        ("s_v_Seqs", {"value": Hk * Dv * bpe}),
        ("s_v_Hs", {"value": Dv * bpe}),
        ("s_v_Bs", {"value": S * Hk * Dv * bpe}),
        ("s_o_Seqs", {"value": stride_o * bpe}),
        ("s_o_Hs", {"value": Dv * bpe}),
        ("s_o_Bs", {"value": S * Hq * Dv * bpe}),
        ("ptr_qseq", {"value": "null", "comment": "batch mode"}),
        ("ptr_kseq", {"value": "null", "comment": "batch mode"}),
        ("s_lse_Hs", {"value": S * 4, "comment": "nhead_stride_lse * 4"}),
        ("ptr_qseq_padding", {"value": "null"}),
        ("ptr_kseq_padding", {"value": "null"}),
    )
    comment = (f"AITer fmha_v3_fwd {target} batch mode BSHD, {'causal' if causal else 'no mask'}:"
               f" B={B} Hq={Hq} Hk={Hk} Sq=Sk={S} d={D}; grid ceil(ceil(S/256)/{tg_div}) x Hq x B,"
               " block 512 (codegen.py at a83421bee6)")
    return comment, grid, [512, 1, 1], f


# --- bf16 asm GEMM (gfx950) ---------------------------------------------------------------------
# csrc/py_itfs_cu/asm_gemm_a16w16.cu at dfd7ebf6c7: KernelArgs, gemm_a16w16_asm(); the tuner
# (csrc/gemm_a16w16/gemm_a16w16_tune.py) passes bias None, out torch.empty(M, N, outdtype) and
# the CSV's splitK; aiter/ops/gemm_op_a16w16.py: a (16, 64) uint32 semaphore for split-K.
def bf16gemm(s, target):
    M, N, K, split, tm, tn = s["M"], s["N"], s["K"], s["splitK"], s["tileM"], s["tileN"]
    out_bpe = 4  # the CSV's outdtype torch.float32
    pad = 128  # elements: the kernels prefetch past the end of A and B (see test/corpus/aiter)
    f = slots(
        ("ptr_D", {"type": "f32", "elements": M * N, "role": "out",
                   "comment": f"out [{M}, {N}] fp32"}),
        ("ptr_C", {"value": "null"}),
        ("ptr_A", {"type": "bf16", "elements": M * K + pad, "role": "in",
                   "comment": f"A [{M}, {K}] bf16 (+{pad} elements of over-prefetch)"}),
        ("ptr_B", {"type": "bf16", "elements": N * K + pad, "role": "in",
                   "comment": f"B [{N}, {K}] bf16 (+{pad})"}),
        ("alpha", {"type": "f32", "value": 1.0}),
        ("beta", {"type": "f32", "value": 0.0}),
        ("stride_D0", {"value": N * out_bpe}),
        ("stride_D1", {"value": 0}),
        ("stride_C0", {"value": N * out_bpe}),
        ("stride_C1", {"value": 0}),
        ("stride_A0", {"value": K * 2}),
        ("stride_A1", {"value": 0}),
        ("stride_B0", {"value": K * 2}),
        ("stride_B1", {"value": 0}),
        ("M", {"value": M}), ("N", {"value": N}), ("K", {"value": K}),
        ("splitk", {"value": split}),
        ("is_out_b16", {"value": 0}),
        ("ptr_Bias", {"value": "null", "comment": "bias None"}),
        ("add_bias", {"value": 0}),
        ("ptr_semaphore", {"type": "u32", "elements": 16 * 64, "fill": "zero", "role": "inout",
                           "optional": True,
                           "comment": "(16, 64) uint32 workspace, reset by the kernel"}
         if split > 1 else {"value": "null", "optional": True, "comment": "split 1: nullptr"}),
    )  # optional: the pf3 kernels' metadata ends before ptr_semaphore
    grid = [(N + tn - 1) // tn, (M + tm - 1) // tm, split]
    comment = (f"AITer gemm_a16w16_asm {target}: M={M} N={N} K={K} splitK={split}, fp32 out, no "
               f"bias; grid ceil(N/{tn}) x ceil(M/{tm}) x splitK, block 256 (dfd7ebf6c7)")
    return comment, grid, [256, 1, 1], f


# --- fp8 block-scale (1x128x128) B-preshuffle asm GEMM (gfx950) ---------------------------------
# csrc/py_itfs_cu/asm_a8w8_blockscale_bpreshuffle.cu at f099e61428: KernelArgs, setup_kernel_args,
# grid (N/tile_n * splitK, ceil(M/tile_m), 1), block 256; the tuner's generate_data
# (csrc/ck_gemm_a8w8_blockscale/gemm_a8w8_blockscale_tune.py): x_scale transposed [scale_k, M]
# fp32, w_scale [scale_n, scale_k] fp32, zero bias [1, N] fp32, out [M, N] bf16.
def fp8gemm_blockscale(s, target):
    M, N, K, split, tm, tn = s["M"], s["N"], s["K"], s["splitK"], s["tileM"], s["tileN"]
    sk, sn = (K + 127) // 128, (N + 127) // 128
    f = slots(
        ("ptr_C", {"type": "bf16", "elements": M * N, "role": "out",
                   "comment": f"out [{M}, {N}] bf16"}),
        ("ptr_A", {"type": "u8", "elements": M * K, "range": [0, 0x3f], "role": "in",
                   "comment": f"A [{M}, {K}] fp8 e4m3 (bytes 0..0x3f: small positive values)"}),
        ("ptr_B", {"type": "u8", "elements": N * K, "range": [0, 0x3f], "role": "in",
                   "comment": f"B [{N}, {K}] fp8, preshuffled (16, 16)"}),
        ("ptr_a_scale", {"type": "f32", "elements": sk * M, "range": [0.0, 1.0], "role": "in",
                         "comment": f"x_scale^T [{sk}, {M}] fp32"}),
        ("ptr_b_scale", {"type": "f32", "elements": sn * sk, "range": [0.0, 1.0], "role": "in",
                         "comment": f"w_scale [{sn}, {sk}] fp32"}),
        ("ptr_bias", {"type": "f32", "elements": N, "fill": "zero", "role": "in",
                      "comment": "zero_bias [1, N] fp32"}),
        ("m", {"value": M}), ("n", {"value": N}), ("k", {"value": K}),
        ("lda", {"value": K}), ("ldb", {"value": K}), ("ldc", {"value": N * 2}),
        ("ks", {"value": split}),
        ("scale_m", {"value": M}), ("scale_n", {"value": sn}), ("scale_k", {"value": sk}),
    )
    grid = [(N // tn) * split, (M + tm - 1) // tm, 1]
    comment = (f"AITer gemm_a8w8_blockscale_bpreshuffle_asm {target}: M={M} N={N} K={K} "
               f"splitK={split}; grid N/{tn}*splitK x ceil(M/{tm}) x 1, block 256 (f099e61428)")
    return comment, grid, [256, 1, 1], f


# --- MXFP4 asm GEMM (gfx950) --------------------------------------------------------------------
# csrc/py_itfs_cu/asm_gemm_a4w4.cu at 768c037adb: KernelArgs, gemm_a4w4_asm(); the tuner
# (csrc/ck_gemm_a4w4_blockscale/gemm_a4w4_blockscale_tune.py generate_data): out
# [ceil(M/256)*256, N] bf16, scales from the per-1x32 quant with shuffle=True, bias None.
def f4gemm(s, target):
    M, N, K, tm, tn = s["M"], s["N"], s["K"], s["tileM"], s["tileN"]
    sk = ((K // 32 + 7) // 8) * 8
    rows = (M + 255) // 256 * 256
    f = slots(
        ("ptr_D", {"type": "bf16", "elements": rows * N, "role": "out",
                   "comment": f"out [ceil(M/256)*256={rows}, {N}] bf16"}),
        ("ptr_C", {"value": "null", "comment": "bias None"}),
        ("ptr_A", {"type": "u8", "elements": M * K // 2, "range": [0, 255], "role": "in",
                   "comment": f"A [{M}, {K}/2] fp4x2"}),
        ("ptr_B", {"type": "u8", "elements": N * K // 2, "range": [0, 255], "role": "in",
                   "comment": f"B [{N}, {K}/2] fp4x2 preshuffled"}),
        ("alpha", {"type": "f32", "value": 1.0}),
        ("beta", {"type": "f32", "value": 0.0}),
        ("stride_D0", {"value": 0, "comment": "not set by the host"}),
        ("stride_D1", {"value": 0}),
        ("stride_C0", {"value": N, "comment": "out.stride(0)"}),
        ("stride_C1", {"value": 0}),
        ("stride_A0", {"value": K, "comment": "A.stride(0) * 2"}),
        ("stride_A1", {"value": 0}),
        ("stride_B0", {"value": K}),
        ("stride_B1", {"value": 0}),
        ("M", {"value": M}), ("N", {"value": N}), ("K", {"value": K}),
        ("ptr_ScaleA", {"type": "u8", "elements": ((M + 255) // 256 * 256) * sk,
                        "range": [122, 132], "role": "in", "comment": f"A scale e8m0, [*, {sk}]"}),
        ("ptr_ScaleB", {"type": "u8", "elements": ((N + 255) // 256 * 256) * sk,
                        "range": [122, 132], "role": "in", "comment": f"B scale e8m0, [*, {sk}]"}),
        ("stride_ScaleA0", {"value": sk}),
        ("stride_ScaleA1", {"value": 0}),
        ("stride_ScaleB0", {"value": sk}),
        ("stride_ScaleB1", {"value": 0}),
        ("log2_k_split", {"value": 0, "comment": "the CSV's splitK 0"}),
    )
    grid = [(N + tn - 1) // tn, (M + tm - 1) // tm, 1]
    comment = (f"AITer gemm_a4w4_asm {target}: M={M} N={N} K={K}, log2_k_split 0; grid "
               f"ceil(N/{tn}) x ceil(M/{tm}) x 1, block 256 (768c037adb)")
    return comment, grid, [256, 1, 1], f


# --- int8 per-token B-preshuffle asm GEMM (gfx942) ----------------------------------------------
# csrc/py_itfs_cu/asm_gemm_a8w8.cu at f8be2b2b2a: KernelArgs, gemm_a8w8_asm(): A [M, K] i8,
# B [N, K] i8 shuffled, A_scale [M, 1] f32, B_scale [1, N] f32, bias [1, N] f32, out [M, N] bf16;
# grid (N/tile_n * splitK, ceil(M/tile_m), 1), block 256; the CSV's splitK 1: no zeroing.
def i8gemm(s, target):
    M, N, K, split, tm, tn = s["M"], s["N"], s["K"], s["splitK"], s["tileM"], s["tileN"]
    f = slots(
        ("ptr_c", {"type": "bf16", "elements": M * N, "role": "out",
                   "comment": f"out [{M}, {N}] bf16"}),
        ("ptr_a", {"type": "i8", "elements": M * K, "role": "in", "comment": f"A [{M}, {K}] i8"}),
        ("ptr_b", {"type": "i8", "elements": N * K, "role": "in",
                   "comment": f"B [{N}, {K}] i8 preshuffled"}),
        ("ptr_sa", {"type": "f32", "elements": M, "range": [0.0, 1.0], "role": "in",
                    "comment": "A_scale [M, 1] fp32"}),
        ("ptr_sb", {"type": "f32", "elements": N, "range": [0.0, 1.0], "role": "in",
                    "comment": "B_scale [1, N] fp32"}),
        ("ptr_bias", {"type": "f32", "elements": N, "role": "in", "comment": "bias [1, N] fp32"}),
        ("m", {"value": M}), ("n", {"value": N}), ("k", {"value": K}),
        ("lda", {"value": K}), ("ldb", {"value": K}), ("ldc", {"value": N * 2}),
        ("ks", {"value": split}),
    )
    grid = [(N // tn) * split, (M + tm - 1) // tm, 1]
    comment = (f"AITer gemm_a8w8_asm {target}: M={M} N={N} K={K} splitK={split}; grid "
               f"N/{tn}*splitK x ceil(M/{tm}) x 1, block 256 (f8be2b2b2a)")
    return comment, grid, [256, 1, 1], f


FAMILIES = {"fmha_fwd": fmha_fwd, "bf16gemm": bf16gemm, "fp8gemm_blockscale": fp8gemm_blockscale,
            "f4gemm": f4gemm, "i8gemm": i8gemm}


def spec_for(row, git_dir, tmp):
    fam = FAMILIES.get(row["family"])
    if fam is None:
        raise SystemExit(f"{row['id']}: unknown family {row['family']!r}")
    blob = git_blob(git_dir, row["commit"], row["co"])
    if blob != row["blob"]:
        raise SystemExit(f"{row['id']}: {row['commit']}:{row['co']} is blob {blob}, rows.tsv "
                         f"says {row['blob']}")
    co = os.path.join(tmp, blob + ".co")
    if not os.path.exists(co):
        git_object(git_dir, row["commit"], row["co"], co)
    kernels = metadata_kernels(co)
    if row["kernel"] not in kernels:
        raise SystemExit(f"{row['id']}: {row['co']} has no kernel {row['kernel']} "
                         f"(it has {sorted(kernels)})")
    comment, grid, block, fields = fam(parse_shape(row["shape"]), row["target"])
    args = build_args(kernels[row["kernel"]], fields, row["id"])
    return spec_json(comment, row["kernel"], grid, block, args)


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    git_dir, check = argv[1], "--check" in argv[2:]
    rows = read_rows(os.path.join(HERE, "rows.tsv"))
    os.makedirs(os.path.join(HERE, "specs"), exist_ok=True)
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            if row["use"] not in ("quick", "table"):
                continue  # the others' specs are written at run time (validate_published.py)
            text = spec_for(row, git_dir, tmp)
            path = os.path.join(HERE, "specs", row["id"] + ".json")
            old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if check:
                if old != text:
                    print(f"differs: {path}")
                    differ += 1
                continue
            if old != text:
                with open(path + ".tmp", "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(path + ".tmp", path)
                print(f"wrote {path}")
    # specs/ holds the quick and table rows' specs only: another row's is written at run time.
    wanted = {r["id"] + ".json" for r in rows if r["use"] in ("quick", "table")}
    for name in sorted(os.listdir(os.path.join(HERE, "specs"))):
        if name.endswith(".json") and name not in wanted:
            path = os.path.join(HERE, "specs", name)
            if check:
                print(f"no quick or table row: {path}")
                differ += 1
            else:
                os.remove(path)
                print(f"removed {path}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
