#!/usr/bin/env python3
"""Write PyTorch's low-precision float conversion tables as test data.

Usage:  python3 gen_tables.py OUTDIR

Needs only PyTorch (the float8 / float4 dtypes of torch >= 2.8).  A CUDA GPU
is optional: with one, the encode/decode tables are also checked on it and the
torch._scaled_mm cases are run (fp8 GEMMs on the GPU, for the emulator's FP8 MFMAs).

Writes into OUTDIR:
  decode_<fmt>.tsv         for fmt in e4m3fn, e5m2, e4m3fnuz, e5m2fnuz, e8m0fnu:
                           all 256 byte codes -> float32 (torch on the CPU:
                           uint8 tensor .view(dtype) .to(torch.float32))
                           columns: code, f32_bits, value
  decode_e2m1fn.tsv        the 16 fp4 (e2m1) nibble codes -> float32
                           (column 'method' says whether torch converted it
                           or it was decoded by the formula, see below)
  encode.tsv               float32 test values -> the byte torch produces with
                           x.to(dtype) on the CPU for each of the five fp8 formats
                           columns: f32_bits, e4m3fn, e5m2, e4m3fnuz, e5m2fnuz, e8m0fnu
  scaled_mm_<a>_<b>.txt    torch._scaled_mm on the GPU (if there is one): inputs,
                           output bits and a float64 reference
  report.txt               what was observed (overflow behaviour, GPU/CPU
                           agreement, exceptions), versions, date
"""

import math
import os
import struct
import sys
import time
import traceback

import torch

FMT = [  # (short name, torch dtype name)
    ("e4m3fn", "float8_e4m3fn"),
    ("e5m2", "float8_e5m2"),
    ("e4m3fnuz", "float8_e4m3fnuz"),
    ("e5m2fnuz", "float8_e5m2fnuz"),
    ("e8m0fnu", "float8_e8m0fnu"),
]

REPORT = []


def say(*a):
    line = " ".join(str(x) for x in a)
    print(line, flush=True)
    REPORT.append(line)


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bits_f32(b):
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def f32_bits_round(x):
    """float32 bit pattern of a Python float rounded (RNE) to float32; overflow -> inf."""
    t = torch.tensor([x], dtype=torch.float64).to(torch.float32)
    return t.view(torch.int32).item() & 0xFFFFFFFF


def tensor_bits(t):
    """float32 tensor -> list of uint32 bit patterns."""
    return [v & 0xFFFFFFFF for v in t.contiguous().view(torch.int32).reshape(-1).tolist()]


def decode_codes(dtype, device="cpu"):
    codes = torch.arange(256, dtype=torch.int32).to(torch.uint8).to(device)
    return tensor_bits(codes.view(dtype).to(torch.float32).cpu())


def value_repr(b):
    v = bits_f32(b)
    if math.isnan(v):
        return "nan" if not (b >> 31) else "-nan"
    return repr(v)


def write_decode(outdir, name, dtype):
    bits = decode_codes(dtype)
    with open(os.path.join(outdir, f"decode_{name}.tsv"), "w") as f:
        f.write("code\tf32_bits\tvalue\n")
        for c, b in enumerate(bits):
            f.write(f"0x{c:02x}\t0x{b:08x}\t{value_repr(b)}\n")
    return bits


def fp4_formula(c):
    s = -1.0 if c & 8 else 1.0
    e = (c >> 1) & 3
    m = c & 1
    if e == 0:
        return s * m * 0.5
    return s * (2.0 ** (e - 1)) * (1.0 + 0.5 * m)


def write_fp4(outdir):
    method = "formula"
    torch_bits = None
    dt = getattr(torch, "float4_e2m1fn_x2", None)
    if dt is None:
        say("fp4: torch has no float4_e2m1fn_x2 dtype")
    else:
        # Each byte holds two e2m1 values; try torch's own conversion first.
        try:
            codes = torch.tensor([c | (c << 4) for c in range(16)], dtype=torch.uint8)
            t = codes.view(dt).to(torch.float32)
            torch_bits = tensor_bits(t)
            method = "torch"
            say(f"fp4: torch converted float4_e2m1fn_x2 -> float32, result shape {tuple(t.shape)}")
        except Exception as e:
            say(f"fp4: torch cannot convert float4_e2m1fn_x2 -> float32: {type(e).__name__}: "
                f"{str(e).strip().splitlines()[0]}")
    rows = []
    for c in range(16):
        b = f32_bits(fp4_formula(c))
        if c == 8:
            b = 0x80000000  # -0.0
        rows.append(b)
    if torch_bits is not None and len(torch_bits) == 16 and torch_bits != rows:
        say("fp4: torch's conversion of bytes (c | c << 4) DIFFERS from the formula "
            "(code: torch/formula):",
            [f"{c:x}:{a:08x}/{b:08x}" for c, (a, b) in enumerate(zip(torch_bits, rows)) if a != b])
        method = "formula"
    elif torch_bits is not None and len(torch_bits) != 16:
        say(f"fp4: torch's conversion gave {len(torch_bits)} values for 16 bytes; table uses the formula")
        method = "formula"
    with open(os.path.join(outdir, "decode_e2m1fn.tsv"), "w") as f:
        f.write("code\tf32_bits\tvalue\tmethod\n")
        for c, b in enumerate(rows):
            f.write(f"0x{c:x}\t0x{b:08x}\t{value_repr(b)}\t{method}\n")


