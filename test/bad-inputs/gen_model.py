"""kernel-time's bad inputs for the timing model's figures of issue 38 (cases-model.tsv): the
clock under MFMA load, its power-law exponent and the launch overhead in microseconds, edited
into the shipped gfx942 parameter file. Called by gen.py with its generator."""

import json
import os


def generate(g):
    with open(os.path.join(g.src, "share/asmevo/timing/gfx942.json"), "rb") as f:
        base = json.loads(f.read())

    def p(name, code):
        d = json.loads(json.dumps(base))
        F = d["figures"]  # noqa: F841 (used by code)
        exec(code)
        g.write("km-params-" + name + ".json", json.dumps(d, indent=1))

    # a control: the sustained clock may equal the boost clock
    p("mfma-at-boost", 'F["mfma_clock_mhz"].update(value=2100, range=[1067, 2100])')
    p("mfma-over-boost", 'F["mfma_clock_mhz"]["value"] = 2400')
    p("mfma-zero", 'F["mfma_clock_mhz"]["value"] = 0')
    p("mfma-ghz", 'F["mfma_clock_mhz"].update(value=1.207, unit="GHz")')
    p("no-mfma-clock", 'del F["mfma_clock_mhz"]')
    p("exponent-0", 'F["clock_power_exponent"]["value"] = 0')
    p("exponent-nan-text", 'F["clock_power_exponent"]["value"] = "cube"')
    p("overhead-negative", 'F["launch_overhead_us"]["value"] = -2')
    p("overhead-in-clk", 'F["launch_overhead_us"].update(value=4200, unit="clk")')
    # a file from before issue 38: the overhead in clocks under its old name
    p("overhead-old-name",
      'F["launch_overhead_clk"] = dict(value=4200, unit="clk", source="old"); '
      'del F["launch_overhead_us"]')
