"""Bad inputs of asmevo-report and asmevo-install (cases-report-install.tsv).

asmevo-report: a small search run directory written the way asmevo-agent writes one (rr-ok), and
copies of it with one file damaged: run.json, a journal line, node.json, edit.json, the evidence
(time.json, diffcheck.json), a text, summary.json (not JSON, another format, the wrong type or
range of a field, invalid UTF-8, a byte-order mark); a workflow run (wf-ok) with its summary and
baseline damaged; run directories for the outputs that are the run's own files (one through a
symbolic link).

asmevo-install: manifests for --uninstall (not JSON, another format or version, a field of the
wrong type, a SHA-256 that is not one, paths that leave the target through "..", an absolute
path or a symbolic link, absurd strings), workflow runs with a damaged summary, and Triton
installs that would mix two targets in one override directory (refused, exit 1).
"""
import hashlib
import json
import os
import sys

BOM = b"\xef\xbb\xbf"


def dump(j):
    return json.dumps(j, indent=1)


def sha(b):
    return hashlib.sha256(b).hexdigest()


def search_run(k0_text):
    """{relative path: bytes or str} of a finished search run: the root and one commit."""
    node = {"format": "asmevo-node", "format_version": 1, "id": "n000001", "parent": "n000000",
            "sources": [], "driver": "rules",
            "edits": [{"format": "asmevo-edit", "format_version": 1,
                       "window": {"function": "add_kernel", "first_line": 3, "last_line": 3},
                       "replacement": "\ts_nop 0", "rationale": "r", "original": "\ts_nop 1"}],
            "edited_lines": [[3, 3]], "outcome": "ok", "stage": "gate", "signature": "",
            "message": "committed", "verified": True, "committed": True, "speedup": 1.25,
            "k0_us": 2.0, "us": 1.6, "cv": 0.0, "threshold": 1.002, "kind": "modeled",
            "backend": "emu", "seconds": 0.5, "best_before": "n000000", "origin": "",
            "recorded_at": 1.8e9}
    root = dict(node, id="n000000", parent="", edits=[], edited_lines=[], speedup=1.0,
                us=2.0, threshold=0.0, best_before="", recorded_at=1.8e9 - 10)
    report = {"format": "asmevo-report", "format_version": 1, "tool": "kernel-time",
              "outcome": "ok", "message": "ok: 1.25x", "backend": "emu",
              "body": {"kind": "modeled", "kernels": [
                  {"role": "K0", "microseconds": 2.0, "cv": 0.0},
                  {"role": "K1", "microseconds": 1.6, "cv": 0.0}],
                  "ratio": {"value": 0.8, "low": 0.8, "high": 0.8, "level": 0.95}}}
    check = {"format": "asmevo-report", "format_version": 1, "tool": "kernel-diffcheck",
             "outcome": "ok", "message": "ok: equal", "backend": "emu", "seeds": [1, 2, 3]}
    edit = node["edits"][0]
    text = k0_text.replace("\ts_nop 1", "\ts_nop 0")
    return {
        "run.json": dump({"format": "asmevo-run", "format_version": 1, "k0": "k0.hsaco",
                          "k0_sha256": "0" * 64, "kernel": "add_kernel", "target": "gfx942",
                          "options": {"driver": "rules", "backend": "emu"}}),
        "journal.jsonl": "".join(json.dumps(e) + "\n" for e in [
            {"event": "start"}, {"event": "node", "id": "n000000"},
            {"event": "fault", "fault": "repeat"}, {"event": "node", "id": "n000001"}]),
        "nodes/n000000/node.json": dump(root),
        "nodes/n000000/cand.s": k0_text,
        "nodes/n000001/node.json": dump(node),
        "nodes/n000001/edit.json": dump(edit),
        "nodes/n000001/cand.s": text,
        "nodes/n000001/time.json": dump(report),
        "nodes/n000001/diffcheck.json": dump(check),
        "best.s": text,
        "summary.json": dump({"format": "asmevo-report", "format_version": 1,
                              "tool": "asmevo-agent", "outcome": "ok", "message": "ok",
                              "body": {"stopped_by": "candidates", "seconds": 3.5}}),
    }


def write_dir(g, name, files):
    for rel, data in sorted(files.items()):
        g.write(name + "/" + rel, data)


def variant(base, rel, data):
    files = dict(base)
    files[rel] = data
    return files


