#!/usr/bin/env python3
"""Holds kernel-time's model to published whole-kernel times of AITer code objects (issue 38).

Reads bench/published/rows.tsv (one published measurement a row: GPU, target, the code object's
path in ROCm/aiter and the commit that measured it, shape, figure, unit, timing basis, source),
takes each object from a local AITer git directory, models it with kernel-time on the row's
launch spec (bench/published/specs/ID.json, written from AITer's host code by gen_specs.py) and
prints published and modeled microseconds, their ratio, and per GPU the geometric mean of
modeled/published and the share within +-25%.

    bench/validate_published.py AITER_GIT_DIR [--quick | --all | --rows REGEX] [--json FILE
                                [--resume]] [--kernel-time PATH] [--before SAVED.json]
    bench/validate_published.py --from-json FILE [--before SAVED.json]  # print a saved run
    ... [--agreement FILE]  # also write the agreement per target (share/asmevo/timing's)

Opt-in: CI cannot reach AITer, so no AITer row runs under ctest (test/cli/validate-published.bats
tests the script's logic with a fake kernel-time). Standard library only. See bench/README.md
("validate_published").
"""
import argparse
import datetime
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PUBLISHED = os.path.join(HERE, "published")
sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, PUBLISHED)
import gen_specs  # noqa: E402  (the rows reader and, for rows without a committed spec, specs)

FORMAT = "asmevo-published-validation"
WITHIN = 0.25
COLUMNS = ["id", "gpu", "target", "family", "co", "commit", "blob", "kernel", "shape", "published",
           "unit", "flop", "basis", "use", "note", "source"]
USES = ("quick", "table", "costly", "no")
BASES = {
    "event": "hipEvent time over back-to-back launches / launches: the launch gap is in the "
             "figure, compared with the modeled time including its launch overhead",
    "profiler": "profiler kernel duration (start to end on the GPU, no launch gap): compared "
                "with the modeled time less its launch overhead",
}


# kernel-time failures that are about the code object, not the launch: the object's other rows
# would fail the same way after the same emulation, so they are not run again.
STATIC_ERROR = re.compile(r"no instruction decodes at address")


class InputError(Exception):
    pass


def read_rows(path):
    try:
        rows = gen_specs.read_rows(path)
    except OSError as e:
        raise InputError(f"'{path}': {e.strerror}")
    except UnicodeDecodeError as e:
        raise InputError(f"'{path}': not UTF-8 text ({e.reason} at byte {e.start})")
    except SystemExit as e:
        raise InputError(str(e))
    seen = set()
    for r in rows:
        where = f"'{path}':{r['_line']}"
        missing = [c for c in COLUMNS if c not in r]
        if missing:
            raise InputError(f"'{path}': no column '{missing[0]}' in the header")
        if r["id"] in seen:
            raise InputError(f"{where}: id '{r['id']}' appears twice")
        seen.add(r["id"])
        if r["use"] not in USES:
            raise InputError(f"{where}: use '{r['use']}' is not one of {', '.join(USES)}")
        if r["basis"] not in BASES:
            raise InputError(f"{where}: basis '{r['basis']}' is not one of {', '.join(BASES)}")
        try:
            r["published_us"] = published_us(r)
        except ValueError as e:
            raise InputError(f"{where}: {e}")
    return rows


def published_us(r):
    """The published figure in microseconds: as given, or FLOPs / TFLOPS."""
    v = float(r["published"])
    if not v > 0 or math.isinf(v):
        raise ValueError(f"published '{r['published']}' is not a positive number")
    if r["unit"] == "us":
        return v
    if r["unit"] == "TFLOPS":
        flop = float(r["flop"])
        if not flop > 0:
            raise ValueError(f"flop '{r['flop']}' is not a positive number (unit TFLOPS)")
        return flop / (v * 1e6)
    raise ValueError(f"unit '{r['unit']}' is not us or TFLOPS")


def select(rows, args):
    if args.rows:
        try:
            rx = re.compile(args.rows)
        except re.error as e:
            raise InputError(f"--rows '{args.rows}': {e}")
        picked = [r for r in rows if rx.search(r["id"]) and r["use"] != "no"]
    elif args.quick:
        picked = [r for r in rows if r["use"] == "quick"]
    elif args.all:
        picked = [r for r in rows if r["use"] != "no"]
    else:
        picked = [r for r in rows if r["use"] in ("quick", "table")]
    if args.gpu:
        picked = [r for r in picked if r["gpu"] in args.gpu]
    return picked


