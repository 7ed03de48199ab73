"""asmevo-agent's bad inputs (cases-agent.tsv): run directories to --resume or --merge whose
run.json, journal or node.json is not what asmevo-agent writes (not JSON, not UTF-8, a byte-order
mark, fields of the wrong type, a node whose id is not its directory's), a best node whose
object no longer has its recorded SHA-256, a journal that commits a node no directory holds; and
a complete launch spec for the vector add (what kernel-diffcheck --infer writes), so that the
agent reaches its run directory. A run directory is built here as asmevo-agent lays it out
(search/Lineage.h): run.json, journal.jsonl (start and node events, the node event carrying the
whole node record), nodes/n000000/ (K0 as the root: node.json, cand.s, cand.hsaco), best.s,
best.hsaco and the lock file. Standard library only; deterministic.
"""
import hashlib
import json

RUN = "agentrun-"  # the prefix of every run directory made here


def sha(data):
    return hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()


def full_spec(k0):
    """The vector add's complete spec, as kernel-diffcheck --infer writes it for this K0."""
    buf = lambda i, role: {"arg": "#%d" % i, "elements": 3000, "role": role, "type": "f32"}
    return {"format": "asmevo-launch-spec", "format_version": 1, "k0_sha256": sha(k0),
            "kernel": "add_kernel", "grid": [3, 1, 1], "block": [256, 1, 1], "dynamic_lds": 0,
            "args": [buf(0, "in"), buf(1, "in"), buf(2, "out"), {"arg": "#3", "value": 3000},
                     {"arg": "#4", "value": "null"}, {"arg": "#5", "value": "null"}]}


def root_node(k0):
    return {"format": "asmevo-node", "format_version": 1, "id": "n000000", "parent": "",
            "sources": [], "driver": "k0", "edits": [], "edited_lines": [],
            "candidate_sha256": sha("k0 text\n"), "object_sha256": sha(k0), "outcome": "ok",
            "stage": "", "signature": "", "message": "K0, the original", "verified": True,
            "committed": True, "speedup": 1.0, "k0_us": 3.25, "us": 3.25, "cv": 0.0,
            "threshold": 0.0, "kind": "modeled", "backend": "emu", "seconds": 0.0,
            "best_before": "", "origin": "", "recorded_at": 1767225600.0}


def run_dir(g, name, k0, spec_text, run=None, journal=None, node=None, cand=None,
            extra=None, skip=()):
    """A run directory NAME; each of run, journal, node, cand replaces that file's bytes."""
    d = RUN + name
    node_rec = root_node(k0)
    run_rec = {"format": "asmevo-run", "format_version": 1, "k0": "vadd.hsaco",
               "k0_sha256": sha(k0), "kernel": "add_kernel", "spec_sha256": sha(spec_text),
               "target": "gfx942",
               "options": {"backend": "emu", "seeds": [1, 2, 3], "epsilon": 0.002, "k": 0.85,
                           "s_floor": 1.0, "max_groups": 256, "team_from": "",
                           "team_member": 0, "driver": "rules", "workers": 1, "stall": 40}}
    events = [{"event": "start", "k0": "vadd.hsaco", "kernel": "add_kernel", "driver": "rules",
               "backend": "emu", "seq": 0},
              {"event": "node", "id": "n000000", "parent": "", "outcome": "ok",
               "committed": True, "speedup": 1.0, "node": node_rec, "seq": 1}]
    files = {
        "run.json": json.dumps(run_rec, indent=2) + "\n",
        "journal.jsonl": "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events),
        "nodes/n000000/node.json": json.dumps(node_rec, indent=2) + "\n",
        "nodes/n000000/cand.s": "k0 text\n",
        "nodes/n000000/cand.hsaco": k0,
        "best.s": "k0 text\n",
        "best.hsaco": k0,
        "lock": "",
    }
    for key, value in (("run.json", run), ("journal.jsonl", journal),
                       ("nodes/n000000/node.json", node), ("nodes/n000000/cand.hsaco", cand)):
        if value is not None:
            files[key] = value(files[key]) if callable(value) else value
    files.update(extra or {})
    for f, data in files.items():
        if f not in skip:
            g.write(d + "/" + f, data)


