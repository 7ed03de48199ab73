#!/usr/bin/env python3
"""The synchronisation mutation suite: does kernel-diffcheck reject code that is only correct by
luck of timing, and accept synchronisation edits that change nothing?

For every kernel of the Triton corpus (test/corpus/triton/<arch>/<name>.hsaco with a spec
test/specs/<name>.json) and of the compiled clang corpus (<corpus>/clang/<arch>/<source>.hsaco
with a spec test/specs/clang/<source>-<kernel>.json), K0 is recovered (hsaco-recover) and
mutants of these kinds are made from the kernel's body (the kernel's own label to its .size,
after the kernarg-preload prologue), one edit each, rebuilt with hsaco-rebuild --abi-of K0 and
checked with kernel-diffcheck K0 K1 --spec:

  waitcnt-delete  an s_waitcnt deleted (the line removed)
  waitcnt-relax   one counter of an s_waitcnt one higher (vmcnt(0) -> vmcnt(1)); one mutant
                  per counter the wait constrains below its maximum
  nop-delete      an s_nop deleted (the line removed: its wait states are gone)
  barrier-delete  an s_barrier deleted
  load-hoist      a load (ds_read*, global_load*, buffer_load*, flat_load*) that follows an
                  s_barrier or s_waitcnt W in the same basic block, with no memory, wait, barrier
                  or branch instruction between, moved to just above W; only when no
                  instruction between writes a register the load reads or touches one it
                  writes (so the move is otherwise legal)

Each mutant's class comes from facts measured on K0 with the spec's launch (kernel-run
--sync-profile on the inputs of seeds 1, 2 and 3, each with its seed as the interleaving seed;
the profiles merged: most outstanding, executions summed), never from the checker under test:

  not-executed  the edited instruction never ran (waits: absent from K0's profile; nops,
                barriers, hoist sites behind a barrier: a probe, K0 with a no-op
                `s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)` before each, profiled the same way)
  harmless      waitcnt-delete: at every execution, every counter the wait constrains had no
                more operations outstanding than its count (the wait never retired anything);
                waitcnt-relax: the same for the counter relaxed (the wait never retired anything
                in it, so the relaxed wait behaves the same);
                barrier-delete: the launch's workgroup is one wave (block size <= 64);
                load-hoist: the workgroup is one wave (over a barrier), or nothing was
                outstanding in any counter at any execution of the wait (over a wait), and in
                both cases none of the 20 instructions before W (all in the load's basic block)
                touches a register the load reads or writes, so no wait-state hazard moves
  needed        everything else (must be rejected: unsafe or divergent); nop-delete always
  abi_invalid   the mutant does not rebuild (reported separately)

A harmless waitcnt-delete may also be rejected as unsafe when the checker's first finding is a
wait-state rule (not pending-read / pending-overwrite / lds-race / global-race): the wait was
also a wait state. The mutants listed in sync_reviewed.tsv (kernel id, kind, line, category,
reason) are tolerated either way and counted per category.

  sync_mutants.py run --tools DIR --corpus DIR --work DIR [options] [KERNEL...]
  sync_mutants.py list IN.s KERNEL             the mutants of one recovered kernel
  sync_mutants.py apply IN.s OUT.s KERNEL ID   write one mutant (ID as `list` prints it)

KERNEL selects kernels by id (<arch>/<name> for Triton, clang/<arch>/<spec> for clang) or any
substring of it. See README.md for the options and the output.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate  # noqa: E402  (kernel_range: where a kernel's body starts and ends)

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", ".."))

COUNTER_MAX = {"vmcnt": 63, "expcnt": 7, "lgkmcnt": 15}
PROFILE_KEY = {"vmcnt": "vm", "lgkmcnt": "lgkm"}  # expcnt is not profiled
PROBE = "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15) ; sync-probe"
LOAD_RE = re.compile(r"^(ds_read|global_load|buffer_load|flat_load)")
MEM_RE = re.compile(r"^(ds_|global_|buffer_|flat_|scratch_|s_load|s_buffer_|s_store|s_atomic|"
                    r"s_dcache|s_memtime|s_memrealtime|tbuffer_|image_|exp\b|s_sendmsg)")
TERMINATOR_RE = re.compile(r"^(s_branch|s_cbranch|s_setpc|s_swappc|s_endpgm|s_trap|s_rfe|"
                           r"s_call|s_getpc)")
HAZARD_WINDOW = 20
# kernel-diffcheck's synchronisation rules; every other strict rule is a wait-state rule
SYNC_RULES = ("pending-read", "pending-overwrite", "lds-race", "global-race")


# ---------------------------------------------------------------- assembly text

def kernel_range(lines, kernel):
    """(label, body, end) line indices of KERNEL, as mutate.py finds them."""
    try:
        return mutate.kernel_range(lines, kernel)
    except ValueError:
        raise RuntimeError("no label '%s:'" % kernel)


def insn_text(line):
    """The instruction on a line, without comment, or None (label, directive, comment)."""
    s = line.split(";", 1)[0].strip()
    if not s or s.startswith(".") or s.endswith(":"):
        return None
    return s


def is_label(line):
    s = line.split(";", 1)[0].strip()
    return bool(s) and s.endswith(":") and not s.startswith(".p2align")


def mnemonic(text):
    return text.split(None, 1)[0]


def operands(text):
    parts = text.split(None, 1)
    return parts[1] if len(parts) > 1 else ""


REG_RE = re.compile(r"\b(?:([vsa])\[(\d+):(\d+)\]|([vsa])(\d+)|(vcc|exec|m0|scc|flat_scratch|"
                    r"xnack_mask)(?:_lo|_hi)?|(ttmp)\[?(\d+)(?::(\d+)\])?)\b")


def regs_of(ops):
    """The set of registers an operand string names: ('v', n), ('s', n), ('a', n), ('vcc', 0)..."""
    out = set()
    for m in REG_RE.finditer(ops):
        if m.group(1):
            for n in range(int(m.group(2)), int(m.group(3)) + 1):
                out.add((m.group(1), n))
        elif m.group(4):
            out.add((m.group(4), int(m.group(5))))
        elif m.group(6):
            out.add((m.group(6), 0))
        else:
            lo = int(m.group(8))
            hi = int(m.group(9)) if m.group(9) else lo
            for n in range(lo, hi + 1):
                out.add(("ttmp", n))
    return out


def first_operand(ops):
    depth = 0
    for i, c in enumerate(ops):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        elif c == "," and depth == 0:
            return ops[:i]
    return ops.split(None, 1)[0] if ops else ""


def load_regs(text):
    """(reads, writes) of a load."""
    mn, ops = mnemonic(text), operands(text)
    lds_dma = " lds" in (" " + ops) or "_lds_" in mn
    reads = {("exec", 0), ("m0", 0)}
    if lds_dma:
        return reads | regs_of(ops), set()
    dst = first_operand(ops)
    rest = ops[len(dst):]
    return reads | regs_of(rest), regs_of(dst)


def insn_regs(text):
    """(written, touched) of any instruction, conservatively: every register operand counts
    as written, plus the implicit ones."""
    mn, ops = mnemonic(text), operands(text)
    regs = regs_of(ops)
    written = set(regs)
    touched = set(regs)
    if mn.startswith("s_"):
        written.add(("scc", 0))
        touched.add(("scc", 0))
    if mn.startswith("v_"):
        touched.add(("exec", 0))
        if mn.endswith("_e32") or "cndmask" in mn or "_co_" in mn or "addc" in mn or "subb" in mn:
            written.add(("vcc", 0))
            touched.add(("vcc", 0))
        if "readlane" in mn or "readfirstlane" in mn or "writelane" in mn:
            touched.add(("m0", 0))
    if "exec" in mn or "cmpx" in mn:
        written.add(("exec", 0))
        touched.add(("exec", 0))
    return written, touched


def parse_waitcnt(text):
    """{counter: value} for the counters an s_waitcnt names (raw immediates decoded as gfx9)."""
    ops = operands(text)
    got = {c: int(v) for c, v in re.findall(r"(vmcnt|expcnt|lgkmcnt)\((\d+)\)", ops)}
    if not got:
        m = re.match(r"^\s*(0x[0-9a-fA-F]+|\d+)\s*$", ops)
        if not m:
            raise RuntimeError("cannot parse '%s'" % text)
        imm = int(m.group(1), 0)
        got = {"vmcnt": (imm & 0xF) | ((imm >> 14) & 3) << 4, "expcnt": (imm >> 4) & 7,
               "lgkmcnt": (imm >> 8) & 0xF}
    return got


def constrained(counts):
    return {c: v for c, v in counts.items() if v < COUNTER_MAX[c]}


# ---------------------------------------------------------------- enumeration

class Mutant:
    def __init__(self, kind, line, text, **kw):
        self.kind, self.line, self.text = kind, line, text  # line: 0-based index of the site
        self.counter = kw.get("counter")      # waitcnt-relax: the counter relaxed
        self.counts = kw.get("counts")        # waits: {counter: value}
        self.load = kw.get("load")            # load-hoist: 0-based index of the load
        self.site = kw.get("site", line)      # the line whose execution decides "executed"
        self.offset = None                    # byte offset of the site from the kernel entry
        self.cls = None
        self.basis = ""

    @property
    def ident(self):
        base = "%s@%d" % (self.kind, self.line + 1)
        if self.counter:
            base += ":" + self.counter
        if self.load is not None:
            base += "<%d" % (self.load + 1)
        return base


def enumerate_mutants(lines, kernel):
    start, body, end = kernel_range(lines, kernel)
    muts = []
    for i in range(body, end):
        t = insn_text(lines[i])
        if t is None:
            continue
        mn = mnemonic(t)
        if mn == "s_waitcnt":
            counts = parse_waitcnt(t)
            muts.append(Mutant("waitcnt-delete", i, t, counts=counts))
            for c, v in sorted(constrained(counts).items()):
                muts.append(Mutant("waitcnt-relax", i, t, counts=counts, counter=c))
        elif mn == "s_nop":
            muts.append(Mutant("nop-delete", i, t))
        elif mn == "s_barrier":
            muts.append(Mutant("barrier-delete", i, t))
        if mn in ("s_waitcnt", "s_barrier"):
            h = hoist_candidate(lines, i, end)
            if h is not None:
                muts.append(Mutant("load-hoist", i, t, load=h,
                                   counts=parse_waitcnt(t) if mn == "s_waitcnt" else None))
    return muts


def hoist_candidate(lines, w, end):
    """The index of the load to hoist above the wait/barrier at w, or None."""
    between = []
    for j in range(w + 1, end):
        if is_label(lines[j]):
            return None
        t = insn_text(lines[j])
        if t is None:
            continue
        mn = mnemonic(t)
        if LOAD_RE.match(mn):
            reads, writes = load_regs(t)
            for b in between:
                bw, bt = insn_regs(b)
                if reads & bw or writes & bt:
                    return None
            return j
        if MEM_RE.match(mn) or TERMINATOR_RE.match(mn) or mn in ("s_waitcnt", "s_barrier") \
                or mn.startswith("s_waitcnt"):
            return None
        between.append(t)
    return None


def apply_mutant(lines, m):
    out = list(lines)
    if m.kind in ("waitcnt-delete", "nop-delete", "barrier-delete"):
        out[m.line] = "\t; sync-mutant: deleted: " + lines[m.line].strip()
    elif m.kind == "waitcnt-relax":
        new = m.counts[m.counter] + 1
        line, n = re.subn(r"\b%s\(\d+\)" % m.counter, "%s(%d)" % (m.counter, new), lines[m.line])
        if n != 1:
            raise RuntimeError("cannot relax '%s'" % lines[m.line].strip())
        out[m.line] = line + " ; sync-mutant: relaxed"
    elif m.kind == "load-hoist":
        load = out.pop(m.load)
        out.insert(m.line, load + " ; sync-mutant: hoisted")
    else:
        raise RuntimeError("unknown kind " + m.kind)
    return out


def probe_lines(lines, kernel, sites):
    """K0's text with a no-op wait before each site line; returns (lines, {site: probe index})."""
    out, where = [], {}
    for i, l in enumerate(lines):
        if i in sites:
            where[i] = len(out)
            out.append("\t" + PROBE)
        out.append(l)
    return out, where


