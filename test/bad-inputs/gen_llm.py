"""Inputs of the llm driver's bad-input cases (cases-llm.tsv): a complete launch spec of the
vector add, so that asmevo-agent gets as far as the driver, and prompt directories with one
broken file each (ASMEVO_PROMPTS_DIR), and a file where --llm-cache wants a directory."""
import hashlib
import json
import os


def generate(g):
    W = g.write
    spec = g.spec("vadd")
    spec.pop("comment", None)
    for a in spec["args"]:
        if a["arg"] in ("#0", "#1", "#2"):
            a["elements"] = 3000
            a["role"] = "out" if a["arg"] == "#2" else "in"
    spec["format"] = "asmevo-launch-spec"
    spec["format_version"] = 1
    spec["k0_sha256"] = hashlib.sha256(g.obj("vadd")).hexdigest()
    W("llm-vadd.json", json.dumps(spec, indent=1))
    W("llm-cache-file", "not a directory\n")
    shipped = os.path.join(g.src, "share/asmevo/prompts")
    prompts = {n: open(os.path.join(shipped, n + ".txt"), "rb").read()
               for n in ("system", "plan", "replan", "edit")}
    broken = {
        "missing": ("edit", None),
        "not-utf8": ("plan", b"Plan {{kernel}}\nthe caf\xe9 line\n"),
        "bom": ("replan", b"\xef\xbb\xbfRevise {{plan}}\n"),
        "empty": ("system", b"\n \n"),
        "unknown": ("edit", b"Edit {{kernel}}\nwith {{no_such_thing}}\n"),
        "unclosed": ("edit", b"Edit\n\n{{kernel\n"),
        "system-placeholder": ("system", b"You edit {{kernel}}.\n"),
        "huge": ("plan", b"{{kernel}}" + b"x" * (1 << 20)),
    }
    for tag, (name, text) in broken.items():
        for n, t in prompts.items():
            if n == name:
                t = text
            if t is not None:
                W("llm-prompts-%s/%s.txt" % (tag, n), t)