def json_with(base, rel, **fields):
    j = json.loads(base[rel])
    for k, v in fields.items():
        if isinstance(v, tuple) and v[0] == "del":
            del j[k]
        else:
            j[k] = v
    return dump(j)


def report_inputs(g):
    k0_text = "\t.text\nadd_kernel:\n\ts_nop 1\n\ts_waitcnt vmcnt(0)\n\ts_endpgm\n"
    ok = search_run(k0_text)
    write_dir(g, "rr-ok", ok)
    node = "nodes/n000001/node.json"
    bad = {
        "rr-run-notjson": variant(ok, "run.json", '{"format": "asmevo-run", '),
        "rr-run-empty": variant(ok, "run.json", ""),
        "rr-run-array": variant(ok, "run.json", "[1, 2]\n"),
        "rr-run-format": variant(ok, "run.json", json_with(ok, "run.json", format="asmevo-node")),
        "rr-run-types": variant(ok, "run.json", json_with(ok, "run.json", kernel=5)),
        "rr-run-options": variant(ok, "run.json", json_with(ok, "run.json", options="fast")),
        "rr-run-bom": variant(ok, "run.json", BOM + ok["run.json"].encode()),
        "rr-run-utf8": variant(ok, "run.json",
                               ok["run.json"].encode().replace(b"add_kernel", b"add_\xffkernel")),
        "rr-journal-notjson": variant(ok, "journal.jsonl",
                                      '{"event": "start"}\nnot json at all\n'),
        "rr-journal-array": variant(ok, "journal.jsonl", '[1]\n{"event": "start"}\n'),
        "rr-journal-types": variant(ok, "journal.jsonl", '{"event": 5}\n'),
        "rr-journal-blank": variant(ok, "journal.jsonl", '{"event": "start"}\n\n'),
        "rr-journal-utf8": variant(ok, "journal.jsonl", b'{"event": "st\xc3("}\n'),
        "rr-node-notjson": variant(ok, node, "{"),
        "rr-node-format": variant(ok, node, json_with(ok, node, format="asmevo-edit")),
        "rr-node-speedup-string": variant(ok, node, json_with(ok, node, speedup="fast")),
        "rr-node-speedup-negative": variant(ok, node, json_with(ok, node, speedup=-1.5)),
        "rr-node-speedup-huge": variant(ok, node, ok[node].replace('"speedup": 1.25',
                                                                   '"speedup": 1e400')),
        "rr-node-verified-string": variant(ok, node, json_with(ok, node, verified="yes")),
        "rr-node-edited-lines": variant(ok, node, json_with(ok, node, edited_lines=[[5, 2]])),
        "rr-node-edits": variant(ok, node, json_with(ok, node, edits=[5])),
        "rr-node-sources": variant(ok, node, json_with(ok, node, sources=[1])),
        "rr-node-id": variant(ok, node, json_with(ok, node, id="n000009")),
        "rr-node-bom": variant(ok, node, BOM + ok[node].encode()),
        "rr-node-utf8": variant(ok, node, ok[node].encode().replace(b"committed\"",
                                                                    b"committed\xfe\"", 1)),
        "rr-edit-notjson": variant(ok, "nodes/n000001/edit.json", "{]"),
        "rr-edit-window": variant(ok, "nodes/n000001/edit.json",
                                  json_with(ok, "nodes/n000001/edit.json", window="lines 3-4")),
        "rr-edit-number": variant(ok, "nodes/n000001/edit.json", "42\n"),
        "rr-time-format": variant(ok, "nodes/n000001/time.json", '{"format": "kernel-time"}'),
        "rr-time-kernels": variant(ok, "nodes/n000001/time.json", dump(
            {"format": "asmevo-report", "body": {"kernels": [{"role": "K0",
                                                              "microseconds": "fast"}]}})),
        "rr-diffcheck-seeds": variant(ok, "nodes/n000001/diffcheck.json", dump(
            {"format": "asmevo-report", "outcome": "ok", "seeds": [1, -2]})),
        "rr-cand-utf8": variant(ok, "nodes/n000001/cand.s", b"\ts_nop 0\n\t\x80\n"),
        "rr-root-cand-bom": variant(ok, "nodes/n000000/cand.s", BOM + k0_text.encode()),
        "rr-summary-notjson": variant(ok, "summary.json", "nope"),
        "rr-summary-seconds": variant(ok, "summary.json", dump(
            {"format": "asmevo-report", "message": "ok", "body": {"seconds": "3.5"}})),
    }
    for name, files in bad.items():
        write_dir(g, name, files)
    # nodes/ that is a file
    files = {k: v for k, v in ok.items() if not k.startswith("nodes/")}
    files["nodes"] = "not a directory\n"
    write_dir(g, "rr-nodes-file", files)

    # A workflow run: RUN/summary.json and one kernel with its search.
    def workflow(summary, baseline=None, search=ok):
        files = {"summary.json": summary, "k-add/k0.hsaco": g.obj("vadd")}
        if baseline is not None:
            files["k-add/baseline.json"] = baseline
        for rel, data in search.items():
            files["k-add/search/" + rel] = data
        return files

    summary = {"format": "asmevo-workflow-summary", "format_version": 1,
               "kernels": [{"name": "k-add", "speedup": 1.25, "kind": "modeled",
                            "backend": "emu", "candidates": 1, "commits": 1,
                            "stopped_by": "candidates", "kstar": "k-add/search/best.hsaco"}]}
    baseline = dump({"format": "asmevo-report", "backend": "emu",
                     "body": {"kind": "modeled", "kernels": [{"microseconds": 2.0}]}})
    write_dir(g, "wf-ok", workflow(dump(summary), baseline))
    write_dir(g, "wf-summary-notjson", workflow('{"format": "asmevo-workflow-summary",'))
    s = json.loads(dump(summary))
    s["kernels"][0]["name"] = "../k-add"
    write_dir(g, "wf-summary-name", workflow(dump(s)))
    s = json.loads(dump(summary))
    s["kernels"][0]["speedup"] = "1.25x"
    write_dir(g, "wf-summary-speedup", workflow(dump(s)))
    s = json.loads(dump(summary))
    s["kernels"] = [7]
    write_dir(g, "wf-summary-kernel", workflow(dump(s)))
    write_dir(g, "wf-baseline-notjson", workflow(dump(summary), "{{"))
    write_dir(g, "wf-baseline-us", workflow(dump(summary), dump(
        {"format": "asmevo-report", "body": {"kernels": [{"microseconds": -1}]}})))
    write_dir(g, "wf-search-node", workflow(dump(summary), baseline,
                                            variant(ok, node, json_with(ok, node, cv="0.1"))))
    # An output that is a symbolic link to one of the run's files.
    write_dir(g, "rr-linked", {"run/" + k: v for k, v in ok.items()})
    os.symlink("run/journal.jsonl", os.path.join(g.out, "rr-linked", "out.html"))