def fetch(git_dir, r, work):
    """The row's code object, checked against the blob rows.tsv names."""
    out = os.path.join(work, r["blob"] + ".co")
    if os.path.exists(out):
        return out
    p = subprocess.run(["git", "-C", git_dir, "rev-parse", "--verify", "-q",
                        f"{r['commit']}:{r['co']}"], capture_output=True, text=True)
    blob = p.stdout.strip()
    if p.returncode != 0:
        raise InputError(f"'{git_dir}': no {r['commit']}:{r['co']} (row {r['id']}; an AITer git "
                         "directory with that commit is needed)")
    if blob != r["blob"]:
        raise InputError(f"'{git_dir}': {r['commit']}:{r['co']} is blob {blob}, rows.tsv says "
                         f"{r['blob']} (row {r['id']})")
    with open(out + ".tmp", "wb") as f:
        subprocess.run(["git", "-C", git_dir, "show", f"{r['commit']}:{r['co']}"], stdout=f,
                       check=True)
    os.replace(out + ".tmp", out)
    return out


def spec_path(r, co, work, git_dir, specs):
    committed = os.path.join(specs, r["id"] + ".json")
    if os.path.exists(committed):
        return committed
    # Rows outside the default table have no committed spec: written here from the object.
    out = os.path.join(work, r["id"] + ".json")
    try:
        text = gen_specs.spec_for(r, git_dir, work)
    except (SystemExit, subprocess.CalledProcessError, OSError) as e:
        raise InputError(f"row {r['id']}: cannot write its spec: {e}")
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    return out


def overhead_us(report, kernel):
    """The modeled launch overhead in microseconds, and where it came from.

    kernel-time reports the launch's cycles with the overhead included and no separate figure;
    this takes the one the report names if a later model adds it, else the parameter file's
    launch_overhead_clk at the report's clock (cycles / microseconds)."""
    for key, scale in (("launch_overhead_us", 1.0), ("launch_overhead_microseconds", 1.0)):
        if key in kernel:
            return float(kernel[key]) * scale, "report"
    mhz = kernel["cycles"] / kernel["microseconds"] if kernel.get("microseconds") else None
    for key in ("launch_overhead_cycles", "launch_overhead_clk"):
        if key in kernel and mhz:
            return float(kernel[key]) / mhz, "report"
    params = report.get("body", {}).get("params")
    try:
        with open(params, encoding="utf-8-sig") as f:
            fig = json.load(f)["figures"]
    except (OSError, TypeError, ValueError, KeyError):
        return None, "unknown"
    if "launch_overhead_us" in fig:
        return float(fig["launch_overhead_us"]["value"]), "params"
    if "launch_overhead_clk" in fig and mhz:
        return float(fig["launch_overhead_clk"]["value"]) / mhz, "params"
    return None, "unknown"


def run_row(r, co, spec, args):
    cmd = [args.kernel_time, co, "--spec", spec, "--json", "--threads", str(args.threads)]
    if args.timeout:
        cmd += ["--timeout", str(args.timeout)]
    if args.max_groups:
        cmd += ["--max-groups", str(args.max_groups)]
    if r["gpu"] in args.params_for:
        cmd += ["--params", args.params_for[r["gpu"]]]
    t0 = time.monotonic()
    try:
        # kernel-time's --timeout bounds the emulation only; this bounds the whole run.
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=2 * args.timeout + 60 if args.timeout else None)
    except subprocess.TimeoutExpired:
        return {"wall_s": round(time.monotonic() - t0, 1), "command": " ".join(cmd),
                "error": f"kernel-time ran past {2 * args.timeout + 60} s and was stopped"}
    wall = time.monotonic() - t0
    res = {"wall_s": round(wall, 1), "command": " ".join(cmd)}
    try:
        rep = json.loads(p.stdout)
    except ValueError:
        res["error"] = f"kernel-time exited {p.returncode} without a report: " + \
            (p.stderr.strip().splitlines() or ["(no message)"])[-1]
        return res
    if p.returncode != 0 or rep.get("outcome") != "ok":
        res["error"] = f"kernel-time exited {p.returncode}: {rep.get('message', '')}"
        return res
    k = rep["body"]["kernels"][0]
    ov, src = overhead_us(rep, k)
    sha = next((i.get("sha256") for i in rep.get("inputs", []) if i.get("role") == "params"),
               None)
    res.update(modeled_us=k["microseconds"], cycles=k["cycles"], overhead_us=ov,
               overhead_from=src, params=rep["body"].get("params"), params_sha256=sha,
               sampling=k.get("sampling"), emulated=k.get("emulated"))
    if r["basis"] == "profiler":
        if ov is None:
            res["error"] = "the modeled launch overhead is not known (neither the report nor " \
                "the parameter file gives it): a profiler-basis row cannot be compared"
            return res
        res["compared_us"] = k["microseconds"] - ov
    else:
        res["compared_us"] = k["microseconds"]
    res["ratio"] = res["compared_us"] / r["published_us"]
    return res


