#!/usr/bin/env python3
"""The published times `vmem_issue_clk` was fitted to (share/asmevo/timing/README.md): AITer's
gfx942 asm bf16 GEMMs at cu_num 80 (an MI308X) in its model_configs tables, which are not rows of
the validation table (rows.tsv). Each row is modeled with kernel-time on gfx942's parameter file
set to 80 CUs (and, with --vmem-issue-clk, that figure set), and its modeled kernel time (less
the launch overhead: the tables hold profiler durations) is compared with the published one.

    bench/published/fit_vmem_issue.py AITER_GIT_DIR [--kernel-time PATH] [--vmem-issue-clk C]
                                      [--work-dir DIR]

Opt-in, like validate_published.py (AITer is not reachable from CI). Standard library only.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import gen_specs  # noqa: E402

TABLES = ["aiter/configs/model_configs/dsv4_bf16_tuned_gemm.csv",
          "aiter/configs/model_configs/glm5_bf16_tuned_gemm.csv"]


def git(git_dir, *args):
    return subprocess.check_output(["git", "-C", git_dir, *args], text=True)


def rows(git_dir):
    """The gfx942 asm rows of each table, at the table's last commit."""
    out = []
    for table in TABLES:
        commit = git(git_dir, "log", "-1", "--format=%H", "--", table).strip()
        lines = git(git_dir, "show", f"{commit}:{table}").splitlines()
        head = lines[0].split(",")
        for line in lines[1:]:
            r = dict(zip(head, line.split(",")))
            if r.get("gfx") == "gfx942" and r.get("libtype") == "asm":
                out.append(dict(r, commit=commit, table=table))
    return out


def spec_for(r, co):
    """gen_specs' bf16gemm launch with the bf16 output these rows ask for: asm_gemm_a16w16.cu
    sets stride_C0 = stride_D0 = N * element size and is_out_b16."""
    M, N, K, split = int(r["M"]), int(r["N"]), int(r["K"]), int(r["splitK"])
    m = re.search(r"_tn_(\d+)x(\d+)_", r["kernelName"])
    tm, tn = int(m.group(1)), int(m.group(2))
    comment, grid, block, fields = gen_specs.bf16gemm(
        {"M": M, "N": N, "K": K, "splitK": split, "tileM": tm, "tileN": tn}, "gfx942")
    patched = {}
    for off, (name, entry) in fields.items():
        entry = dict(entry)
        if name == "ptr_D":
            entry.update(type="bf16", comment=f"out [{M}, {N}] bf16")
        if name in ("stride_D0", "stride_C0"):
            entry["value"] = N * 2
        if name == "is_out_b16":
            entry["value"] = 1
        patched[off] = (name, entry)
    kernels = gen_specs.metadata_kernels(co)
    args = gen_specs.build_args(kernels[r["kernelName"]], patched, r["kernelName"])
    return gen_specs.spec_json(comment.replace("fp32 out", "bf16 out"), r["kernelName"], grid,
                               block, args)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("aiter", help="a git directory of ROCm/aiter")
    ap.add_argument("--kernel-time", default=os.path.join(ROOT, "build", "bin", "kernel-time"))
    ap.add_argument("--vmem-issue-clk", type=float, help="set the figure (default: the file's)")
    ap.add_argument("--work-dir", help="keep the objects, specs and parameter file here")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work_dir or tmp
        os.makedirs(work, exist_ok=True)
        with open(os.path.join(ROOT, "share", "asmevo", "timing", "gfx942.json"),
                  encoding="utf-8") as f:
            p = json.load(f)
        p["device"] = "AMD Instinct MI308X (gfx942.json at 80 CUs)"
        p["figures"]["compute_units"].update(value=80, range=[80, 80])
        if args.vmem_issue_clk is not None:
            c = args.vmem_issue_clk
            p["figures"]["vmem_issue_clk"].update(value=c, range=[c, c])
        params = os.path.join(work, "mi308x.json")
        with open(params, "w", encoding="utf-8") as f:
            json.dump(p, f, indent=1)
        ratios = []
        for r in rows(args.aiter):
            name = re.search(r"aiter\d+(\w+)E$", r["kernelName"]).group(1)
            co = os.path.join(work, f"{name}.{r['commit'][:10]}.co")
            if not os.path.exists(co):
                gen_specs.git_object(args.aiter, r["commit"], f"hsa/gfx942/bf16gemm/{name}.co", co)
            spec = os.path.join(work, f"m{r['M']}n{r['N']}k{r['K']}s{r['splitK']}.json")
            with open(spec, "w", encoding="utf-8") as f:
                f.write(spec_for(r, co))
            res = subprocess.run([args.kernel_time, co, "--spec", spec, "--params", params,
                                  "--json"], capture_output=True, text=True)
            try:
                k = json.loads(res.stdout)["body"]["kernels"][0]
            except (ValueError, KeyError, IndexError):
                print(f"{name} M={r['M']} N={r['N']} K={r['K']}: kernel-time exited "
                      f"{res.returncode}: {res.stderr.strip()[-200:]}")
                continue
            modeled = k["microseconds"] - k["launch_overhead_us"]
            ratio = modeled / float(r["us"])
            ratios.append(ratio)
            print(f"{name:38s} M={r['M']:>4} N={r['N']:>4} K={r['K']:>4} splitK={r['splitK']:>2}"
                  f"  published {float(r['us']):6.2f} us  modeled {modeled:6.2f} us  "
                  f"ratio {ratio:.2f}  ({os.path.basename(r['table'])})")
        if not ratios:
            print("no row modeled", file=sys.stderr)
            return 1
        g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        within = sum(1 for x in ratios if abs(x - 1) <= 0.25)
        print(f"geometric mean modeled/published {g:.2f} over {len(ratios)} rows, {within} within "
              "+-25% (modeled figures, not measured)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