def test_values(decoded):
    """The float32 test inputs of encode.tsv, as a sorted list of bit patterns."""
    vals = set()

    def add(b):
        vals.add(b & 0xFFFFFFFF)

    def addv(x):
        add(f32_bits(x))

    for name, bits in decoded.items():
        fin = sorted({bits_f32(b) for b in bits
                      if not math.isnan(bits_f32(b)) and not math.isinf(bits_f32(b)) and bits_f32(b) >= 0})
        if name == "e8m0fnu":
            # powers of two 2^-127 .. 2^127: keep both ends and the middle
            fin = [v for v in fin if v < 2.0 ** -119 or 2.0 ** -4 <= v <= 2.0 ** 4 or v > 2.0 ** 119]
            fin = [0.0] + fin
        elif 0.0 not in fin:
            fin = [0.0] + fin
        mx = fin[-1]
        for v in fin:  # exact representables, both signs
            addv(v)
            addv(-v)
        for lo, hi in zip(fin, fin[1:]):  # midpoints (ties), +-1 ulp, both signs for the tie
            mid = (lo + hi) / 2.0  # exact in double; exact in float32 for these formats
            bm = f32_bits(mid)
            if bits_f32(bm) != mid:
                continue
            add(bm)
            add(bm | 0x80000000)
            add(bm - 1)
            add(bm + 1)
            add((bm - 1) | 0x80000000)
            add((bm + 1) | 0x80000000)
        # quarter points: clearly below / above a tie
        for lo, hi in list(zip(fin, fin[1:]))[:8]:
            addv(lo + (hi - lo) / 4.0)
            addv(lo + 3.0 * (hi - lo) / 4.0)
        # beyond the max finite value: the would-be next value and the tie to it
        if name != "e8m0fnu":
            ulp = fin[-1] - fin[-2]
            for x in (mx + ulp / 2.0, mx + ulp, mx + 2 * ulp, mx * 2.0, mx * 1.01):
                b = f32_bits(x)
                for bb in (b - 1, b, b + 1):
                    add(bb)
                    add(bb | 0x80000000)
        # below the smallest denormal
        mn = fin[1]
        for x in (mn / 2.0, mn / 4.0, mn / 1024.0):
            b = f32_bits(x)
            for bb in (b - 1, b, b + 1):
                add(bb)
                add(bb | 0x80000000)
    # float32 specials
    for b in (0x00000000, 0x80000000,          # +-0
              0x00000001, 0x80000001,          # smallest f32 denormal
              0x007fffff, 0x00400000,          # largest / a middle f32 denormal
              0x00800000, 0x80800000,          # smallest f32 normal
              0x7f7fffff, 0xff7fffff,          # f32 max
              0x7f000000, 0x7e800000,          # 2^127, 2^126
              0x7f800000, 0xff800000,          # +-inf
              0x7fc00000, 0xffc00000,          # quiet NaN, negative quiet NaN
              0x7f800001, 0x7fbfffff,          # signalling NaNs
              0x7fffffff, 0xffffffff):         # NaN with full payload
        add(b)
    for x in (1.0, -1.0, 0.1, -0.1, 1.0 / 3.0, 3.14159265, 1e-3, 1e-6, 1e-9, 65504.0, 1e5, 1e10, 1e30):
        addv(x)
    # 200 random values, fixed seed, sign * mantissa * 2^e with e uniform in [-140, 140]
    g = torch.Generator().manual_seed(20261202)
    mant = torch.rand(200, generator=g, dtype=torch.float64) + 1.0
    expo = torch.randint(-140, 141, (200, ), generator=g)
    sign = torch.randint(0, 2, (200, ), generator=g)
    for m, e, s in zip(mant.tolist(), expo.tolist(), sign.tolist()):
        x = torch.tensor(m * 2.0 ** e, dtype=torch.float64).to(torch.float32).item()
        addv(-x if s else x)
    return sorted(vals, key=lambda b: (b >> 31, b & 0x7FFFFFFF))