def summarize(done, by_family=False):
    groups = {}
    for d in done:
        if "ratio" in d:
            key = (d["gpu"], d["family"]) if by_family else (d["gpu"],)
            groups.setdefault(key, []).append(d["ratio"])
    out = []
    for key, rs in groups.items():
        within = sum(1 for x in rs if abs(x - 1) <= WITHIN)
        out.append({"gpu": key[0], **({"family": key[1]} if by_family else {}), "rows": len(rs),
                    "geomean": math.exp(sum(math.log(x) for x in rs) / len(rs)),
                    "within": within, "share_within": within / len(rs),
                    "min": min(rs), "max": max(rs)})
    return out


AGREEMENT_FORMAT = "asmevo-model-agreement"
# The issue 38 target the agreement is held to, per GPU.
TARGET = {"geomean_low": 0.85, "geomean_high": 1.15, "share_within": 0.70}


def agreement(doc):
    """The model's agreement per target, as share/asmevo/timing/agreement.json holds it (what
    kernel-time reports beside every modeled figure): per GPU the pairs, their geometric mean of
    modeled/published, the count within +-25%, per family too, and the sha256 of the parameter
    file the rows were modeled with (kernel-time shows the agreement only for that file)."""
    if not doc.get("complete", True):
        raise InputError("the run is not complete (a stopped --json run): finish it first")
    targets = {}
    for d in doc["rows"]:
        if "ratio" not in d:
            continue
        t = targets.setdefault(d["target"], {"shas": set(), "rows": []})
        t["shas"].add(d.get("params_sha256"))
        t["rows"].append(d)
    out = {}
    for target, t in sorted(targets.items()):
        if len(t["shas"]) != 1 or None in t["shas"]:
            raise InputError(f"the {target} rows were not all modeled with one known parameter "
                             "file (no params_sha256, or several): run them again")
        gpus = []
        for g in summarize(t["rows"]):
            fams = [f for f in summarize(t["rows"], by_family=True) if f["gpu"] == g["gpu"]]
            gpus.append({**g, "families": [{k: v for k, v in f.items() if k != "gpu"}
                                           for f in fams]})
        out[target] = {"params_sha256": t["shas"].pop(), "gpus": gpus}
    if not out:
        raise InputError("no row of the run was modeled")
    return {"format": AGREEMENT_FORMAT, "format_version": 1,
            "source": "bench/validate_published.py: AITer code objects modeled at their published "
                      "launch shapes against their published whole-kernel times "
                      "(bench/published/rows.tsv)",
            "command": doc["command"], "date": doc["date"], "within": doc["within"],
            "target": TARGET, "targets": out}


