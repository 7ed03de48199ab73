"""Inputs of the launch cases (cases-launch.tsv): launch specs whose text is not UTF-8 or
begins with a byte order mark, specs whose relative "file" entries do not hold, arguments
named on Triton objects (whose metadata names none), and capture bundles of the Triton vector
add that lack a region, cut one short, have a kernarg of the wrong size or absurd counts.

The bundles are written by test/cli/make_bundle.py (its MessagePack writer and the vector
add's dispatch, whose post-state it computes), so the pristine one replays as K0 exactly.
Standard library only; called by gen.py (generate(g)).
"""
import importlib.util
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def _make_bundle():
    path = os.path.join(HERE, "..", "cli", "make_bundle.py")
    spec = importlib.util.spec_from_file_location("make_bundle", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def specs(g):
    W = g.write
    s = g.spec("vadd")
    text = json.dumps(s, indent=1)
    # Complete (kernel-time takes only complete specs), behind a UTF-8 byte order mark.
    full = json.loads(text)
    for i, role in enumerate(["in", "in", "out"]):
        full["args"][i].update({"elements": 3000, "role": role})
    W("specenc-bom-utf8.json", b"\xef\xbb\xbf" + json.dumps(full, indent=1).encode())
    W("specenc-bom-utf16le.json", b"\xff\xfe" + text.encode("utf-16-le"))
    W("specenc-bom-utf16be.json", b"\xfe\xff" + text.encode("utf-16-be"))
    W("specenc-utf16-no-bom.json", text.encode("utf-16-le"))
    body = text.encode()
    at = body.index(b"out = x")
    W("specenc-byte-ff.json", body[:at] + b"\xff" + body[at + 1:])
    W("specenc-overlong.json", body[:at] + b"\xc0\xaf" + body[at + 1:])
    W("specenc-surrogate.json", body[:at] + b"\xed\xa0\x80" + body[at + 1:])
    W("specenc-cut-sequence.json", body[:at] + b"\xe2\x82")
    key = body.index(b'"dynamic_lds"')
    W("specenc-key-latin1.json", body[:key + 4] + b"\xe9" + body[key + 5:])
    W("specenc-bom-then-bad.json", b"\xef\xbb\xbf" + body[:at] + b"\x80" + body[at + 1:])
    # A kernel whose name is not UTF-8 (the symbol and the metadata both), and a spec that lets
    # --infer take it as the only kernel.
    W("specenc-kernel-name.hsaco", g.obj("vadd").replace(b"add_kernel", b"add_k\xffrnel"))
    t = json.loads(text)
    del t["kernel"]
    W("specenc-no-kernel.json", json.dumps(t, indent=1))

    # "file" entries, relative to the spec's folder.
    def with_file(folder, entry, files):
        t = json.loads(text)
        t["args"][0]["file"] = entry
        W(folder + "/spec.json", json.dumps(t, indent=1))
        for name, data in files.items():
            W(folder + "/" + name, data)

    x = struct.pack("<3000f", *[i / 8 for i in range(3000)])
    with_file("specfile-missing", "x.bin", {"other.bin": x})
    with_file("specfile-parent", "../missing-parent.bin", {"x.bin": x})
    with_file("specfile-odd-size", "x.bin", {"x.bin": x[:10]})
    with_file("specfile-directory", "sub", {"sub/x.bin": x})
    with_file("specfile-ok", "x.bin", {"x.bin": x})

    # Names on a Triton object, whose metadata names no argument.
    def named(name, base, index, arg):
        t = g.spec(base)
        t["args"][index]["arg"] = arg
        W(name, json.dumps(t, indent=1))

    named("argname-vadd-x_ptr.json", "vadd", 0, "x_ptr")
    named("argname-vadd-n_elements.json", "vadd", 3, "n_elements")
    named("argname-vadd-global_scratch.json", "vadd", 4, "global_scratch")
    named("argname-matmul-a_ptr.json", "matmul", 0, "a_ptr")


def bundles(g):
    mb = _make_bundle()
    k = g.obj("vadd")

    def bundle(name, edit=None, raw=None):
        d = mb.vadd(k)
        if edit:
            edit(d)
        data = mb.pack(d)
        if raw:
            data = raw(data)
        g.write("capbundle-" + name + ".bundle", data)

    def kernarg(ptrs, n=3000):
        return struct.pack("<QQQI4xQQ", *ptrs, n, 0, 0)

    def regions(d):
        return [r["base"] for r in d["regions"]]

    def drop(i):
        return lambda d: d["regions"].__delitem__(i)

    def cut(i, m):
        def f(d):
            d["regions"][i]["pre"] = d["regions"][i]["pre"][:m]
            d["regions"][i]["post"] = d["regions"][i]["post"][:m]
        return f

    def setk(key, value):
        return lambda d: d.__setitem__(key, value)

    bundle("ok")
    bundle("no-out-region", drop(2))
    bundle("no-x-region", drop(0))
    bundle("no-regions", lambda d: d.__setitem__("regions", []))
    bundle("out-cut", cut(2, 4000))
    bundle("x-one-byte", cut(0, 1))
    bundle("kernarg-short", lambda d: d.__setitem__("kernarg", d["kernarg"][:20]))
    bundle("kernarg-empty", setk("kernarg", b""))
    bundle("kernarg-long", lambda d: d.__setitem__("kernarg", d["kernarg"] + bytes(8)))
    bundle("kernarg-huge", lambda d: d.__setitem__("kernarg", d["kernarg"] + bytes(1 << 20)))
    bundle("kernel-other", setk("kernel", "sub_kernel"))
    bundle("kernel-empty", setk("kernel", ""))
    bundle("code-object-junk", setk("code_object", b"\x7fELF" + bytes(60)))
    bundle("grid-one", setk("grid_workgroups", [1, 1, 1]))
    bundle("grid-zero", setk("grid_workgroups", [0, 1, 1]))
    bundle("grid-past-2-32", setk("grid_workgroups", [16777216, 1, 1]))
    bundle("block-1024", setk("block", [1024, 1, 1]))
    bundle("block-2048", setk("block", [2048, 1, 1]))
    bundle("lds-4g", setk("dynamic_lds", (1 << 32) - 1))
    bundle("global-unknown", setk("globals", [{"name": "nope", "pre": bytes(4), "post": bytes(4)}]))
    bundle("region-null-page", lambda d: (
        d["regions"][0].__setitem__("base", 0),
        d.__setitem__("kernarg", kernarg([0] + regions(d)[1:]))))
    bundle("region-wraps", lambda d: (
        d["regions"][2].__setitem__("base", (1 << 64) - 4096),
        d.__setitem__("kernarg", kernarg(regions(d)[:2] + [(1 << 64) - 4096]))))
    bundle("regions-overlap",
           lambda d: d["regions"][1].__setitem__("base", d["regions"][0]["base"] + 8))
    bundle("post-shorter",
           lambda d: d["regions"][2].__setitem__("post", d["regions"][2]["post"][:8]))
    bundle("version-2", setk("format_version", 2))
    # Byte-level damage: a cut file, trailing bytes, and counts and lengths no file can hold.
    bundle("truncated", raw=lambda b: b[:len(b) // 2])
    bundle("trailing", raw=lambda b: b + b"\0")

    def swap(old, new):
        def f(b):
            assert b.count(old) == 1, old
            return b.replace(old, new)
        return f

    co = mb.pack(k)[:5]  # bin 32 header of the code object
    bundle("bin-length-4g", raw=swap(co, b"\xc6\xff\xff\xff\xff"))
    regions_key = mb.pack("regions")
    bundle("region-count-4g",
           raw=swap(regions_key + b"\x93", regions_key + b"\xdd\xff\xff\xff\xff"))
    bundle("map-count-4g", raw=lambda b: b"\xdf\xff\xff\xff\xff" + b[1:])


def generate(g):
    specs(g)
    bundles(g)
