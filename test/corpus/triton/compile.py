#!/usr/bin/env python3
"""Compile the kernels of kernels.py ahead of time for AMD CDNA GPUs.

Usage:  python3 compile.py OUTDIR [--archs gfx90a,gfx942,gfx950] [--only NAME,...]
                                  [-j JOBS] [--timeout SECONDS] [--log FILE]

Needs only Triton (3.x, with its AMD backend, as in the PyPI wheel); no AMD
GPU, no ROCm install: Triton's own LLVM assembles and links the code object.

Writes, for every (arch, kernel configuration):
    OUTDIR/<arch>/<name>.hsaco   the code object Triton produced (k.asm["hsaco"])
    OUTDIR/<arch>/<name>.amdgcn  the assembly text Triton produced (k.asm["amdgcn"])
    OUTDIR/<arch>/<name>.json    Triton's kernel metadata + how it was compiled
and OUTDIR/MANIFEST.tsv, one row per (arch, name).

Every compile runs in its own child process (with its own, fresh Triton cache
directory), so one failing or crashing kernel does not stop the others; the
failures are listed at the end and in the log.
"""

import argparse
import dataclasses
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ARCHS = ["gfx90a", "gfx942", "gfx950"]
WARP_SIZE = 64  # wave64 on all CDNA targets

# Specialisations Triton's JIT applies when it launches a kernel on typical
# (PyTorch-allocated, < 2 GiB) tensors on an AMD GPU: every pointer is 16-byte
# aligned ("D") and, with buffer ops on, its buffer is below 2 GiB ("S");
# integers that are multiples of 16 get the divisibility hint too.
PTR_ATTRS = [["tt.divisibility", 16], ["tt.pointer_range", 32]]
INT_ATTRS = [["tt.divisibility", 16]]

def _fp8_matmul(name, ab_type, c_type, archs):
    """matmul_kernel on fp8 A and B: 64x64x64 tiles, as the fp16 configurations."""
    return dict(name=name, kernel="matmul_kernel", archs=archs,
                types=dict(a_ptr=ab_type, b_ptr=ab_type, c_ptr=c_type, M="i32", N="i32", K="i32",
                           stride_am="i32", stride_bk="i32", stride_cm="i32"),
                constexprs=dict(stride_ak=1, stride_bn=1, stride_cn=1,
                                BLOCK_M=64, BLOCK_N=64, BLOCK_K=64, GROUP_M=8),
                div16=["M", "N", "K", "stride_am", "stride_bk", "stride_cm"],
                num_warps=4, num_stages=1,
                grid="(cdiv(M, 64) * cdiv(N, 64), 1, 1)")


def _mx_ptr(fmt):
    """The Triton pointer type of an MX operand: fp4 pairs as bytes, fp8 as e4m3."""
    return "*u8" if fmt == "e2m1" else "*fp8e4nv"


def _mx_matmul(name, a_fmt, b_fmt):
    """mx_matmul_kernel (gfx950): 64x64x128 tiles; K must be a multiple of 128."""
    return dict(name=name, kernel="mx_matmul_kernel", archs=["gfx950"],
                types=dict(a_ptr=_mx_ptr(a_fmt), a_scale_ptr="*u8", b_ptr=_mx_ptr(b_fmt),
                           b_scale_ptr="*u8", c_ptr="*fp32", M="i32", N="i32", K="i32",
                           stride_am="i32", stride_bn="i32", stride_asm="i32", stride_bsn="i32",
                           stride_cm="i32"),
                constexprs=dict(stride_ak=1, stride_bk=1, stride_cn=1, A_FMT=a_fmt, B_FMT=b_fmt,
                                BLOCK_M=64, BLOCK_N=64, BLOCK_K=128, GROUP_M=8),
                div16=["M", "N", "K", "stride_am", "stride_bn", "stride_cm"],
                num_warps=4, num_stages=1,
                grid="(cdiv(M, 64) * cdiv(N, 64), 1, 1); needs K % 128 == 0")


def _mx_dot_tile(name, fmt):
    """mx_dot_tile_kernel (gfx950): one 64x64x128 scaled dot, A and B of one format."""
    return dict(name=name, kernel="mx_dot_tile_kernel", archs=["gfx950"],
                types=dict(a_ptr=_mx_ptr(fmt), a_scale_ptr="*u8", b_ptr=_mx_ptr(fmt),
                           b_scale_ptr="*u8", out_ptr="*fp32", stride_am="i32", stride_bn="i32"),
                constexprs=dict(A_FMT=fmt, B_FMT=fmt, BLOCK_M=64, BLOCK_N=64, BLOCK_K=128),
                div16=["stride_am", "stride_bn"],
                num_warps=4, num_stages=1,
                grid="(1, 1, 1)")