def write_agreement(doc, path):
    a = agreement(doc)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(a, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


def render(doc, w=sys.stdout, before=None):
    w.write("Published whole-kernel times against kernel-time's model (modeled, not measured)\n")
    w.write(f"date {doc['date']}, kernel-time {doc['kernel_time']}\n")
    if not doc.get("complete", True):
        w.write(f"INCOMPLETE: {len(doc['rows'])} of the selected rows done (--resume goes on)\n")
    hdr = ("id", "gpu", "shape", "basis", "pub us", "model us", "ovh us", "cmp us", "ratio",
           "25%", "wall s")
    fmt = "{:<38} {:<7} {:<44} {:<8} {:>9} {:>9} {:>6} {:>9} {:>6} {:>3} {:>6}"
    old = {d["id"]: d for d in before["rows"]} if before else {}
    w.write(fmt.format(*hdr) + (" {:>7}".format("before") if before else "") + "\n")
    for d in doc["rows"]:
        if "ratio" not in d:
            continue
        w.write(fmt.format(d["id"], d["gpu"], d["shape"], d["basis"], f"{d['published_us']:.1f}",
                           f"{d['modeled_us']:.1f}", f"{d['overhead_us']:.2f}"
                           if d.get("overhead_us") is not None else "?",
                           f"{d['compared_us']:.1f}", f"{d['ratio']:.2f}",
                           "yes" if abs(d["ratio"] - 1) <= WITHIN else "no", f"{d['wall_s']:.0f}"))
        if before:
            b = old.get(d["id"], {})
            w.write(" {:>7}".format(f"{b['ratio']:.2f}" if "ratio" in b else "-"))
        w.write("\n")
    w.write("\nper GPU (modeled/published; a GPU's rows only):\n")
    w.write(f"{'gpu':<8} {'rows':>4} {'geomean':>8} {'within 25%':>11} {'min':>6} {'max':>6}\n")
    for g in doc["groups"]:
        w.write(f"{g['gpu']:<8} {g['rows']:>4} {g['geomean']:>8.2f} "
                f"{g['within']:>4}/{g['rows']:<2} {100 * g['share_within']:>3.0f}% "
                f"{g['min']:>6.2f} {g['max']:>6.2f}\n")
    w.write("\nper GPU and family:\n")
    for g in summarize(doc["rows"], by_family=True):
        w.write(f"{g['gpu']:<8} {g['family']:<20} {g['rows']:>4} {g['geomean']:>8.2f} "
                f"{g['within']:>4}/{g['rows']:<2} {100 * g['share_within']:>3.0f}% "
                f"{g['min']:>6.2f} {g['max']:>6.2f}\n")
    if before:
        w.write(f"\nBEFORE ({before['date']}, kernel-time {before['kernel_time']}) and AFTER "
                "(this run), on the rows modeled in both:\n")
        w.write(f"{'gpu':<8} {'rows':>4} {'before geomean':>14} {'within 25%':>10} "
                f"{'after geomean':>13} {'within 25%':>10}\n")
        both = [d for d in doc["rows"] if "ratio" in d and "ratio" in old.get(d["id"], {})]
        after_g = {g["gpu"]: g for g in summarize(both)}
        before_g = {g["gpu"]: g for g in summarize([old[d["id"]] for d in both])}
        for gpu, a in after_g.items():
            b = before_g[gpu]
            w.write(f"{gpu:<8} {a['rows']:>4} {b['geomean']:>14.2f}"
                    f" {100 * b['share_within']:>9.0f}%"
                    f" {a['geomean']:>13.2f} {100 * a['share_within']:>9.0f}%\n")
    failed = [d for d in doc["rows"] if "error" in d]
    if failed:
        w.write("\nnot modeled (left out of the means):\n")
        for d in failed:
            w.write(f"  {d['id']}: {d['error']}\n")
    if doc.get("not_run"):
        w.write(f"\nnot run: {len(doc['not_run'])} rows of rows.tsv (use 'costly' rows run with "
                "--all; 'no' rows never: see their note)\n")
    total = sum(d["wall_s"] for d in doc["rows"])
    w.write(f"\nwall time {total:.0f} s for {len(doc['rows'])} rows; modeled figures, not "
            "measured\n")


def load_run(path):
    with open(path, encoding="utf-8") as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            raise InputError(f"'{path}': not JSON ({e})")
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InputError(f"'{path}': not an {FORMAT} file")
    return doc


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("aiter", nargs="?", help="a git directory of ROCm/aiter with the rows' commits")
    sel = ap.add_mutually_exclusive_group()
    sel.add_argument("--quick", action="store_true", help="only the rows marked quick")
    sel.add_argument("--all", action="store_true", help="also the costly rows")
    sel.add_argument("--rows", metavar="REGEX", help="the rows whose id matches")
    ap.add_argument("--gpu", action="append", help="only this GPU's rows (repeatable)")
    ap.add_argument("--kernel-time", default=os.path.join(ROOT, "build", "bin", "kernel-time"))
    ap.add_argument("--params", action="append", default=[], metavar="GPU=FILE",
                    help="kernel-time --params FILE for this GPU's rows")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--max-groups", type=int, help="kernel-time --max-groups (default its own)")
    ap.add_argument("--timeout", type=int, default=120, metavar="S",
                    help="kernel-time --timeout per row (default 120; 0: none)")
    ap.add_argument("--work-dir", help="keep fetched objects and written specs here")
    ap.add_argument("--table", default=os.path.join(PUBLISHED, "rows.tsv"),
                    help="the published rows (default bench/published/rows.tsv)")
    ap.add_argument("--specs", default=os.path.join(PUBLISHED, "specs"), metavar="DIR",
                    help="the rows' launch specs, ID.json (default bench/published/specs)")
    ap.add_argument("--json", metavar="FILE",
                    help="also write the run as JSON (rewritten after every row)")
    ap.add_argument("--resume", action="store_true",
                    help="keep the rows the --json FILE already has (same kernel-time) and run "
                    "only the others")
    ap.add_argument("--before", metavar="FILE",
                    help="a saved run (--json) to compare with: its ratio per row, and per GPU "
                    "both geometric means and shares on the rows modeled in both")
    ap.add_argument("--from-json", metavar="FILE", help="print a saved run; run nothing")
    ap.add_argument("--agreement", metavar="FILE",
                    help="also write the model's agreement per target (the format of "
                    "share/asmevo/timing/agreement.json) from the run, or from --from-json's")
    ap.add_argument("--list", action="store_true", help="print the selected rows; run nothing")
    args = ap.parse_args(argv)
    try:
        before = load_run(args.before) if args.before else None
        if args.from_json:
            saved = load_run(args.from_json)
            render(saved, before=before)
            if args.agreement:
                write_agreement(saved, args.agreement)
            return 0
        if args.resume and not args.json:
            raise InputError("--resume needs --json FILE (the run to go on with)")
        rows = read_rows(args.table)
        picked = select(rows, args)
        if args.list:
            for r in picked:
                print(f"{r['id']}\t{r['gpu']}\t{r['shape']}\t{r['published_us']:.2f} us\t"
                      f"{r['basis']}\t{r['use']}")
            return 0
        if not args.aiter:
            raise InputError("an AITer git directory is needed (or --from-json/--list)")
        if not picked:
            raise InputError("no row selected")
        args.params_for = {}
        for p in args.params:
            gpu, eq, f = p.partition("=")
            if not eq or not f:
                raise InputError(f"--params '{p}': GPU=FILE expected")
            args.params_for[gpu] = f
        if not os.access(args.kernel_time, os.X_OK):
            raise InputError(f"'{args.kernel_time}': not an executable (build kernel-time, or "
                             "--kernel-time PATH)")
        kept = {}
        if args.resume and os.path.exists(args.json):
            prev = load_run(args.json)
            kept = {d["id"]: d for d in prev["rows"]
                    if prev["kernel_time"] == args.kernel_time}
        doc = {"format": FORMAT, "format_version": 1,
               "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + argv),
               "kernel_time": args.kernel_time, "bases": BASES, "within": WITHIN,
               "not_run": [r["id"] for r in rows if r not in picked]}

        def save(done, complete):
            doc.update(date=datetime.datetime.now(datetime.timezone.utc)
                       .strftime("%Y-%m-%d %H:%M UTC"), rows=done, groups=summarize(done),
                       complete=complete)
            if args.json:
                with open(args.json + ".tmp", "w", encoding="utf-8") as f:
                    json.dump(doc, f, indent=1)
                    f.write("\n")
                os.replace(args.json + ".tmp", args.json)

        with tempfile.TemporaryDirectory() as tmp:
            work = args.work_dir or tmp
            os.makedirs(work, exist_ok=True)
            done = []
            static_errors = {}  # blob -> (row id, error) for failures that do not depend on shape
            for i, r in enumerate(picked, 1):
                k = kept.get(r["id"])
                if k and k.get("blob") == r["blob"] and k.get("published_us") == r["published_us"]:
                    done.append(k)
                    continue
                co = fetch(args.aiter, r, work)
                spec = spec_path(r, co, work, args.aiter, args.specs)
                print(f"[{i}/{len(picked)}] {r['id']} ...", file=sys.stderr, flush=True)
                if r["blob"] in static_errors:
                    first, err = static_errors[r["blob"]]
                    res = {"wall_s": 0.0, "error": f"not run: the same object failed on {first}: "
                           + err}
                else:
                    res = run_row(r, co, spec, args)
                    if "error" in res and STATIC_ERROR.search(res["error"]):
                        static_errors[r["blob"]] = (r["id"], res["error"])
                d = {k: r[k] for k in COLUMNS}
                d["published_us"] = r["published_us"]
                d.update(res)
                done.append(d)
                msg = (f"ratio {d['ratio']:.2f}" if "ratio" in d else d["error"])
                print(f"[{i}/{len(picked)}] {r['id']}: {msg} ({d['wall_s']:.0f} s)",
                      file=sys.stderr, flush=True)
                save(done, False)  # a stopped run keeps its rows (--resume)
        save(done, True)
        render(doc, before=before)
        if args.agreement:
            write_agreement(doc, args.agreement)
        return 0
    except InputError as e:
        print(f"validate_published: error: {e}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as e:
        print(f"validate_published: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