def encode(bits, dtype, device="cpu"):
    x = torch.tensor([b if b < 2 ** 31 else b - 2 ** 32 for b in bits], dtype=torch.int32).view(torch.float32)
    return x.to(device).to(dtype).view(torch.uint8).cpu().tolist()


def describe_overflow(name, dtype, decoded_bits):
    fin = [bits_f32(b) for b in decoded_bits if not math.isnan(bits_f32(b)) and not math.isinf(bits_f32(b))]
    mx = max(fin)
    probes = [("max", mx), ("max*1.01", mx * 1.01), ("2*max", mx * 2), ("1e30", 1e30),
              ("f32max", bits_f32(0x7F7FFFFF)), ("+inf", math.inf), ("-inf", -math.inf),
              ("-2*max", -mx * 2), ("nan", math.nan)]
    bits = [f32_bits_round(v) if not math.isnan(v) else 0x7FC00000 for _, v in probes]
    out = encode(bits, dtype)
    dec = decode_codes(dtype)
    say(f"overflow {name}: " + ", ".join(f"{p}->0x{c:02x}({value_repr(dec[c])})" for (p, _), c in zip(probes, out)))


def write_scaled_mm(outdir, fa, fb):
    da, db = getattr(torch, fa), getattr(torch, fb)
    g = torch.Generator().manual_seed(7)
    M, K, N = 16, 128, 16

    def rnd(shape, dt):
        lim = torch.finfo(dt).max
        x = torch.randn(*shape, generator=g, dtype=torch.float32)
        # a wide spread of magnitudes (2^-12 .. 2^8), so that normals,
        # denormals and large values all occur
        e = torch.randint(-12, 9, shape, generator=g).to(torch.float32)
        return (x * torch.exp2(e)).clamp(-lim, lim).to(dt)

    A = rnd((M, K), da)
    B = rnd((K, N), db)
    dev = "cuda"
    a = A.to(dev)
    b = B.to(dev).t().contiguous().t()  # column-major, as cuBLASLt wants
    one = torch.tensor(1.0, device=dev)
    res = {}
    for fast in (False, True):
        for odt in (torch.float32, torch.bfloat16):
            try:
                c = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=odt, use_fast_accum=fast)
                torch.cuda.synchronize()
                res[(fast, odt)] = c.float().cpu()
                break
            except Exception as e:
                say(f"scaled_mm {fa} x {fb} out {odt} fast_accum={fast}: {type(e).__name__}: "
                    f"{str(e).strip().splitlines()[0]}")
    if not res:
        return False
    from fractions import Fraction
    Af = A.to(torch.float32).tolist()  # fp8 -> fp32 is exact
    Bf = B.to(torch.float32).tolist()
    exact = [[sum(Fraction(Af[i][k]) * Fraction(Bf[k][j]) for k in range(K)) for j in range(N)]
             for i in range(M)]
    ref = torch.tensor([[float(v) for v in row] for row in exact], dtype=torch.float64)  # RNE to double
    n_inexact = sum(Fraction(float(v)) != v for row in exact for v in row)
    say(f"scaled_mm {fa} x {fb}: exact sums not representable in float64: {n_inexact} of {M * N}")
    ab = A.view(torch.uint8).tolist()
    bb = B.view(torch.uint8).tolist()
    fn = os.path.join(outdir, f"scaled_mm_{fa.replace('float8_', '')}_{fb.replace('float8_', '')}.txt")
    with open(fn, "w") as f:
        f.write(f"# torch._scaled_mm(A, B, scale_a=1.0, scale_b=1.0, out_dtype=..., use_fast_accum=...)\n")
        f.write(f"# on {torch.cuda.get_device_name(0)}, torch {torch.__version__}, CUDA {torch.version.cuda}\n")
        f.write(f"# A: {M}x{K} torch.{fa}, row-major; B: {K}x{N} torch.{fb} (logical [K, N], listed row by row;\n")
        f.write("#    it was passed column-major to _scaled_mm, as cuBLASLt requires); C = A @ B, [M, N]\n")
        f.write("# inputs: torch.randn * 2^randint(-12, 8) clamped to the format's max, .to(dtype);\n")
        f.write("#    torch.Generator().manual_seed(7), A drawn first\n")
        f.write(f"[A] {M} rows of {K} bytes, hex\n")
        for r in ab:
            f.write("".join(f"{v:02x}" for v in r) + "\n")
        f.write(f"[B] {K} rows of {N} bytes, hex\n")
        for r in bb:
            f.write("".join(f"{v:02x}" for v in r) + "\n")
        for (fast, odt), c in res.items():
            cb = tensor_bits(c)
            odn = str(odt).replace("torch.", "")
            d = (c.double() - ref).abs()
            say(f"scaled_mm {fa} x {fb} out {odn} fast_accum={fast}: max |C - C_ref64| = {d.max().item():.6g}, "
                f"elements differing from fp32(C_ref64): "
                f"{int((c != ref.to(torch.float32).to(c.dtype).float()).sum())} of {M * N}")
            f.write(f"[C out_dtype={odn} use_fast_accum={fast}] {M} rows of {N} float32 bit patterns "
                    f"(the {odn} output widened to float32), hex\n")
            for i in range(M):
                f.write(" ".join(f"{cb[i * N + j]:08x}" for j in range(N)) + "\n")
        f.write(f"[C_ref64] {M} rows of {N} float64 values: the exact sum over k of A[i,k]*B[k,j] of the "
                f"decoded inputs (computed with fractions.Fraction), rounded to float64; "
                f"{n_inexact} of the {M * N} exact sums needed rounding\n")
        for i in range(M):
            f.write(" ".join(repr(ref[i, j].item()) for j in range(N)) + "\n")
        rb = tensor_bits(ref.to(torch.float32))
        f.write(f"[C_ref64_to_f32] {M} rows of {N} float32 bit patterns: C_ref64 rounded to float32 (RNE), hex\n")
        for i in range(M):
            f.write(" ".join(f"{rb[i * N + j]:08x}" for j in range(N)) + "\n")
    say(f"wrote {fn} ({os.path.getsize(fn)} bytes)")
    return True


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(outdir, exist_ok=True)
    say(f"date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    say(f"torch {torch.__version__}, python {sys.version.split()[0]}")
    has_cuda = torch.cuda.is_available()
    if has_cuda:
        say(f"cuda: {torch.cuda.get_device_name(0)}, capability {torch.cuda.get_device_capability(0)}, "
            f"CUDA {torch.version.cuda}")
    else:
        say("cuda: not available")

    decoded = {}
    for name, tname in FMT:
        dt = getattr(torch, tname)
        try:
            decoded[name] = write_decode(outdir, name, dt)
            if has_cuda:
                try:
                    same = decode_codes(dt, "cuda") == decoded[name]
                    say(f"decode {name}: CUDA {'agrees with' if same else 'DIFFERS from'} CPU")
                except Exception as e:
                    say(f"decode {name}: CUDA failed: {type(e).__name__}: {str(e).strip().splitlines()[0]}")
        except Exception:
            say(f"decode {name} FAILED:\n{traceback.format_exc()}")
    try:
        write_fp4(outdir)
    except Exception:
        say(f"fp4 FAILED:\n{traceback.format_exc()}")

    vals = test_values(decoded)
    cols = {}
    for name, tname in FMT:
        dt = getattr(torch, tname)
        try:
            cols[name] = encode(vals, dt)
        except Exception as e:
            say(f"encode {name} FAILED: {type(e).__name__}: {e}")
            cols[name] = None
            continue
        if has_cuda:
            try:
                cu = encode(vals, dt, "cuda")
                diff = [(b, c1, c2) for b, c1, c2 in zip(vals, cols[name], cu) if c1 != c2]
                say(f"encode {name}: CUDA {'agrees with CPU on all' if not diff else 'DIFFERS from CPU on'} "
                    f"{len(diff) if diff else len(vals)} values")
                for b, c1, c2 in diff[:40]:
                    say(f"   0x{b:08x}: cpu 0x{c1:02x} cuda 0x{c2:02x}")
            except Exception as e:
                say(f"encode {name}: CUDA failed: {type(e).__name__}: {str(e).strip().splitlines()[0]}")
        try:
            describe_overflow(name, dt, decoded[name])
        except Exception as e:
            say(f"overflow {name} failed: {e}")
    with open(os.path.join(outdir, "encode.tsv"), "w") as f:
        f.write("f32_bits\t" + "\t".join(n for n, _ in FMT) + "\n")
        for i, b in enumerate(vals):
            f.write(f"0x{b:08x}\t" + "\t".join(
                (f"0x{cols[n][i]:02x}" if cols[n] is not None else "-") for n, _ in FMT) + "\n")
    say(f"encode.tsv: {len(vals)} values, {os.path.getsize(os.path.join(outdir, 'encode.tsv'))} bytes")

    if has_cuda:
        for fa, fb in (("float8_e4m3fn", "float8_e4m3fn"), ("float8_e5m2", "float8_e5m2"),
                       ("float8_e4m3fn", "float8_e5m2"), ("float8_e5m2", "float8_e4m3fn")):
            try:
                write_scaled_mm(outdir, fa, fb)
            except Exception:
                say(f"scaled_mm {fa} x {fb} FAILED:\n{traceback.format_exc()}")

    with open(os.path.join(outdir, "report.txt"), "w") as f:
        f.write("\n".join(REPORT) + "\n")


if __name__ == "__main__":
    main()