# ---------------------------------------------------------------- offsets

def objdump_offsets(objdump, hsaco, kernel):
    """[(offset, mnemonic)] of the kernel's instructions, in order."""
    r = subprocess.run([objdump, "-d", "--no-show-raw-insn", "--disassemble-symbols=" + kernel,
                        hsaco], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("llvm-objdump failed: " + r.stderr.strip()[:300])
    out, base, inside = [], None, False
    for l in r.stdout.split("\n"):
        m = re.match(r"^([0-9a-f]+) <(.*)>:$", l)
        if m:
            inside = m.group(2) == kernel
            if inside:
                base = int(m.group(1), 16)
            continue
        if not inside:
            continue
        m = re.match(r"^\s+(\S+).*//\s*([0-9A-Fa-f]+):", l)
        if m:
            out.append((int(m.group(2), 16) - base, m.group(1)))
    return out


def line_offsets(lines, kernel, disasm):
    """{line index: byte offset} for every instruction line from the kernel's label to its .size,
    matched in order with the disassembly (mnemonics must agree)."""
    start, body, end = kernel_range(lines, kernel)
    idx = [i for i in range(start + 1, end) if insn_text(lines[i]) is not None]
    # objdump runs on past the symbol's end into the padding that follows (s_code_end fill)
    if len(idx) > len(disasm):
        raise RuntimeError("%d instruction lines but %d disassembled instructions" %
                           (len(idx), len(disasm)))
    res = {}
    for i, (off, mn) in zip(idx, disasm):
        if mnemonic(insn_text(lines[i])) != mn:
            raise RuntimeError("line %d '%s' vs disassembly '%s' at +0x%x" %
                               (i + 1, insn_text(lines[i]), mn, off))
        res[i] = off
    return res


# ---------------------------------------------------------------- tools

def run(cmd, timeout=600, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def verdict_of(r):
    """The outcome of kernel-diffcheck's report envelope, and its body with the outcome as
    "verdict" and the envelope's message; an input error (or no report) as "error:RC:message"."""
    try:
        e = json.loads(r.stdout)
        j = dict(e["body"], verdict=e["outcome"], message=e["message"])
    except Exception:
        return "error:%d:%s" % (r.returncode, (r.stderr or r.stdout).strip()[:300]), None
    if e["outcome"] == "input_error":
        return "error:%d:%s" % (r.returncode, e["message"][:300]), None
    return e["outcome"], j


def kernel_run_args(spec, dump_seed_dir):
    a = ["--kernel", spec["kernel"]]
    blk = spec["block"]
    a += ["--block", ",".join(str(x) for x in blk)]
    if "grid" in spec:
        a += ["--grid", ",".join(str(x) for x in spec["grid"])]
    else:
        a += ["--grid-items", ",".join(str(x) for x in spec["grid_items"])]
    a += ["--dynamic-lds", str(spec.get("dynamic_lds", 0))]
    for n, arg in enumerate(spec["args"]):
        name = arg["arg"] if arg["arg"].startswith("#") else arg["arg"]
        if "value" in arg:
            v = arg["value"]
            if v == "null":
                val = "null"
            elif isinstance(v, str) and v.startswith("hex:"):
                val = v
            else:
                if isinstance(v, str) and v.lower().startswith("0x"):
                    v = int(v, 16)
                val = str(v)
                if isinstance(v, float) and not re.search(r"[.eEn]", val):
                    val += ".0"
                if arg.get("type"):
                    val = arg["type"] + ":" + val
        else:
            files = glob.glob(os.path.join(dump_seed_dir, "%d_*.in.bin" % n))
            if len(files) != 1:
                raise RuntimeError("no dumped input for argument %d in %s" % (n, dump_seed_dir))
            val = "@" + files[0]
        a += ["--arg", "%s=%s" % (name, val)]
    return a


def merged_profile(tools, hsaco, spec, dump, work, tag, seeds):
    """{offset: {"executions": n, "vm": a, "lgkm": b}} over the seeds' runs."""
    prof = {}
    for s in seeds:
        pf = os.path.join(work, "%s.seed%d.profile.json" % (tag, s))
        cmd = [tools["run"], hsaco] + kernel_run_args(spec, os.path.join(dump, "seed%d" % s)) + \
            ["--seed", str(s), "--threads", "1", "-q", "--strict", "--sync-profile", pf]
        r = run(cmd)
        if not os.path.exists(pf):
            raise RuntimeError("kernel-run --sync-profile wrote nothing (exit %d): %s" %
                               (r.returncode, r.stderr.strip()[:400]))
        with open(pf) as f:
            p = json.load(f)
        for w in p["waits"]:
            e = prof.setdefault(w["offset"], {"executions": 0, "vm": 0, "lgkm": 0})
            e["executions"] += w["executions"]
            mo = w.get("max_outstanding", {})
            e["vm"] = max(e["vm"], mo.get("vm", 0))
            e["lgkm"] = max(e["lgkm"], mo.get("lgkm", 0))
    return prof


# ---------------------------------------------------------------- classification

def classify(m, lines, offsets, prof, probe_exec, waves):
    """Sets m.cls and m.basis from K0's facts."""
    kind = m.kind
    # executed?
    site = m.line
    if kind.startswith("waitcnt") or (kind == "load-hoist" and m.counts is not None):
        p = prof.get(offsets[site])
        executed = p is not None and p["executions"] > 0
    else:
        executed = probe_exec.get(site, 0) > 0
        p = None
    if not executed:
        m.cls, m.basis = "not-executed", "never ran"
        return
    if kind in ("waitcnt-delete", "waitcnt-relax"):
        cs = constrained(m.counts) if kind == "waitcnt-delete" else {m.counter: m.counts[m.counter]}
        facts, harmless = [], True
        for c, v in sorted(cs.items()):
            if c not in PROFILE_KEY:
                harmless = False
                facts.append("%s(%d) not profiled" % (c, v))
                continue
            out = p[PROFILE_KEY[c]]
            facts.append("%s: max %d outstanding, count %d" % (c, out, v))
            if out > v:
                harmless = False
        m.cls = "harmless" if harmless else "needed"
        m.basis = "%s; %d executions" % ("; ".join(facts) or "constrains nothing", p["executions"])
    elif kind == "barrier-delete":
        m.cls = "harmless" if waves == 1 else "needed"
        m.basis = "%d wave%s per workgroup" % (waves, "" if waves == 1 else "s")
    elif kind == "nop-delete":
        m.cls, m.basis = "needed", "default (wait states not measured)"
    elif kind == "load-hoist":
        reads, writes = load_regs(insn_text(lines[m.load]))
        # the hazard guard: 20 instructions before W, all in the same block, none touching
        # the load's registers
        guard, n, j = True, 0, m.line - 1
        while n < HAZARD_WINDOW:
            if j < 0 or is_label(lines[j]):
                guard = False
                break
            t = insn_text(lines[j])
            if t is not None:
                if TERMINATOR_RE.match(mnemonic(t)) or t.startswith("s_endpgm"):
                    guard = False
                    break
                bw, bt = insn_regs(t)
                if reads & bw or writes & bt:
                    guard = False
                    break
                n += 1
            j -= 1
        if m.counts is None:
            ok = waves == 1
            why = "over a barrier, %d wave%s per workgroup" % (waves, "" if waves == 1 else "s")
        else:
            ok = p["vm"] == 0 and p["lgkm"] == 0
            why = "over a wait: max vm %d, lgkm %d outstanding" % (p["vm"], p["lgkm"])
        if ok and not guard:
            why += "; the %d instructions before it are not all in the block or touch the " \
                   "load's registers" % HAZARD_WINDOW
        m.cls = "harmless" if ok and guard else "needed"
        m.basis = why if m.cls == "harmless" or ok else why + " (default: needed)"


# ---------------------------------------------------------------- the suite

class Kernel:
    def __init__(self, kid, arch, hsaco, spec_path):
        self.kid, self.arch, self.hsaco, self.spec_path = kid, arch, hsaco, spec_path
        with open(spec_path) as f:
            self.name = json.load(f)["kernel"]
        self.error = None
        self.skip = None
        self.k0_verdict = None
        self.k0_json = None
        self.mutants = []
        self.sampled = 0


def find_kernels(corpus, filters):
    ks = []
    for spec in sorted(glob.glob(os.path.join(SRC, "test/specs/*.json"))):
        stem = os.path.basename(spec)[:-5]
        for arch in ("gfx90a", "gfx942", "gfx950"):
            h = os.path.join(SRC, "test/corpus/triton", arch, stem + ".hsaco")
            if os.path.exists(h):
                ks.append(Kernel("%s/%s" % (arch, stem), arch, h, spec))
    for spec in sorted(glob.glob(os.path.join(SRC, "test/specs/clang/*.json"))):
        stem = os.path.basename(spec)[:-5]
        source = stem.split("-", 1)[0]
        for arch in ("gfx90a", "gfx942"):  # the archs the clang specs are checked on
            h = os.path.join(corpus, "clang", arch, source + ".hsaco")
            ks.append(Kernel("clang/%s/%s" % (arch, stem), arch, h, spec))
    if filters:
        ks = [k for k in ks if any(f == k.kid or f in k.kid for f in filters)]
    return ks


def prepare(k, tools, work, seeds, log):
    """Recover K0, infer the full spec, K0 vs K0, profile, probe, enumerate, classify."""
    d = os.path.join(work, k.kid.replace("/", "-"))
    os.makedirs(d, exist_ok=True)
    k.dir = d
    if not os.path.exists(k.hsaco):
        k.error = "missing %s (run the corpus.build-clang test first)" % k.hsaco
        return
    k.s = os.path.join(d, "k0.s")
    r = run([tools["recover"], k.hsaco, "-o", k.s, "-q"])
    if r.returncode != 0:
        k.error = "hsaco-recover failed: " + r.stderr.strip()[:300]
        return
    # The full spec (inference once; every mutant then runs on exactly this launch).
    k.full = os.path.join(d, "spec.full.json")
    r = run([tools["diffcheck"], k.hsaco, "--infer", "--spec", k.spec_path, "-o", k.full, "-q",
             "--threads", "1"])
    if r.returncode != 0:
        msg = (r.stderr or r.stdout).strip()
        if "unsupported instruction" in msg:
            k.skip = "the emulator does not run K0: " + msg[:200]
        else:
            k.error = "launch inference failed (exit %d): %s" % (r.returncode, msg[:300])
        return
    with open(k.full) as f:
        k.spec = json.load(f)
    # K0 vs K0 with strict checks (and its inputs for the profile runs).
    dump = os.path.join(d, "inputs")
    shutil.rmtree(dump, ignore_errors=True)
    r = run([tools["diffcheck"], k.hsaco, k.hsaco, "--spec", k.full, "--json", "--threads", "1",
             "--dump-inputs", dump] + tools["check_opts"])
    k.k0_verdict, k.k0_json = verdict_of(r)
    if k.k0_verdict.startswith("error") and "unsupported instruction" in k.k0_verdict:
        k.skip = "the emulator does not run K0: " + k.k0_verdict[:200]
        return
    if k.k0_verdict != "ok":
        k.k0_detail = summarize_findings(k.k0_json) if k.k0_json else ""
    lines = open(k.s).read().split("\n")
    k.lines = lines
    try:
        dis = objdump_offsets(tools["objdump"], k.hsaco, k.name)
        offsets = line_offsets(lines, k.name, dis)
        k.offsets = offsets
        muts = enumerate_mutants(lines, k.name)
        for m in muts:
            m.offset = offsets[m.line]
        bs = k.spec["block"]
        items = 1
        for x in bs:
            items *= x
        waves = (items + 63) // 64
        if tools.get("unprofiled"):
            for m in muts:
                m.cls, m.basis = "needed", "unprofiled (debugging run)"
            k.mutants, k.waves = muts, waves
            return
        prof = merged_profile(tools, k.hsaco, k.spec, dump, d, "k0", seeds)
        # The probe: a no-op wait before every nop, barrier (and hoist site behind a barrier).
        sites = sorted({m.line for m in muts if m.kind in ("nop-delete", "barrier-delete") or
                        (m.kind == "load-hoist" and m.counts is None)})
        probe_exec = {}
        if sites:
            plines, where = probe_lines(lines, k.name, set(sites))
            ps = os.path.join(d, "probe.s")
            ph = os.path.join(d, "probe.hsaco")
            open(ps, "w").write("\n".join(plines))
            r = run([tools["rebuild"], ps, "-o", ph, "--abi-of", k.hsaco, "-q"])
            if r.returncode != 0:
                raise RuntimeError("the probe does not rebuild: " + r.stderr.strip()[:300])
            poff = line_offsets(plines, k.name, objdump_offsets(tools["objdump"], ph, k.name))
            pprof = merged_profile(tools, ph, k.spec, dump, d, "probe", seeds)
            for s, pi in where.items():
                probe_exec[s] = pprof.get(poff[pi], {}).get("executions", 0)
        for m in muts:
            classify(m, lines, offsets, prof, probe_exec, waves)
        k.mutants = muts
        k.waves = waves
        k.profile = prof
    except (RuntimeError, subprocess.TimeoutExpired, OSError, KeyError, ValueError) as e:
        k.error = "preparing the mutants: %s" % e


def summarize_findings(j):
    """The checker's own account: its message, then every strict finding (rule, offset)."""
    if not j:
        return ""
    parts = []
    if j.get("verdict") != "ok" and j.get("message"):
        parts.append(j["message"])
    for key in ("unsafe", "k0_unsafe"):
        for f in j.get(key) or []:
            t = "%s%s +0x%x: %s" % ("K0 " if key == "k0_unsafe" else "", f.get("rule", "?"),
                                    f.get("offset", 0), f.get("message", ""))
            if t not in parts and not any(t.split(": ", 1)[-1] in p for p in parts):
                parts.append(t)
    return " | ".join(parts)[:1200]


def check_mutant(k, m, tools):
    d = os.path.join(k.dir, "mut")
    os.makedirs(d, exist_ok=True)
    base = os.path.join(d, m.ident.replace("@", "-").replace(":", "-").replace("<", "-"))
    open(base + ".s", "w").write("\n".join(apply_mutant(k.lines, m)))
    r = run([tools["rebuild"], base + ".s", "-o", base + ".hsaco", "--abi-of", k.hsaco, "-q"])
    if r.returncode != 0:
        m.verdict, m.detail = "abi_invalid", r.stderr.strip().split("\n")[0][:200]
        return
    r = run([tools["diffcheck"], k.hsaco, base + ".hsaco", "--spec", k.full, "--json",
             "--threads", "1"] + tools["check_opts"])
    m.verdict, j = verdict_of(r)
    m.first_rule = ((j or {}).get("unsafe") or [{}])[0].get("rule")
    m.detail = summarize_findings(j) if j else ""
    if not m.detail and m.verdict != "ok":
        m.detail = (r.stdout if j is None else r.stderr or r.stdout or "").strip()[:400]


def sample(k, cap):
    """Deterministic sampling: per kind, every ceil(n/cap)-th runnable mutant (from the first)."""
    for m in k.mutants:
        m.run = m.cls in ("needed", "harmless")
    if cap <= 0:
        return
    by = {}
    for m in k.mutants:
        if m.run:
            by.setdefault(m.kind, []).append(m)
    for kind, ms in by.items():
        # harmless and needed sampled separately, so that neither class disappears
        for cls in ("needed", "harmless"):
            sel = [m for m in ms if m.cls == cls]
            if len(sel) > cap:
                step = -(-len(sel) // cap)
                for i, m in enumerate(sel):
                    if i % step:
                        m.run = False
                        k.sampled += 1


def pending_hint(lines, m):
    """The memory instructions before the wait, in its counter(s), nearest first (a hint for
    the report: which operation the mutant leaves pending)."""
    cs = constrained(m.counts) if m.kind == "waitcnt-delete" else {m.counter: 0}
    vm = re.compile(r"^(global_|buffer_|flat_|scratch_|tbuffer_)")
    lg = re.compile(r"^(ds_|s_load|s_buffer_load|flat_|s_store)")
    got, j, n = [], m.line - 1, 0
    while j >= 0 and n < 60 and len(got) < 4:
        t = insn_text(lines[j])
        if t is not None:
            n += 1
            mn = mnemonic(t)
            if ("vmcnt" in cs and vm.match(mn)) or ("lgkmcnt" in cs and lg.match(mn)):
                got.append("L%d %s" % (j + 1, t))
        j -= 1
    return "; ".join(got) or "none within 60 instructions"


def wait_state_rejection(m):
    """A harmless-by-counters waitcnt-delete rejected only because the deleted wait was also
    wait states: `unsafe` whose first finding is a wait-state rule (not a race / pending rule)."""
    return (m.kind == "waitcnt-delete" and m.cls == "harmless" and m.verdict == "unsafe" and
            bool(getattr(m, "first_rule", None)) and m.first_rule not in SYNC_RULES)


def expected_ok(m):
    if m.verdict == "abi_invalid":
        return None
    if m.verdict.startswith("error"):
        return False
    if m.cls == "needed":
        # runtime_error (K1 faulted, e.g. on an address a pending load had not written yet)
        # rejects too; it is counted apart
        return m.verdict in ("unsafe", "divergent", "runtime_error")
    return m.verdict == "ok" or wait_state_rejection(m)


def load_reviewed(path):
    """{(kernel id, kind, 1-based line): (category, reason)} from sync_reviewed.tsv."""
    rev = {}
    if not path or not os.path.exists(path):
        return rev
    with open(path) as f:
        for n, l in enumerate(f, 1):
            l = l.rstrip("\n")
            if not l.strip() or l.lstrip().startswith("#"):
                continue
            c = l.split("\t")
            if len(c) < 5 or not c[2].strip().isdigit():
                raise RuntimeError("%s:%d: want 5 tab-separated columns (kernel, kind, line, "
                                   "category, reason)" % (path, n))
            rev[(c[0].strip(), c[1].strip(), int(c[2]))] = (c[3].strip(), c[4].strip())
    return rev


def tool_features(tools):
    h1 = run([tools["diffcheck"], "--help"]).stdout
    h2 = run([tools["run"], "--help"]).stdout
    return "--schedules" in h1, "--sync-profile" in h2


def cmd_run(a):
    t0 = time.time()
    tools = {
        "recover": os.path.join(a.tools, "hsaco-recover"),
        "rebuild": os.path.join(a.tools, "hsaco-rebuild"),
        "diffcheck": os.path.join(a.tools, "kernel-diffcheck"),
        "run": os.path.join(a.tools, "kernel-run"),
        "objdump": a.objdump,
        "check_opts": [],
        "unprofiled": a.unprofiled,
    }
    has_sched, has_prof = tool_features(tools)
    if not has_prof and not a.unprofiled:
        print("FAIL  kernel-run has no --sync-profile: the strict checks have not landed, nothing "
              "can be classified")
        return 1
    if a.schedules and has_sched:
        tools["check_opts"] += ["--schedules", str(a.schedules)]
    # Each mutant is classified from K0's profile on the spec's own launch: its verdict is
    # asked for that launch, not also for kernel-diffcheck's edge shapes (other launches,
    # tested in kernel-diffcheck.bats).
    if "--no-edge-shapes" in run([tools["diffcheck"], "--help"]).stdout:
        tools["check_opts"] += ["--no-edge-shapes"]
    os.makedirs(a.work, exist_ok=True)
    try:
        reviewed = load_reviewed(a.reviewed)
    except (RuntimeError, OSError) as e:
        print("FAIL  %s" % e)
        return 1
    seeds = [1, 2, 3]
    ks = find_kernels(a.corpus, a.kernels)
    if not ks:
        print("FAIL  no kernel matches %s" % " ".join(a.kernels))
        return 1
    lock = threading.Lock()
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        list(ex.map(lambda k: prepare(k, tools, a.work, seeds, lock), ks))
        t_prep = time.time() - t0
        jobs = []
        for k in ks:
            if k.error or k.skip:
                continue
            sample(k, a.sample_cap)
            for m in k.mutants:
                if m.run:
                    jobs.append((k, m))
        # the longest kernels first would be nicer; the order is kept deterministic instead
        list(ex.map(lambda km: check_mutant(km[0], km[1], tools), jobs))
    wall = time.time() - t0
    return report(ks, a, wall, t_prep, has_sched, reviewed)


COLS = ("nrej", "ntot", "hacc", "htot", "hws", "rev", "revrej", "notexe", "abi", "sampled",
        "err", "rterr")


def report(ks, a, wall, t_prep, has_sched, reviewed):
    fails = warns = 0
    kinds = ["waitcnt-delete", "waitcnt-relax", "nop-delete", "barrier-delete", "load-hoist"]
    per_kernel, per_kind = {}, {kd: dict.fromkeys(COLS, 0) for kd in kinds}
    per_cat = {}   # category: [reviewed run, rejected anyway, [(kid, kind, line)]]
    used = set()
    k0_findings = []
    for k in ks:
        if k.skip:
            print("SKIP  %s: %s" % (k.kid, k.skip))
            continue
        if k.error:
            print("FAIL  %s: %s" % (k.kid, k.error))
            fails += 1
            continue
        row = per_kernel.setdefault(k.kid, dict.fromkeys(COLS, 0))
        k0f = [f for key in ("k0_unsafe", "unsafe") for f in (k.k0_json or {}).get(key) or []]
        if k.k0_verdict == "ok" and k0f:
            warns += 1
            rules = sorted({f.get("rule", "?") for f in k0f})
            k0_findings.append("%s: %s (%d finding%s, first: %s +0x%x)" % (
                k.kid, ", ".join(rules), len(k0f), "" if len(k0f) == 1 else "s",
                k0f[0].get("rule"), k0f[0].get("offset", 0)))
            print("PASS  %s K0-vs-K0 ok, but WARN: K0 itself has strict findings (its findings "
                  "of the same kind are then not held against mutants): %s" %
                  (k.kid, " | ".join("%s +0x%x: %s" % (f.get("rule"), f.get("offset", 0),
                                                       f.get("message", "")) for f in k0f)[:1500]))
        elif k.k0_verdict == "ok":
            print("PASS  %s K0-vs-K0 ok" % k.kid)
        else:
            print("FAIL  %s K0-vs-K0 %s %s" % (k.kid, k.k0_verdict, getattr(k, "k0_detail", "")))
            fails += 1
        for m in k.mutants:
            key = (k.kid, m.kind, m.line + 1)
            rev = reviewed.get(key)
            if rev:
                used.add(key)
            inc = []
            if m.cls == "not-executed":
                inc = ["notexe"]
            elif not m.run:
                inc = ["sampled"]
            elif m.verdict == "abi_invalid":
                inc = ["abi"]
            else:
                good = expected_ok(m)
                rejected = m.verdict != "ok"
                if m.verdict.startswith("error"):
                    inc.append("err")
                if rev:
                    inc.append("rev")
                    if rejected:
                        inc.append("revrej")
                    c = per_cat.setdefault(rev[0], [0, 0, {}])
                    c[0] += 1
                    c[1] += rejected
                    pk = c[2].setdefault(k.kid, [0, 0])
                    pk[0] += 1
                    pk[1] += rejected
                elif m.cls == "needed":
                    inc += ["ntot"] + (["nrej"] if good else [])
                    if m.verdict == "runtime_error":
                        inc.append("rterr")
                else:
                    inc += ["htot"]
                    if good:
                        inc.append("hws" if wait_state_rejection(m) else "hacc")
            for i in inc:
                row[i] += 1
                per_kind[m.kind][i] += 1
            if m.cls == "not-executed" or not m.run:
                if a.verbose:
                    print("      %s %s L%d +0x%x %s %s" % (k.kid, m.kind, m.line + 1, m.offset,
                                                          m.cls if m.run else "sampled-out",
                                                          m.text))
                continue
            good = expected_ok(m)
            if m.verdict == "abi_invalid":
                status = "ABI "
            elif rev and not m.verdict.startswith("error"):
                status = "REV "
            else:
                status = "PASS" if good else "FAIL"
                if not good:
                    fails += 1
            ln = "%s  %s %s L%d +0x%x %s %s -> %s  [%s] (%s)" % (
                status, k.kid, m.kind, m.line + 1, m.offset,
                (m.counter or "") if m.kind == "waitcnt-relax" else "", m.cls, m.verdict,
                m.text + (" / hoisted: " + insn_text(k.lines[m.load]) if m.load else ""), m.basis)
            ln = ln.replace("  ", " ").replace("PASS ", "PASS  ").replace("FAIL ", "FAIL  ") \
                .replace("REV ", "REV   ")
            if status == "REV ":
                ln += " {reviewed: %s: %s}" % rev
            elif status == "PASS" and wait_state_rejection(m):
                ln += " {harmless by counters, the wait's wait states needed: %s}" % m.first_rule
            if status in ("FAIL", "REV ") and m.detail and m.verdict != "ok":
                ln += "\n        checker: " + m.detail
            if status == "FAIL" and m.cls == "needed" and m.kind.startswith("waitcnt"):
                ln += "\n        pending at the wait (static hint, nearest first): " + \
                    pending_hint(k.lines, m)
            print(ln)
    for key in sorted(set(reviewed) - used):
        if any(key[0] == k.kid for k in ks if not k.skip and not k.error):
            print("NOTE  reviewed entry matches no mutant (stale?): %s %s L%d" % key)
    print("\nsynchronisation mutants per kernel and kind: needed rejected/total and harmless "
          "accepted/total (both without the reviewed ones; harmless accepted includes the ws "
          "column: harmless by counters, rejected only for a wait-state rule), reviewed "
          "(rejected anyway/run), not-executed, abi_invalid, not run by sampling:")
    print("%-46s %11s %13s %4s %9s %7s %5s %7s" % ("", "needed rej", "harmless acc", "ws",
                                                    "reviewed", "not-exe", "abi", "sampled"))

    def line(name, r):
        extra = ""
        if r["err"]:
            extra += "  (%d tool errors)" % r["err"]
        if r["rterr"]:
            extra += "  (%d rejected as runtime_error)" % r["rterr"]
        return "%-46s %5d/%-5d %6d/%-6d %4d %4d/%-4d %7d %5d %7d%s" % (
            name, r["nrej"], r["ntot"], r["hacc"] + r["hws"], r["htot"], r["hws"], r["revrej"],
            r["rev"], r["notexe"], r["abi"], r["sampled"], extra)
    tot = dict.fromkeys(COLS, 0)
    for kid, r in per_kernel.items():
        print(line(kid, r))
        for c in COLS:
            tot[c] += r[c]
    print(line("-- all kernels", tot))
    for kd in kinds:
        print(line("kind " + kd, per_kind[kd]))
    print("\nreviewed mutants (test/mutants/sync_reviewed.tsv; verdict tolerated either way), "
          "per category: run, rejected by the checker anyway")
    for cat in sorted(per_cat):
        c = per_cat[cat]
        print("  %-26s %4d run, %4d rejected anyway: %s" % (
            cat, c[0], c[1], ", ".join("%s %d%s" % (kid, n[0], " (%d rejected)" % n[1] if n[1]
                                                    else "") for kid, n in c[2].items())))
    print("  %-26s %4d run, %4d rejected anyway" % ("(all)", tot["rev"], tot["revrej"]))
    nk = sum(1 for k in ks if not k.skip and not k.error)
    k0ok = sum(1 for k in ks if not k.skip and not k.error and k.k0_verdict == "ok")
    print("\nK0 vs K0 ok: %d/%d kernels (%d of them with strict findings in K0 itself); "
          "%d skipped" % (k0ok, nk, warns, sum(1 for k in ks if k.skip)))
    for f in k0_findings:
        print("  K0 finding: " + f)
    if a.sample_cap > 0:
        print("sampling: at most %d needed and %d harmless mutants per kernel and kind run "
              "(every k-th, deterministic); %d not run" % (a.sample_cap, a.sample_cap,
                                                           tot["sampled"]))
    print("kernel-diffcheck %s; wall time %.0f s (preparation %.0f s), %d jobs" %
          ("--schedules %d" % a.schedules if a.schedules and has_sched else
           "without --schedules", wall, t_prep, a.jobs))
    print("%s: %d failure(s)" % ("FAIL" if fails else "PASS", fails))
    return 1 if fails else 0


def cmd_list(a):
    lines = open(a.input).read().split("\n")
    for m in enumerate_mutants(lines, a.kernel):
        extra = " / " + insn_text(lines[m.load]) if m.load is not None else ""
        print("%s\t%s%s" % (m.ident, m.text, extra))
    return 0


def cmd_apply(a):
    lines = open(a.input).read().split("\n")
    for m in enumerate_mutants(lines, a.kernel):
        if m.ident == a.id:
            open(a.output, "w").write("\n".join(apply_mutant(lines, m)))
            return 0
    sys.stderr.write("sync_mutants.py: no mutant '%s' (see `list`)\n" % a.id)
    return 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--tools", required=True)
    r.add_argument("--corpus", required=True, help="the corpus build dir (holds clang/)")
    r.add_argument("--work", required=True)
    r.add_argument("--objdump", default=os.environ.get("LLVM_OBJDUMP", "llvm-objdump"))
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    r.add_argument("--sample-cap", type=int, default=0,
                   help="run at most N needed and N harmless mutants per kernel and kind")
    r.add_argument("--schedules", type=int, default=0,
                   help="kernel-diffcheck --schedules N (0: the tool's default)")
    r.add_argument("-v", "--verbose", action="store_true",
                   help="also list not-executed and sampled-out mutants")
    r.add_argument("--unprofiled", action="store_true",
                   help="debugging only, for a kernel-run without --sync-profile: no profile, "
                   "every site counts as executed and every mutant as needed")
    r.add_argument("--reviewed", default=os.path.join(HERE, "sync_reviewed.tsv"),
                   help="the reviewed mismatches (kernel, kind, line, category, reason; TSV)")
    r.add_argument("kernels", nargs="*")
    li = sub.add_parser("list")
    li.add_argument("input")
    li.add_argument("kernel")
    ap = sub.add_parser("apply")
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("kernel")
    ap.add_argument("id")
    a = p.parse_args()
    sys.exit({"run": cmd_run, "list": cmd_list, "apply": cmd_apply}[a.cmd](a))


if __name__ == "__main__":
    main()