def _w8a8_block(name, ab_type, archs):
    """w8a8_block_fp8_matmul_kernel: 64x128x128 tiles, 128x128 weight-scale blocks, bf16 out."""
    return dict(name=name, kernel="w8a8_block_fp8_matmul_kernel", archs=archs,
                types=dict(a_ptr=ab_type, b_ptr=ab_type, c_ptr="*bf16", as_ptr="*fp32",
                           bs_ptr="*fp32", M="i32", N="i32", K="i32", stride_am="i32",
                           stride_bn="i32", stride_cm="i32", stride_as_m="i32",
                           stride_bs_n="i32"),
                constexprs=dict(stride_ak=1, stride_bk=1, stride_cn=1, stride_as_k=1,
                                stride_bs_k=1, GROUP_N=128, GROUP_K=128,
                                BLOCK_M=64, BLOCK_N=128, BLOCK_K=128, GROUP_M=8),
                div16=["M", "N", "K", "stride_am", "stride_bn", "stride_cm"],
                num_warps=4, num_stages=2,
                grid="(cdiv(M, 64) * cdiv(N, 128), 1, 1); needs K % 128 == 0")


# One entry per compiled code object.
#   kernel      : function name in kernels.py
#   types       : Triton type of every runtime argument (in any order)
#   constexprs  : value of every tl.constexpr parameter, and of strides that
#                 are compiled as the constant 1 (contiguous inner dimension,
#                 what Triton's JIT does for an int argument equal to 1)
#   div16       : integer arguments the kernel is specialised as multiples of 16
#   grid        : launch grid (number of workgroups in x, y, z)
CONFIGS = [
    dict(name="vector_add_fp32", kernel="add_kernel",
         types=dict(x_ptr="*fp32", y_ptr="*fp32", out_ptr="*fp32", n_elements="i32"),
         constexprs=dict(BLOCK_SIZE=1024), div16=[],
         num_warps=4, num_stages=1,
         grid="(cdiv(n_elements, 1024), 1, 1)"),
    dict(name="softmax_fp32", kernel="softmax_kernel",
         types=dict(out_ptr="*fp32", in_ptr="*fp32", in_row_stride="i32", out_row_stride="i32", n_cols="i32"),
         constexprs=dict(BLOCK_SIZE=1024), div16=["in_row_stride", "out_row_stride"],
         num_warps=4, num_stages=1,
         grid="(n_rows, 1, 1); needs n_cols <= 1024"),
    dict(name="layernorm_fwd_fp16", kernel="layer_norm_fwd_kernel",
         types=dict(X="*fp16", Y="*fp16", W="*fp16", B="*fp16", Mean="*fp32", Rstd="*fp32",
                    stride="i32", N="i32", eps="fp32"),
         constexprs=dict(BLOCK_SIZE=1024), div16=["stride"],
         num_warps=4, num_stages=1,
         grid="(n_rows, 1, 1)"),
    dict(name="matmul_fp16", kernel="matmul_kernel",
         types=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", K="i32",
                    stride_am="i32", stride_bk="i32", stride_cm="i32"),
         constexprs=dict(stride_ak=1, stride_bn=1, stride_cn=1,
                         BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8),
         div16=["M", "N", "K", "stride_am", "stride_bk", "stride_cm"],
         num_warps=4, num_stages=1,
         grid="(cdiv(M, 64) * cdiv(N, 64), 1, 1)"),
    dict(name="matmul_fp16_ns2", kernel="matmul_kernel",
         types=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", K="i32",
                    stride_am="i32", stride_bk="i32", stride_cm="i32"),
         constexprs=dict(stride_ak=1, stride_bn=1, stride_cn=1,
                         BLOCK_M=64, BLOCK_N=64, BLOCK_K=64, GROUP_M=8),
         div16=["M", "N", "K", "stride_am", "stride_bk", "stride_cm"],
         num_warps=4, num_stages=2,
         grid="(cdiv(M, 64) * cdiv(N, 64), 1, 1)"),
    dict(name="matmul_bf16", kernel="matmul_kernel",
         types=dict(a_ptr="*bf16", b_ptr="*bf16", c_ptr="*bf16", M="i32", N="i32", K="i32",
                    stride_am="i32", stride_bk="i32", stride_cm="i32"),
         constexprs=dict(stride_ak=1, stride_bn=1, stride_cn=1,
                         BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8),
         div16=["M", "N", "K", "stride_am", "stride_bk", "stride_cm"],
         num_warps=4, num_stages=1,
         grid="(cdiv(M, 64) * cdiv(N, 64), 1, 1)"),
    dict(name="fused_moe_fp16", kernel="fused_moe_kernel",
         types=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", topk_weights_ptr="*fp32",
                    sorted_token_ids_ptr="*i32", expert_ids_ptr="*i32", num_tokens_post_padded_ptr="*i32",
                    N="i32", K="i32", EM="i32", num_valid_tokens="i32",
                    stride_am="i32", stride_be="i32", stride_bn="i32", stride_cm="i32"),
         constexprs=dict(stride_ak=1, stride_bk=1, stride_cn=1,
                         BLOCK_M=32, BLOCK_N=64, BLOCK_K=32, GROUP_M=8,
                         MUL_ROUTED_WEIGHT=True, top_k=2),
         div16=["N", "K", "stride_am", "stride_be", "stride_bn", "stride_cm"],
         num_warps=4, num_stages=1,
         grid="(cdiv(EM, 32) * cdiv(N, 64), 1, 1)"),
    dict(name="flash_attn_fwd_fp16", kernel="attn_fwd_kernel",
         types=dict(Q="*fp16", K="*fp16", V="*fp16", Out="*fp16", Lse="*fp32", sm_scale="fp32",
                    stride_z="i32", stride_h="i32", stride_m="i32", H="i32", N_CTX="i32"),
         constexprs=dict(HEAD_DIM=64, BLOCK_M=64, BLOCK_N=64, IS_CAUSAL=False),
         div16=["stride_z", "stride_h", "stride_m"],
         num_warps=4, num_stages=1,
         grid="(cdiv(N_CTX, 64), Z * H, 1)"),
    dict(name="flash_attn_fwd_causal_fp16", kernel="attn_fwd_kernel",
         types=dict(Q="*fp16", K="*fp16", V="*fp16", Out="*fp16", Lse="*fp32", sm_scale="fp32",
                    stride_z="i32", stride_h="i32", stride_m="i32", H="i32", N_CTX="i32"),
         constexprs=dict(HEAD_DIM=64, BLOCK_M=64, BLOCK_N=64, IS_CAUSAL=True),
         div16=["stride_z", "stride_h", "stride_m"],
         num_warps=4, num_stages=1,
         grid="(cdiv(N_CTX, 64), Z * H, 1)"),
    # ---- FP8 GEMMs (matmul_kernel with fp8 A/B, fp32 accumulate).  "archs"
    # limits a configuration to some targets: OCP fp8 (float8e4nv / float8e5)
    # is native on gfx950, the fnuz formats (float8e4b8 / float8e5b16) on gfx942.
    _fp8_matmul("matmul_fp8e4m3_f32", "*fp8e4nv", "*fp32", ["gfx942", "gfx950"]),
    _fp8_matmul("matmul_fp8e5m2_bf16", "*fp8e5", "*bf16", ["gfx942", "gfx950"]),
    _fp8_matmul("matmul_fp8e4m3fnuz_f32", "*fp8e4b8", "*fp32", ["gfx942"]),
    _fp8_matmul("matmul_fp8e5m2fnuz_bf16", "*fp8e5b16", "*bf16", ["gfx942"]),
    # ---- Microscaling GEMMs (tl.dot_scaled, e8m0 scales per 32 K-elements).
    # (gfx942 is left out: Triton 3.6 stops in make_llir, "PassManager::run failed".)
    _mx_matmul("mx_matmul_mxfp4", "e2m1", "e2m1"),
    _mx_matmul("mx_matmul_mxfp8", "e4m3", "e4m3"),
    _mx_matmul("mx_matmul_mxfp8_mxfp4", "e4m3", "e2m1"),
    _mx_dot_tile("mx_dot_tile_mxfp4", "e2m1"),
    _mx_dot_tile("mx_dot_tile_mxfp8", "e4m3"),
    # ---- The serving stacks' Triton families the paper measures (issue 41): a
    # W8A8 block-scale fp8 GEMM (fnuz on gfx942, OCP on gfx950), an AWQ int4
    # GEMM with split K, and the MoE-LoRA shrink; configurations as the
    # frameworks' ROCm defaults (num_stages 2).
    _w8a8_block("w8a8_block_fp8e4m3fnuz_bf16", "*fp8e4b8", ["gfx942"]),
    _w8a8_block("w8a8_block_fp8e4m3_bf16", "*fp8e4nv", ["gfx950"]),
    dict(name="awq_gemm_fp16", kernel="awq_gemm_kernel",
         types=dict(a_ptr="*fp16", qweight_ptr="*i32", qzeros_ptr="*i32", scales_ptr="*fp16",
                    c_ptr="*fp16", M="i32", N="i32", K="i32", stride_am="i32"),
         constexprs=dict(GROUP_SIZE=128, SPLIT_K=8, BLOCK_M=32, BLOCK_N=64, BLOCK_K=32),
         div16=["N", "K", "stride_am"],
         num_warps=4, num_stages=2,
         grid="(cdiv(M, 32) * cdiv(N, 64), 8, 1); needs N % 8 == 0, K % 256 == 0"),
    dict(name="moe_lora_shrink_fp16", kernel="moe_lora_shrink_kernel",
         types=dict(x_ptr="*fp16", lora_a_ptr="*fp16", out_ptr="*fp16",
                    sorted_token_ids_ptr="*i32", expert_ids_ptr="*i32",
                    num_tokens_post_padded_ptr="*i32", lora_ids_ptr="*i32",
                    R="i32", K="i32", EM="i32", num_valid_tokens="i32",
                    stride_xm="i32", stride_al="i32", stride_ae="i32", stride_ar="i32",
                    stride_om="i32"),
         constexprs=dict(stride_xk=1, stride_ak=1, stride_or=1,
                         BLOCK_M=32, BLOCK_N=16, BLOCK_K=64, top_k=2),
         div16=["R", "K", "stride_xm", "stride_al", "stride_ae", "stride_ar", "stride_om"],
         num_warps=4, num_stages=2,
         grid="(cdiv(EM, 32) * cdiv(R, 16), num_slots, 1)"),
]


