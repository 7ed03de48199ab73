#!/usr/bin/env python3
"""Write capture bundles (share/asmevo/capture-bundle.md) for tests, without a HIP program.

    make_bundle.py vadd K.hsaco OUT [EDIT...]    a dispatch of the Triton vector add (add_kernel:
                                                  out = x + y over N = 3000 f32, grid 3 x 256),
                                                  its three buffers as regions with their pre-
                                                  and post-state
    make_bundle.py edit IN OUT EDIT...            an existing bundle (dispatch-capture's), edited

EDITs (a region R is its index, from 0, or its reached_from, such as kernarg+0x10):
drop-region=R, region-bytes=R:M (keep the first M bytes of its pre and post), kernarg-bytes=N
(keep the first N bytes), set=KEY:JSON (a top-level field, e.g. 'set=grid_workgroups:[1,1,1]').

A MessagePack reader and writer of its own (the types a bundle uses), like read_bundle.py, so
that a test edits a bundle the way a user with a script would. Standard library only.
"""
import json
import struct
import sys

BASE = 0x7F0000100000  # where the vector add's first buffer lies; each buffer 1 MiB further


def pack(v):
    """MessagePack of v: dict, list, str, bytes, non-negative int."""
    if isinstance(v, dict):
        n = len(v)
        out = bytes([0x80 | n]) if n < 16 else b"\xde" + struct.pack(">H", n)
        for k, x in v.items():
            out += pack(k) + pack(x)
        return out
    if isinstance(v, list):
        n = len(v)
        out = bytes([0x90 | n]) if n < 16 else b"\xdc" + struct.pack(">H", n)
        return out + b"".join(pack(x) for x in v)
    if isinstance(v, str):
        b = v.encode()
        if len(b) < 32:
            return bytes([0xA0 | len(b)]) + b
        return b"\xd9" + struct.pack(">B", len(b)) + b if len(b) < 256 else \
            b"\xda" + struct.pack(">H", len(b)) + b
    if isinstance(v, (bytes, bytearray)):
        return b"\xc6" + struct.pack(">I", len(v)) + bytes(v)
    if isinstance(v, int) and v >= 0:
        return b"\xcf" + struct.pack(">Q", v)
    raise TypeError(type(v))


def unpack(b, i=0):
    t = b[i]
    if t <= 0x7F:
        return t, i + 1
    if 0x80 <= t <= 0x8F or t in (0xDE, 0xDF):
        if t <= 0x8F:
            n, i = t & 0x0F, i + 1
        else:
            f = ">H" if t == 0xDE else ">I"
            n, i = struct.unpack_from(f, b, i + 1)[0], i + 1 + struct.calcsize(f)
        out = {}
        for _ in range(n):
            k, i = unpack(b, i)
            out[k], i = unpack(b, i)
        return out, i
    if 0x90 <= t <= 0x9F or t in (0xDC, 0xDD):
        if t <= 0x9F:
            n, i = t & 0x0F, i + 1
        else:
            f = ">H" if t == 0xDC else ">I"
            n, i = struct.unpack_from(f, b, i + 1)[0], i + 1 + struct.calcsize(f)
        out = []
        for _ in range(n):
            x, i = unpack(b, i)
            out.append(x)
        return out, i
    if 0xA0 <= t <= 0xBF:
        n = t & 0x1F
        return b[i + 1:i + 1 + n].decode(), i + 1 + n
    fixed = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q"}
    if t in fixed:
        f = fixed[t]
        return struct.unpack_from(f, b, i + 1)[0], i + 1 + struct.calcsize(f)
    sized = {0xC4: ">B", 0xC5: ">H", 0xC6: ">I", 0xD9: ">B", 0xDA: ">H", 0xDB: ">I"}
    if t in sized:
        f = sized[t]
        n = struct.unpack_from(f, b, i + 1)[0]
        j = i + 1 + struct.calcsize(f)
        raw = b[j:j + n]
        return (bytes(raw) if t <= 0xC6 else raw.decode()), j + n
    raise ValueError("unexpected MessagePack type 0x%02x at offset %d" % (t, i))


def f32(xs):
    return struct.pack("<%df" % len(xs), *xs)


def vadd(code_object):
    """The Triton vector add's dispatch: out = x + y, n = 3000, grid 3 x 256, as recorded."""
    n = 3000
    x = [float((i * 7) % 101) / 8 for i in range(n)]
    y = [float((i * 13) % 97) / 4 for i in range(n)]
    # Sums of these short binary fractions are exact in f32: the recorded post-state.
    out_post = f32([a + b for a, b in zip(x, y)])
    bx, by, bo = BASE, BASE + (1 << 20), BASE + (2 << 20)
    kernarg = struct.pack("<QQQI4xQQ", bx, by, bo, n, 0, 0)
    regions = [
        {"base": bx, "reached_from": "kernarg+0x0", "pre": f32(x), "post": f32(x)},
        {"base": by, "reached_from": "kernarg+0x8", "pre": f32(y), "post": f32(y)},
        {"base": bo, "reached_from": "kernarg+0x10", "pre": bytes(4 * n), "post": out_post},
    ]
    return {
        "format": "asmevo-capture-bundle", "format_version": 1,
        "runtime": "make_bundle.py (no runtime)", "device": "none gfx942",
        "code_object": code_object, "kernel": "add_kernel", "nth": 0,
        "grid_workgroups": [3, 1, 1], "block": [256, 1, 1], "dynamic_lds": 0, "stream": 0,
        "kernarg": kernarg, "regions": regions, "globals": [],
    }


def region(d, r):
    if r.isdigit():
        return int(r)
    return next(i for i, x in enumerate(d["regions"]) if x["reached_from"] == r)


def edit(d, edits):
    for e in edits:
        k, _, v = e.partition("=")
        if k == "drop-region":
            del d["regions"][region(d, v)]
        elif k == "kernarg-bytes":
            d["kernarg"] = d["kernarg"][:int(v)]
        elif k == "region-bytes":
            r, _, m = v.rpartition(":")
            n, m = region(d, r), int(m)
            d["regions"][n]["pre"] = d["regions"][n]["pre"][:m]
            d["regions"][n]["post"] = d["regions"][n]["post"][:m]
        elif k == "set":
            key, _, val = v.partition(":")
            d[key] = json.loads(val)
        else:
            sys.exit("make_bundle.py: unknown edit %r" % e)
    return d


def main(argv):
    if len(argv) < 3 or argv[0] not in ("vadd", "edit"):
        sys.exit(__doc__)
    src = open(argv[1], "rb").read()
    if argv[0] == "vadd":
        d = vadd(src)
    else:
        d, end = unpack(src)
        assert end == len(src), "trailing bytes"
    open(argv[2], "wb").write(pack(edit(d, argv[3:])))


if __name__ == "__main__":
    main(sys.argv[1:])
