"""Helpers shared by the plain-Python references of this folder (ref_*.py): reading a
kernel-diffcheck --dump-inputs directory and the bf16/fp32 roundings they compare against."""
import glob
import math
import os
import struct
import subprocess
from fractions import Fraction

READELF = os.environ.get("LLVM_READELF", "/usr/lib/llvm-22/bin/llvm-readelf")


def load(d, name, kind="in"):
    """The bytes of argument NAME's buffer in dump directory D (KIND: in, k0, k1)."""
    fs = glob.glob(os.path.join(d, f"*_{name}.{kind}.bin"))
    if len(fs) != 1:
        raise SystemExit(f"{d}: expected one *_{name}.{kind}.bin, found {fs}")
    return open(fs[0], "rb").read()


def bf16s(b):
    return [struct.unpack("<f", b"\0\0" + b[i:i + 2])[0] for i in range(0, len(b), 2)]


def f32s(b):
    return list(struct.unpack(f"<{len(b) // 4}f", b))


def i32s(b):
    return list(struct.unpack(f"<{len(b) // 4}i", b))


def f32(x):
    """x rounded to fp32."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def e4m3fn(b):
    """OCP fp8 e4m3fn (gfx950's fp8): bias 7, no infinities, 0x7f / 0xff NaN."""
    s = -1.0 if b & 0x80 else 1.0
    e, m = (b >> 3) & 15, b & 7
    if e == 15 and m == 7:
        return math.nan
    return s * (m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))


def bf16_round(x):
    """x rounded to bf16, nearest even (as torch's .to(bf16))."""
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", u))[0]


def bf16_trunc(x):
    """fp32 x truncated to bf16 (toward zero): its high 16 bits, as v_perm_b32 with selector
    0x07060302 takes them."""
    u = struct.unpack("<I", struct.pack("<f", x))[0] & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", u))[0]


def round_f32(q):
    """Fraction (or int) q rounded to the nearest fp32, ties to even (no overflow / subnormals here)."""
    q = Fraction(q)
    if q == 0:
        return 0.0
    s = -1 if q < 0 else 1
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()   # 2^e <= q < 2^(e+2)
    if Fraction(2) ** e > q:
        e -= 1
    if Fraction(2) ** (e + 1) <= q:
        e += 1
    scaled = q / Fraction(2) ** (e - 23)                        # in [2^23, 2^24)
    n, r = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * r
    if twice > scaled.denominator or (twice == scaled.denominator and n & 1):
        n += 1
    return s * math.ldexp(n, e - 23)


def bind_fields(meta, fields):
    """A launch spec's "args" from the metadata's explicit arguments (name, offset, ...) in order:
    a "pad" passes 0, every other argument takes its entry of FIELDS, its comment prefixed with
    "NAME @ offset N". Every entry of FIELDS must be used."""
    args, seen = [], set()
    for i, (n, off, *_) in enumerate(meta):
        if n == "pad":
            args.append({"arg": f"#{i}", "value": 0})
            continue
        if n not in fields:
            raise SystemExit(f"no entry for field {n} (#{i}, offset {off})")
        e = {"arg": f"#{i}"}
        e.update(fields[n])
        e["comment"] = f"{n} @ offset {off}" + (f": {e['comment']}" if "comment" in e else "")
        args.append(e)
        seen.add(n)
    if set(fields) - seen:
        raise SystemExit(f"fields not in the metadata: {sorted(set(fields) - seen)}")
    return args


def write_spec_json(path, comment, kernel, grid, block, args, dynamic_lds=0):
    """A launch spec in this folder's layout: the header fields one per line, one argument per line."""
    import json
    spec = {"comment": comment, "kernel": kernel, "grid": grid, "block": block,
            "dynamic_lds": dynamic_lds}
    with open(path, "w") as f:
        f.write("{\n")
        for k in ("comment", "kernel", "grid", "block", "dynamic_lds"):
            f.write(f"  {json.dumps(k)}: {json.dumps(spec[k])},\n")
        f.write('  "args": [\n')
        f.write(",\n".join("    " + json.dumps(a) for a in args))
        f.write("\n  ]\n}\n")


def metadata_args(co):
    """(name, offset, size) of every explicit argument, from llvm-readelf --notes (no PyYAML): the
    items of the kernel's .args list start with '      - ' and hold '.name', '.offset', '.size'."""
    out = subprocess.run([READELF, "--notes", co], capture_output=True, text=True, check=True).stdout
    args, inside = [], False
    for line in out.splitlines():
        if line.startswith("  - .args:"):
            inside = True
            continue
        if not inside:
            continue
        if not line.startswith("      "):
            break                                   # the end of .args
        if line.startswith("      - "):
            args.append({})
        key, _, val = line.strip().lstrip("- ").partition(":")
        if key in (".name", ".offset", ".size"):
            args[-1][key] = val.strip()
    return [(a[".name"], int(a[".offset"]), int(a[".size"])) for a in args]