def generate(g):
    k0 = g.obj("vadd")
    spec_text = json.dumps(full_spec(k0), indent=2) + "\n"
    g.write("agent-vadd-full.json", spec_text)
    g.write("agent-spec-notjson.json", '{"kernel": "add_kernel",\n')
    # Pristine, for the controls, and a second member for --merge.
    run_dir(g, "ok", k0, spec_text)
    run_dir(g, "member", k0, spec_text)
    run_dir(g, "norun", k0, spec_text, skip=("run.json",))

    def run_with(**kv):
        def f(text):
            r = json.loads(text)
            r.update(kv)
            return json.dumps(r, indent=2) + "\n"
        return f

    bom = lambda text: ("\ufeff" + text) if isinstance(text, str) else b"\xef\xbb\xbf" + text
    # run.json
    run_dir(g, "runjson-notjson", k0, spec_text, run='{"format": "asmevo-run",\n "k0": \n')
    run_dir(g, "runjson-bom", k0, spec_text, run=bom)
    run_dir(g, "runjson-utf8", k0, spec_text,
            run=lambda t: t.replace('"gfx942"', '"gfx\xff942"').encode("latin-1"))
    run_dir(g, "runjson-array", k0, spec_text, run="[]\n")
    run_dir(g, "runjson-format", k0, spec_text, run=run_with(format="asmevo-node"))
    run_dir(g, "runjson-type", k0, spec_text, run=run_with(k0_sha256=5))
    run_dir(g, "runjson-options", k0, spec_text, run=run_with(options=[1]))
    run_dir(g, "runjson-badopt", k0, spec_text,
            run=lambda t: run_with(options=dict(json.loads(t)["options"], seeds="x"))(t))
    run_dir(g, "runjson-otherk0", k0, spec_text, run=run_with(k0_sha256="ab" * 32))
    run_dir(g, "runjson-otherspec", k0, spec_text, run=run_with(spec_sha256="cd" * 32))
    # journal.jsonl
    mid = lambda line: (lambda t: t.split("\n", 1)[0] + "\n" + line + "\n" + t.split("\n", 1)[1])
    run_dir(g, "journal-notjson", k0, spec_text, journal=mid('{"event": "fault",'))
    run_dir(g, "journal-bom", k0, spec_text, journal=bom)
    run_dir(g, "journal-utf8", k0, spec_text,
            journal=lambda t: (mid('{"event": "fault", "message": "x\xff"}')(t))
            .encode("latin-1"))
    run_dir(g, "journal-array", k0, spec_text, journal=mid("[1, 2]"))
    run_dir(g, "journal-eventtype", k0, spec_text, journal=mid('{"event": 7}'))
    run_dir(g, "journal-noid", k0, spec_text, journal=mid('{"event": "node", "id": 7}'))
    run_dir(g, "journal-speedup", k0, spec_text,
            journal=mid('{"event": "commit", "id": "n000000", "speedup": "fast"}'))
    run_dir(g, "journal-record", k0, spec_text, skip=("nodes/n000000/node.json",),
            journal=lambda t: t.replace('"node":{"format":"asmevo-node"',
                                        '"node":{"format":"asmevo-run"', 1))
    run_dir(g, "journal-lostcommit", k0, spec_text,
            journal=lambda t: t + '{"event":"commit","id":"n000004","parent":"n000000",'
            '"speedup":1.5,"kind":"modeled","backend":"emu","seq":2}\n')
    # nodes/n000000/node.json
    run_dir(g, "node-notjson", k0, spec_text, node='{"format": "asmevo-node", "id": }')
    run_dir(g, "node-bom", k0, spec_text, node=bom)
    run_dir(g, "node-utf8", k0, spec_text,
            node=lambda t: t.replace("K0, the original", "K0\xff").encode("latin-1"))
    run_dir(g, "node-array", k0, spec_text, node="[]")
    run_dir(g, "node-type", k0, spec_text, node=lambda t: t.replace('"speedup": 1.0',
                                                                    '"speedup": "1.0"'))
    run_dir(g, "node-id", k0, spec_text, node=lambda t: t.replace('"id": "n000000"',
                                                                  '"id": "n000003"'))
    # the best's object
    run_dir(g, "best-changed", k0, spec_text, cand=lambda b: b[:200] + bytes([b[200] ^ 1]) +
            b[201:])
    run_dir(g, "best-gone", k0, spec_text, skip=("nodes/n000000/cand.hsaco",))
