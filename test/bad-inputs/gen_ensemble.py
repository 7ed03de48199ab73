"""The model's uncertainty under bad input (cases-ensemble.tsv): parameter files whose figures'
ranges (format asmevo-timing-params v2: "range" [low, high], "range_source") are malformed,
reversed, outside the figure's plausible range, miss the value, give a count a width, or are
labelled wrongly. The options --ensemble and --ensemble-seed need no inputs of their own.
Called by gen.py with its generator; kt-vadd.json comes from gen_timing.py."""

import json
import os


def generate(g):
    with open(os.path.join(g.src, "share/asmevo/timing/gfx942.json"), "rb") as f:
        base = json.loads(f.read())

    def p(name, code):
        d = json.loads(json.dumps(base))
        F = d["figures"]  # noqa: F841 (used by code)
        exec(code)
        g.write("ens-params-" + name + ".json", json.dumps(d, indent=1))

    p("no-range", 'del F["l2_latency_clk"]["range"]')
    p("range-number", 'F["l2_latency_clk"]["range"] = 230')
    p("range-one", 'F["l2_latency_clk"]["range"] = [230]')
    p("range-three", 'F["l2_latency_clk"]["range"] = [200, 230, 260]')
    p("range-strings", 'F["l2_latency_clk"]["range"] = ["200", "260"]')
    p("range-null", 'F["l2_latency_clk"]["range"] = [None, 260]')
    p("range-reversed", 'F["l2_latency_clk"]["range"] = [300, 200]')
    p("value-outside", 'F["l2_latency_clk"]["range"] = [100, 200]')
    p("range-past-plausible", 'F["l2_latency_clk"]["range"] = [200, 1e9]')
    p("range-negative", 'F["hbm_latency_clk"]["range"] = [-5, 800]')
    p("count-width", 'F["compute_units"]["range"] = [300, 304]')
    p("line-width", 'F["l2_line_bytes"]["range"] = [64, 256]')
    p("no-range-source", 'del F["l2_latency_clk"]["range_source"]')
    p("range-source-empty", 'F["l2_latency_clk"]["range_source"] = ""')
    p("range-source-number", 'F["l2_latency_clk"]["range_source"] = 20')
    p("range-source-unlabelled", 'F["l2_latency_clk"]["range_source"] = "about 20%"')
    p("exact-with-width", 'F["l2_latency_clk"]["range_source"] = "exact: measured"')
    p("mall-low-zero", 'F["mall_bytes_per_clk"]["range"] = [0, 8192]')
    p("clock-range-past", 'F["clock_mhz"]["range"] = [1067, 1e308]')
