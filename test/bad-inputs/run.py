#!/usr/bin/env python3
"""Run the bad-input corpus (cases.tsv) against the tools; see README.md in this folder.

    run.py BIN_DIR WORK_DIR [-j N] [-k REGEX] [--keep] [--list]

WORK_DIR/inputs must hold gen.py's inputs; the cases are cases.tsv's and every cases-*.tsv's
(each file with its own directives). Every case runs in its own scratch directory
(WORK_DIR/run/<case>) holding copies of the inputs it names, and must: exit with exactly the
expected code; never crash (killed by a signal, exit >= 128) nor print a sanitizer report;
print "<tool>: error: " (a refusal, exit 1: "<tool>: refused: ") and match the case's
stderr pattern, which names the input; leave no new file behind (no output, no temporary);
leave every input byte-identical; and with --json write one report envelope on stdout with
the outcome of that exit code. Cases expected to exit 0 (the controls that show each mode's
command line is right) are checked for crashes, sanitizer reports and the exit code only.
Prints one line per failing case and a summary; exits 1 if any case failed.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|"
                       r"MemorySanitizer|ThreadSanitizer|runtime error:")
OUTCOME_OF_EXIT = {2: "input_error", 3: "runtime_error"}
TIMEOUT = 120


class Case:
    def __init__(self, cid, tool, argv_text, exit_code, pattern, setup, in_text):
        self.id, self.tool, self.argv_text = cid, tool, argv_text
        self.exit, self.pattern, self.setup, self.in_text = exit_code, pattern, setup, in_text

    @property
    def category(self):
        return self.id.split(".", 1)[0]


def load(path):
    """Read cases.tsv: #! directives, then one case per line (see its header)."""
    modes, bases, sets, cases = {}, {}, {}, []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if line.startswith("#!"):
            f = line[2:].split("\t")
            if f[0] == "mode":
                modes[f[1]] = (f[2], f[3])
            elif f[0] == "base":
                bases[f[1]] = dict(kv.split("=", 1) for kv in f[2:])
            elif f[0] == "set":
                sets[f[1]] = f[2].split()
            else:
                sys.exit("%s:%d: unknown directive %s" % (path, n, f[0]))
            continue
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split("\t")
        if len(f) not in (5, 6):
            sys.exit("%s:%d: expected 5 or 6 tab-separated fields, got %d" % (path, n, len(f)))
        cid, tool, code, pattern, args = f[:5]
        setup = f[5] if len(f) == 6 else ""
        if tool.startswith("@"):
            set_name, base = tool[1:].split(":")
            for mode in sets[set_name]:
                mtool, template = modes[mode]
                text = template.replace("{IN}", args)
                for k, v in bases[base].items():
                    text = text.replace("{%s}" % k, v)
                cases.append(Case("%s/%s" % (cid, mode), mtool, text, int(code), pattern, setup,
                                  args))
        else:
            cases.append(Case(cid, tool, args, int(code), pattern, setup, None))
    ids = [c.id for c in cases]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit("%s: duplicate case ids: %s" % (path, " ".join(sorted(dup))))
    return cases


FILE_REF = re.compile(r"\{(/?)([A-Za-z0-9_.+-]+)\}")


def resolve(text, inputs, scratch):
    """Copy every {name} / {/name} input into scratch; give the name / absolute path."""

    def sub(m):
        name = m.group(2)
        if name == "SCRATCH":
            return scratch
        src = os.path.join(inputs, name)
        dst = os.path.join(scratch, name)
        if not os.path.lexists(dst):
            if os.path.isdir(src):
                shutil.copytree(src, dst, symlinks=True)
            elif os.path.isfile(src):
                shutil.copyfile(src, dst)
            else:
                raise FileNotFoundError("case names input %s, which gen.py did not make" % name)
        return dst if m.group(1) else name

    return FILE_REF.sub(sub, text)


def snapshot(root):
    """{relative path: sha256 or 'dir'} of everything under root."""
    out = {}
    for d, dirs, files in os.walk(root):
        for x in dirs:
            out[os.path.relpath(os.path.join(d, x), root)] = "dir"
        for x in files:
            p = os.path.join(d, x)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = hashlib.sha256(f.read()).hexdigest()
    return out


def check_report(case, stdout, schema):
    try:
        report = json.loads(stdout)
    except ValueError as e:
        return "--json: stdout is not one JSON document (%s): %r" % (e, stdout[:120])
    if not isinstance(report, dict):
        return "--json: stdout is not a JSON object"
    want = OUTCOME_OF_EXIT.get(case.exit)
    if case.exit == 1:
        want = "refused"
    problems = []
    if want and report.get("outcome") != want:
        problems.append("outcome %r, expected %r" % (report.get("outcome"), want))
    if report.get("exit_code") != case.exit:
        problems.append("exit_code %r, expected %d" % (report.get("exit_code"), case.exit))
    if report.get("tool") != case.tool:
        problems.append("tool %r" % report.get("tool"))
    if not report.get("message"):
        problems.append("empty message")
    if schema is not None:
        import jsonschema
        try:
            jsonschema.validate(report, schema, cls=jsonschema.Draft202012Validator)
        except jsonschema.ValidationError as e:
            problems.append("schema: %s at %s" % (e.message, list(e.absolute_path)))
    return "--json: " + "; ".join(problems) if problems else None


