#!/usr/bin/env python3
"""Print a capture bundle (share/asmevo/capture-bundle.md) as JSON, byte strings as hex.

A MessagePack reader of its own (the types a bundle uses), written from the MessagePack
specification, so that the tests check what dispatch-capture wrote without msgpack-c, which
wrote it.   usage: read_bundle.py BUNDLE
"""
import json
import struct
import sys


def read(b, i):
    t = b[i]
    if t <= 0x7F:
        return t, i + 1
    if 0x80 <= t <= 0x8F:
        return read_map(b, i + 1, t & 0x0F)
    if 0x90 <= t <= 0x9F:
        return read_array(b, i + 1, t & 0x0F)
    if 0xA0 <= t <= 0xBF:
        n = t & 0x1F
        return b[i + 1:i + 1 + n].decode(), i + 1 + n
    fixed = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q"}
    if t in fixed:
        f = fixed[t]
        return struct.unpack_from(f, b, i + 1)[0], i + 1 + struct.calcsize(f)
    sized = {0xC4: (">B", "bin"), 0xC5: (">H", "bin"), 0xC6: (">I", "bin"),
             0xD9: (">B", "str"), 0xDA: (">H", "str"), 0xDB: (">I", "str"),
             0xDC: (">H", "array"), 0xDD: (">I", "array"), 0xDE: (">H", "map"),
             0xDF: (">I", "map")}
    if t in sized:
        f, kind = sized[t]
        n = struct.unpack_from(f, b, i + 1)[0]
        j = i + 1 + struct.calcsize(f)
        if kind == "bin":
            return b[j:j + n].hex(), j + n
        if kind == "str":
            return b[j:j + n].decode(), j + n
        return (read_array if kind == "array" else read_map)(b, j, n)
    raise ValueError("unexpected MessagePack type 0x%02x at offset %d" % (t, i))


def read_array(b, i, n):
    out = []
    for _ in range(n):
        v, i = read(b, i)
        out.append(v)
    return out, i


def read_map(b, i, n):
    out = {}
    for _ in range(n):
        k, i = read(b, i)
        v, i = read(b, i)
        out[k] = v
    return out, i


data = open(sys.argv[1], "rb").read()
doc, end = read(data, 0)
assert end == len(data), "trailing bytes"
doc["code_object"] = "%d bytes" % (len(doc["code_object"]) // 2)
print(json.dumps(doc, indent=1))