def _cfg(name):
    for c in CONFIGS:
        if c["name"] == name:
            return c
    raise KeyError(name)


def _jsonable(x):
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return dataclasses.asdict(x)
    if isinstance(x, (bytes, bytearray)):
        return None
    if isinstance(x, (set, frozenset)):
        return sorted(x)
    return str(x)


# --------------------------------------------------------------------------
# child: compile one (arch, config)
# --------------------------------------------------------------------------
def compile_one(arch, name, outdir):
    """Runs in a child process.  Returns a result dict (also written as JSON)."""
    cfg = _cfg(name)
    cache_dir = tempfile.mkdtemp(prefix=f"tcache_{arch}_{name}_")
    os.environ["TRITON_CACHE_DIR"] = cache_dir
    os.environ.setdefault("TRITON_ALWAYS_COMPILE", "1")
    sys.path.insert(0, HERE)

    import triton
    from triton.backends.compiler import GPUTarget
    import kernels

    fn = getattr(kernels, cfg["kernel"])
    arg_names = list(fn.arg_names)
    types, cexprs = cfg["types"], cfg["constexprs"]
    missing = [a for a in arg_names if a not in types and a not in cexprs]
    extra = [a for a in list(types) + list(cexprs) if a not in arg_names]
    if missing or extra:
        raise SystemExit(f"{name}: config does not match {cfg['kernel']}{tuple(arg_names)}: "
                         f"missing {missing}, unknown {extra}")

    sig_full = {a: ("constexpr" if a in cexprs else types[a]) for a in arg_names}
    sig_rt = {a: types[a] for a in arg_names if a not in cexprs}
    cx_by_name = {a: cexprs[a] for a in arg_names if a in cexprs}
    cx_by_idx = {(arg_names.index(a), ): v for a, v in cx_by_name.items()}

    def attrs(ptr_attrs):
        out = {}
        for i, a in enumerate(arg_names):
            if a in cexprs:
                continue
            if types[a].startswith("*"):
                out[(i, )] = [list(x) for x in ptr_attrs]
            elif a in cfg["div16"]:
                out[(i, )] = [list(x) for x in INT_ATTRS]
        return out

    # API variants, most faithful first (the ASTSource API moved a little
    # between Triton 3.x releases).
    variants = [
        ("sig+constexpr/name-keys/attrs=D+S", lambda: triton.compiler.ASTSource(
            fn=fn, signature=sig_full, constexprs=cx_by_name, attrs=attrs(PTR_ATTRS))),
        ("sig+constexpr/name-keys/attrs=D", lambda: triton.compiler.ASTSource(
            fn=fn, signature=sig_full, constexprs=cx_by_name, attrs=attrs(PTR_ATTRS[:1]))),
        ("sig+constexpr/idx-keys/attrs=D+S", lambda: triton.compiler.ASTSource(
            fn=fn, signature=sig_full, constexprs=cx_by_idx, attrs=attrs(PTR_ATTRS))),
        ("sig+constexpr/name-keys/no-attrs", lambda: triton.compiler.ASTSource(
            fn=fn, signature=sig_full, constexprs=cx_by_name)),
        ("sig-runtime-only/idx-keys/no-attrs", lambda: triton.compiler.ASTSource(
            fn=fn, signature=sig_rt, constexprs=cx_by_idx)),
    ]
    target = GPUTarget("hip", arch, WARP_SIZE)
    options = dict(num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])

    errors = []
    k = None
    used = None
    t0 = time.time()
    for vname, make_src in variants:
        try:
            src = make_src()
            k = triton.compile(src, target=target, options=options)
            used = vname
            break
        except Exception:
            errors.append(f"--- variant {vname}:\n{traceback.format_exc()}")
    dt = time.time() - t0

    archdir = os.path.join(outdir, arch)
    os.makedirs(archdir, exist_ok=True)
    res = dict(arch=arch, name=name, kernel=cfg["kernel"], status="failed", variant=used,
               triton_version=triton.__version__, seconds=round(dt, 1),
               # runtime (kernel) arguments in order, and the constexpr parameters,
               # as [name, type] / [name, value] lists so that JSON keeps the order
               signature=[[a, t] for a, t in sig_rt.items()],
               constexprs=[[a, v] for a, v in cx_by_name.items()],
               div16=[a for a in arg_names if a in cfg["div16"]],
               num_warps=cfg["num_warps"], num_stages=cfg["num_stages"], grid=cfg["grid"],
               errors=errors)
    if k is not None:
        hsaco = k.asm["hsaco"]
        amdgcn = k.asm.get("amdgcn", "")
        with open(os.path.join(archdir, f"{name}.hsaco"), "wb") as f:
            f.write(hsaco)
        with open(os.path.join(archdir, f"{name}.amdgcn"), "w") as f:
            f.write(amdgcn)
        try:
            md = k.metadata._asdict()
        except Exception:
            md = dict(vars(k.metadata)) if hasattr(k.metadata, "__dict__") else {"repr": str(k.metadata)}
        res.update(status="ok", hsaco_size=len(hsaco), amdgcn_size=len(amdgcn),
                   sha256=hashlib.sha256(hsaco).hexdigest(),
                   symbol=md.get("name", ""), shared=md.get("shared", ""),
                   metadata=json.loads(json.dumps(md, default=_jsonable)))
    else:
        # Salvage the assembly if compilation got that far (e.g. if linking failed).
        cands = glob.glob(os.path.join(cache_dir, "**", "*.amdgcn"), recursive=True)
        if cands:
            shutil.copy(cands[0], os.path.join(archdir, f"{name}.amdgcn"))
            res["status"] = "amdgcn_only"
    shutil.rmtree(cache_dir, ignore_errors=True)

    res["block"] = [WARP_SIZE * cfg["num_warps"], 1, 1]
    res["dynamic_lds_bytes"] = res.get("shared", 0)  # Triton's LDS is dynamic: pass it at launch
    meta_out = {k_: v for k_, v in res.items() if k_ not in ("errors", "seconds")}
    if res["status"] != "failed":
        with open(os.path.join(archdir, f"{name}.json"), "w") as f:
            f.write("{\n" + ",\n".join(f" {json.dumps(k_)}: {json.dumps(v)}" for k_, v in meta_out.items())
                    + "\n}\n")
    return res


