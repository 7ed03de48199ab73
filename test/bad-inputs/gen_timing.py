"""kernel-time's bad inputs (cases-timing.tsv): parameter files with absurd, missing or unknown
figures, rocprofv3 thread-trace directories whose CSVs have bad fields, complete launch specs
whose buffers are too small or whose grids are too large. Called by gen.py with its generator."""

import json
import os


def generate(g):
    W = g.write
    src = g.src

    # A complete spec of the vector add (as kernel-diffcheck --infer writes it, without the K0
    # hash), and variants kernel-time must refuse.
    spec = g.spec("vadd")
    for a, role in zip(spec["args"][:3], ("in", "in", "out")):
        a.update({"elements": 3000, "role": role})
    W("kt-vadd.json", json.dumps(spec, indent=1))

    def s(name, f):
        t = json.loads(json.dumps(spec))
        f(t)
        W("kt-spec-" + name + ".json", json.dumps(t, indent=1))

    s("short-in", lambda t: t["args"][0].update({"elements": 2990}))  # read in the guard
    s("tiny-out", lambda t: t["args"][2].update({"elements": 10}))  # a write that faults
    s("one-in", lambda t: t["args"][1].update({"elements": 1}))
    s("grid-over", lambda t: (t.pop("grid"), t.update({"grid_items": [65536 * 256, 65537, 1]})))
    s("grid-wrap", lambda t: (t.pop("grid"), t.update({"grid_items": [4294967295] * 3,
                                                       "block": [1, 1, 1]})))
    s("grid-4096", lambda t: t.update({"grid": [4096, 1, 1]}))
    s("open", lambda t: t["args"][2].pop("role"))

    # Parameter files: the shipped gfx942 one, edited.
    with open(os.path.join(src, "share/asmevo/timing/gfx942.json"), "rb") as f:
        shipped = f.read()
    base = json.loads(shipped)
    with open(os.path.join(src, "share/asmevo/timing/gfx90a.json"), "rb") as f:
        W("kt-params-gfx90a.json", f.read())
    W("kt-params-good.json", shipped)
    W("kt-params-bom.json", b"\xef\xbb\xbf" + shipped)

    def p(name, code):
        d = json.loads(json.dumps(base))
        F = d["figures"]  # noqa: F841 (used by code)
        exec(code)
        W("kt-params-" + name + ".json", json.dumps(d, indent=1))

    p("cu-1e12", 'F["compute_units"]["value"] = 1e12')
    p("cu-int-1e12", 'F["compute_units"]["value"] = 10 ** 12')
    p("clock-1e308", 'F["clock_mhz"]["value"] = 1e308')
    p("line-3", 'F["l1_line_bytes"]["value"] = 3')
    p("line-96", 'F["l2_line_bytes"]["value"] = 96')
    p("scalar-line-0", 'F["scalar_cache_line_bytes"]["value"] = 0')
    p("simds-fraction", 'F["simds_per_cu"]["value"] = 3.5')
    p("waves-fraction", 'F["wave_slots_per_simd"]["value"] = 0.5')
    p("clock-ghz", 'F["clock_mhz"].update(value=2.1, unit="GHz")')
    p("l2-kib", 'F["l2_bytes"].update(value=4096, unit="KiB")')
    p("no-unit", 'del F["l2_bytes"]["unit"]')
    p("latency-negative", 'F["hbm_latency_clk"]["value"] = -1')
    p("l2-zero", 'F["l2_bytes"]["value"] = 0')
    p("hbm-zero", 'F["hbm_bytes_per_clk"]["value"] = 0')
    p("efficiency-77", 'F["hbm_efficiency"]["value"] = 77.5')
    p("value-string", 'F["l2_bytes"]["value"] = "4 MiB"')
    p("value-null", 'F["l2_bytes"]["value"] = None')
    p("value-bool", 'F["l2_ways"]["value"] = True')
    p("value-array", 'F["l2_ways"]["value"] = [16]')
    p("no-value", 'del F["l2_bytes"]["value"]')
    p("no-source", 'F["l2_bytes"]["source"] = ""')
    p("extra-key", 'F["l2_bytes"]["low"] = 1')
    p("figure-number", 'F["l2_bytes"] = 4194304')
    p("unknown-figure", 'F["l3_bytes"] = F["l2_bytes"]')
    p("missing-figure", 'del F["l2_ways"]')
    p("l2s-over-cus", 'F["compute_units"]["value"] = 4')
    p("l1-under-a-set", 'F["l1_bytes"]["value"] = 1024; F["l1_ways"]["value"] = 16')
    p("mall-no-bandwidth", 'F["mall_bytes_per_clk"]["value"] = 0')
    p("figures-array", 'd["figures"] = []')
    p("version-1", 'd["format_version"] = 1')
    p("unknown-key", 'd["figure"] = {}')
    text = shipped.decode()
    W("kt-params-nan.json", text.replace('"value": 2100,', '"value": NaN,', 1))
    W("kt-params-1e400.json", text.replace('"value": 2100,', '"value": 1e400,', 1))
    W("kt-params-half-bom.json", b"\xef\xbb" + shipped)
    W("kt-params-utf16.json", b"\xff\xfe" + text.encode("utf-16-le"))
    W("kt-params-empty.json", b"")
    W("kt-params-binary.json", bytes(range(256)) * 4)
    W("kt-params-deep.json", "[" * 100000 + "]" * 100000)

    # Thread-trace directories: a stats CSV whose first row has one bad field. The columns are
    # rocprofv3's; the rows need not be the kernel's (a field is checked when it is read).
    head = "Codeobj,Vaddr,Instruction,Hitcount,Latency,Stall,Idle,Source\n"
    ok = ["2", "0x1600", '"s_load_dwordx2 s[2:3], s[0:1], 0x0"', "4", "8", "2", "1", ""]

    def att(name, col, value, prefix=b""):
        row = list(ok)
        if col is not None:
            row[col] = value
        W("kt-att-%s/stats_x.csv" % name, prefix + (head + ",".join(row) + "\n").encode())

    att("vaddr-65-bits", 1, "0x1" + "0" * 16)
    att("vaddr-dec-2-64", 1, "18446744073709551616")
    att("vaddr-not-hex", 1, "0xZZ")
    att("vaddr-negative", 1, "-4096")
    att("vaddr-float", 1, "4096.5")
    att("latency-nan", 4, "nan")
    att("latency-inf", 4, "inf")
    att("latency-1e400", 4, "1e400")
    att("idle-1e300", 6, "1e300")
    att("latency-hex-float", 4, "0x1p3")
    att("stall-negative", 5, "-3")
    att("hitcount-fraction", 3, "2.5")
    att("hitcount-negative", 3, "-1")
    att("latency-empty", 4, "")
    att("latency-binary", 4, "\x01\x7f")
    att("half-bom", None, None, b"\xef\xbb")
    att("bom-then-nan", 4, "nan", b"\xef\xbb\xbf")  # the mark is skipped: the field is named
    W("kt-att-no-column/stats_x.csv", head.replace(",Stall", "") + "2,0x1600,x,1,1,1\n")
    W("kt-att-empty/stats_x.csv", b"")
    W("kt-att-other-files/notes.txt", "not a trace\n")