def run_case(case, bin_dir, work, schema, keep):
    scratch = os.path.join(work, "run", case.id.replace("/", "__"))
    if os.path.isdir(scratch):
        shutil.rmtree(scratch)
    os.makedirs(scratch)
    inputs = os.path.join(work, "inputs")
    try:
        argv = [resolve(t, inputs, scratch) for t in shlex.split(case.argv_text)]
        in_text = resolve(case.in_text, inputs, scratch) if case.in_text is not None else ""
        env = dict(os.environ)
        for item in filter(None, case.setup.split(",")):
            kind, _, arg = item.partition(":")
            if kind == "env":  # env:NAME=VALUE, VALUE with {name} / {/name} resolved
                name, _, value = arg.partition("=")
                env[name] = resolve(value, inputs, scratch)
                continue
            if kind != "mkdir":
                raise ValueError("unknown setup %r" % item)
            os.makedirs(os.path.join(scratch, resolve(arg, inputs, scratch)), exist_ok=True)
    except (OSError, ValueError) as e:
        return case, ["case set-up: %s" % e], "", 0.0
    before = snapshot(scratch)
    t0 = time.monotonic()
    try:
        p = subprocess.run([os.path.join(bin_dir, case.tool)] + argv, cwd=scratch, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=TIMEOUT)
        rc, out = p.returncode, p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return case, ["timed out after %d s" % TIMEOUT], "", time.monotonic() - t0
    except OSError as e:
        return case, ["cannot run %s: %s" % (case.tool, e)], "", 0.0
    dt = time.monotonic() - t0
    fails = []
    if rc < 0 or rc >= 128:
        fails.append("crashed (%s)" % ("signal %d" % -rc if rc < 0 else "exit %d" % rc))
    m = SANITIZER.search(err)
    if m:
        line = next(l for l in err.splitlines() if SANITIZER.search(l))
        fails.append("sanitizer report: %s" % line.strip()[:200])
    if rc != case.exit:
        fails.append("exit %d, expected %d" % (rc, case.exit))
    if case.exit != 0:
        word = "refused" if case.exit == 1 else "error"
        prefix = "%s: %s: " % (case.tool, word)
        if not any(l.startswith(prefix) for l in err.splitlines()):
            fails.append("no line starting %r on stderr" % prefix)
        pattern = (case.pattern.replace("{TOOL}", re.escape(case.tool))
                   .replace("{IN}", re.escape(in_text))
                   .replace("{SCRATCH}", re.escape(scratch)))
        if not re.search(pattern, err, re.M):
            fails.append("stderr does not match /%s/" % pattern)
        after = snapshot(scratch)
        new = sorted(set(after) - set(before))
        if new:
            fails.append("left new files: %s" % " ".join(new[:5]))
        changed = sorted(k for k in before if k in after and before[k] != after[k])
        gone = sorted(set(before) - set(after))
        if changed or gone:
            fails.append("inputs changed or removed: %s" % " ".join((changed + gone)[:5]))
        if "--json" in argv:
            r = check_report(case, out, schema)
            if r:
                fails.append(r)
    if not fails and not keep:
        shutil.rmtree(scratch, ignore_errors=True)
    first = next((l for l in err.splitlines() if l.strip()), "")
    return case, fails, first, dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bin_dir")
    ap.add_argument("work")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("-k", "--only", help="run only the cases whose id matches this regex")
    ap.add_argument("--keep", action="store_true", help="keep every scratch directory")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    a = ap.parse_args()
    bin_dir, work = os.path.abspath(a.bin_dir), os.path.abspath(a.work)
    cases = []
    for name in sorted(os.listdir(HERE)):
        if name == "cases.tsv" or (name.startswith("cases-") and name.endswith(".tsv")):
            cases += load(os.path.join(HERE, name))
    ids = [c.id for c in cases]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        sys.exit("cases*.tsv: duplicate case ids: %s" % " ".join(dup))
    if a.only:
        cases = [c for c in cases if re.search(a.only, c.id)]
    if a.list:
        for c in cases:
            print("%s\t%s\t%d\t%s" % (c.id, c.tool, c.exit, c.argv_text))
        return 0
    schema = None
    try:
        import jsonschema  # noqa: F401 (Debian's python3-jsonschema; optional)
        src = os.path.dirname(os.path.dirname(HERE))
        with open(os.path.join(src, "share/asmevo/report.schema.json")) as f:
            schema = json.load(f)
    except ImportError:
        pass
    t0 = time.monotonic()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = [ex.submit(run_case, c, bin_dir, work, schema, a.keep) for c in cases]
        for f in futs:  # in manifest order
            case, fails, first, dt = f.result()
            results.append((case, fails, dt))
            if fails:
                print("FAIL %s: %s | %s %s | stderr: %s" % (
                    case.id, "; ".join(fails), case.tool, case.argv_text, first[:300]),
                    flush=True)
    wall = time.monotonic() - t0
    per = {}
    for case, fails, _ in results:
        k = (case.tool, case.category)
        n = per.setdefault(k, [0, 0])
        n[0] += 1
        n[1] += bool(fails)
    print("\n%-18s %-10s %6s %6s" % ("tool", "category", "cases", "failed"))
    for (tool, cat), (n, f) in sorted(per.items()):
        print("%-18s %-10s %6d %6d" % (tool, cat, n, f))
    slow = sorted(results, key=lambda r: -r[2])[:5]
    print("slowest: " + ", ".join("%s %.1f s" % (c.id, dt) for c, _, dt in slow))
    nfail = sum(1 for _, f, _ in results if f)
    print("bad-inputs: %d cases, %d failed, %d passed (%.1f s, %d jobs; %s)" % (
        len(results), nfail, len(results) - nfail, wall, a.jobs, bin_dir))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