# --------------------------------------------------------------------------
# parent: run all children, write MANIFEST.tsv
# --------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--archs", default=",".join(ARCHS))
    ap.add_argument("--only", default="", help="comma-separated config names (default: all)")
    ap.add_argument("-j", "--jobs", type=int, default=max(1, min(8, os.cpu_count() or 1)))
    ap.add_argument("--timeout", type=int, default=300, help="seconds per compile")
    ap.add_argument("--log", default=None, help="log file (default OUTDIR/compile.log)")
    ap.add_argument("--child", nargs=2, metavar=("ARCH", "NAME"), help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        res = compile_one(args.child[0], args.child[1], args.outdir)
        with open(args.result, "w") as f:
            json.dump(res, f, default=_jsonable)
        for e in res["errors"]:
            print(e, file=sys.stderr)
        return 0 if res["status"] == "ok" else 1

    outdir = os.path.abspath(args.outdir)
    os.makedirs(outdir, exist_ok=True)
    archs = [a for a in args.archs.split(",") if a]
    names = [c["name"] for c in CONFIGS]
    if args.only:
        names = [n for n in args.only.split(",") if n]
    jobs = [(a, n) for a in archs for n in names if a in _cfg(n).get("archs", ARCHS)]
    tmp = tempfile.mkdtemp(prefix="triton_corpus_")
    log_path = args.log or os.path.join(outdir, "compile.log")

    import triton
    tver = triton.__version__
    print(f"triton {tver} ({os.path.dirname(triton.__file__)}), python {sys.version.split()[0]}", flush=True)

    def run(job):
        arch, name = job
        rpath = os.path.join(tmp, f"{arch}__{name}.json")
        cmd = [sys.executable, os.path.abspath(__file__), outdir, "--child", arch, name, "--result", rpath]
        t0 = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            out, rc = p.stdout + p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            out, rc = f"TIMEOUT after {args.timeout}s\n{e.stdout or ''}{e.stderr or ''}", -999
        res = None
        if os.path.exists(rpath):
            with open(rpath) as f:
                res = json.load(f)
        if res is None:
            res = dict(arch=arch, name=name, status="crashed", errors=[])
        res["rc"], res["wall"] = rc, round(time.time() - t0, 1)
        print(f"[{res['status']:>11}] {arch:7s} {name:28s} {res['wall']:6.1f}s "
              f"{res.get('variant') or ''}", flush=True)
        return res, out

    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        results = list(ex.map(run, jobs))
    shutil.rmtree(tmp, ignore_errors=True)

    with open(log_path, "w") as log:
        log.write(f"triton {tver}\ncommand: {' '.join(sys.argv)}\n"
                  f"date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n\n")
        for res, out in results:
            log.write(f"=== {res['arch']} {res['name']}: {res['status']} "
                      f"(rc {res['rc']}, {res['wall']}s, variant {res.get('variant')})\n")
            if res["status"] != "ok" or not (res.get("variant") or "").startswith("sig+constexpr/name-keys/attrs=D+S"):
                log.write(out[-20000:] + "\n")

    cols = ["arch", "name", "kernel_symbol", "signature", "constexprs", "div16", "num_warps", "num_stages",
            "lds_bytes", "grid", "hsaco_bytes", "sha256", "triton_version", "status"]
    with open(os.path.join(outdir, "MANIFEST.tsv"), "w") as f:
        f.write("\t".join(cols) + "\n")
        for res, _ in sorted(results, key=lambda r: (r[0]["arch"], r[0]["name"])):
            if res["status"] not in ("ok", "amdgcn_only"):
                continue
            row = [res["arch"], res["name"], str(res.get("symbol", "")),
                   ",".join(f"{a}:{t}" for a, t in res.get("signature", [])),
                   ",".join(f"{a}={v}" for a, v in res.get("constexprs", [])),
                   ",".join(res.get("div16", [])), str(res.get("num_warps", "")),
                   str(res.get("num_stages", "")), str(res.get("shared", "")), res.get("grid", ""),
                   str(res.get("hsaco_size", "")), res.get("sha256", ""), tver, res["status"]]
            f.write("\t".join(row) + "\n")

    ok = [r for r, _ in results if r["status"] == "ok"]
    bad = [r for r, _ in results if r["status"] != "ok"]
    print(f"\n{len(ok)}/{len(results)} compiled; log: {log_path}")
    for r in bad:
        print(f"FAILED {r['arch']} {r['name']}: {r['status']}")
        errs = r.get("errors") or [out for rr, out in results if rr is r]
        for e in errs[:1]:
            print("\n".join(e.strip().splitlines()[-12:]))
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