def manifest(entries, **top):
    m = {"format": "asmevo-install-manifest", "format_version": 1, "layout": "triton",
         "source": "/nonexistent/dump", "entries": entries, "generated": [], "links": [],
         "dirs": []}
    m.update(top)
    return dump(m)


def entry(path, kstar, **more):
    e = {"kernel": "k-add", "run": "/nonexistent/run", "path": path, "source": None,
         "k0_sha256": "1" * 64, "kstar_sha256": sha(kstar), "action": "added", "backup": None}
    e.update(more)
    return e


def install_inputs(g):
    gen = sys.modules[type(g).__module__]
    k0 = g.obj("vadd")
    text = gen.Elf(k0).section(".text")
    # K*: K0 with one instruction byte changed (its symbols and target are K0's).
    kstar = bytearray(k0)
    kstar[text["off"] + 4] ^= 0x01
    kstar = bytes(kstar)
    victim = b"a user's file outside the install's target\n"
    ok = entry("HASH/add_kernel.hsaco", kstar)
    bad = {
        "ui-notjson": "asmevo-install manifest\n",
        "ui-format": dump({"format": "asmevo-something", "format_version": 1}),
        "ui-version": manifest([ok], format_version=2),
        "ui-bom": BOM + manifest([ok]).encode(),
        "ui-utf8": manifest([ok]).encode().replace(b"k-add", b"k-\xc0\xafadd"),
        "ui-array": "[]\n",
        "ui-types": manifest([dict(ok, kernel=5)]),
        "ui-sha": manifest([dict(ok, kstar_sha256="xyz")]),
        "ui-action": manifest([dict(ok, action="deleted")]),
        "ui-absolute": manifest([dict(ok, path="/etc/hostname")]),
        "ui-backup": manifest([dict(ok, action="replaced", backup="../backup.hsaco")]),
        "ui-huge": manifest([dict(ok, path="x" * 10000)]),
        "ui-layout": manifest([ok], layout="rocm"),
        "ui-entries": manifest("all"),
        "ui-dirs": manifest([], dirs=[7]),
    }
    for name, data in bad.items():
        g.write(name + "/asmevo-install.json", data)
    # Paths that leave the target: through "..", through a symbolic link, a note, a link and a
    # directory. The victim outside has K*'s bytes, so an uninstall that followed the path
    # would take it for its own.
    escapes = {
        "ui-dotdot": manifest([entry("../victim.hsaco", victim)]),
        "ui-deep-dotdot": manifest([entry("HASH/../../victim.hsaco", victim)]),
        "ui-symlink": manifest([entry("out/victim.hsaco", victim)]),
        "ui-generated": manifest([], generated=[{"path": "../victim.hsaco",
                                                 "sha256": sha(victim)}]),
        "ui-link": manifest([], links=[{"path": "../victim.hsaco", "link": "/x"}]),
        "ui-dir": manifest([], dirs=["../outside"]),
    }
    for name, data in escapes.items():
        g.write(name + "/target/asmevo-install.json", data)
        g.write(name + "/victim.hsaco", victim)
        g.write(name + "/outside/.keep", "")
    os.symlink("..", os.path.join(g.out, "ui-symlink", "target", "out"))

    # Workflow runs for installs: summary.json and RUN/<name>/{k0.hsaco, search/best.hsaco}.
    def run(summary, kernels):
        files = {"summary.json": summary}
        for name, (a, b) in kernels.items():
            files[name + "/k0.hsaco"] = a
            if b is not None:
                files[name + "/search/best.hsaco"] = b
        return files

    def summary(*rows):
        return dump({"format": "asmevo-workflow-summary", "format_version": 1,
                     "kernels": [{"name": n, "speedup": s, "kind": "modeled"} for n, s in rows]})

    one = {"k-add": (k0, kstar)}
    runs = {
        "ir-summary-notjson": run("{", one),
        "ir-summary-bom": run(BOM + summary(("k-add", 1.5)).encode(), one),
        "ir-summary-speedup": run(summary(("k-add", "fast")), one),
        "ir-summary-inf": run(summary(("k-add", 1.5)).replace("1.5", "1e999"), one),
        "ir-summary-name": run(summary(("../k-add", 1.5)), one),
        "ir-k0-garbage": run(summary(("k-add", 1.5)), {"k-add": (b"not a code object", None)}),
    }
    for name, files in runs.items():
        write_dir(g, name, files)
    # A dump that holds K0 for the installs below.
    g.write("ir-dump/HASH/add_kernel.hsaco", k0)
    write_dir(g, "ir-ok", run(summary(("k-add", 1.5)), one))
    # Two kernels of one run for two targets, both in one dump: one override directory for both
    # would give each GPU the other's code object.
    k90 = open(os.path.join(g.src, "test/corpus/triton/gfx90a/vector_add_fp32.hsaco"),
               "rb").read()
    t90 = gen.Elf(k90).section(".text")
    k90star = bytearray(k90)
    k90star[t90["off"] + 4] ^= 0x01
    write_dir(g, "ir-mixed", {
        "run/" + k: v for k, v in run(summary(("k-942", 1.5), ("k-90a", 1.5)),
                                      {"k-942": (k0, kstar),
                                       "k-90a": (k90, bytes(k90star))}).items()})
    g.write("ir-mixed/dump/A/add_kernel.hsaco", k0)
    g.write("ir-mixed/dump/B/add_kernel.hsaco", k90)
    # An override directory that already holds a gfx90a K* (recorded with its target).
    write_dir(g, "ir-mixed-manifest", {"run/" + k: v for k, v in run(
        summary(("k-add", 1.5)), one).items()})
    g.write("ir-mixed-manifest/dump/HASH/add_kernel.hsaco", k0)
    g.write("ir-mixed-manifest/ovr/OTHER/add_kernel.hsaco", bytes(k90star))
    g.write("ir-mixed-manifest/ovr/asmevo-install.json", manifest(
        [entry("OTHER/add_kernel.hsaco", bytes(k90star), target="gfx90a")]))


def generate(g):
    report_inputs(g)
    install_inputs(g)
