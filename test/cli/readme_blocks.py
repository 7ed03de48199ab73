#!/usr/bin/env python3
"""Run every command block of a README, in order, as a user would type it (test/cli/readme.bats).

  readme_blocks.py README.md WORKDIR     run the blocks in WORKDIR (one bash for all of them)
  readme_blocks.py --list README.md      print the blocks and their markers, run nothing

Blocks: indented code blocks (4 spaces, after a blank line) and ``` fences. A shell block (an
indented one, or a fence of no language, sh, bash, shell) is a list of commands: one per line,
a line ending in a backslash continued on the next, blank lines and whole-line comments left
out. Every command must exit 0; the first that does not stops the run, and the message names
the block, its line, its section and the command. All blocks run in one bash, in WORKDIR, so
that PATH, variables and files carry on from block to block, as in a user's shell. Not read:
code blocks inside list items, and here-documents in a shell block (use a file marker).

A marker, an HTML comment on the line right before a block (blank lines between are allowed),
changes that:
  <!-- readme-test: skip -->       not run: only for the two set-up commands (SETUP below), which
                                   install, build and run the whole test suite (this test too);
                                   a set-up command in a block without it is refused, as is a
                                   skip on any other block
  <!-- readme-test: exit N -->     a block of exactly one command, which must exit N (a failure
                                   the README shows on purpose)
  <!-- readme-test: file NAME -->  the block is data: written to WORKDIR/NAME where it appears,
                                   for the commands after it (a json block must parse as JSON)
A fence of any other language (json, ...) must carry a file marker, so that no example goes
unchecked. Every problem with the README itself is found before anything runs (exit 2).
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

SETUP = ["bash share/run-example.sh", "bash test/run-all.sh"]
SHELL_LANGS = {"", "sh", "bash", "shell"}
MARKER = re.compile(r"^<!--\s*readme-test:\s*(.*?)\s*-->\s*$")


class ReadmeError(Exception):
    pass


class Block:
    def __init__(self, line, kind, lang, lines, section):
        self.line = line  # 1-based line of the first content line
        self.kind = kind  # "indented" or "fenced"
        self.lang = lang
        self.lines = lines  # [(line number, text)]
        self.section = section
        self.marker = None  # ("skip",) ("exit", N) ("file", NAME)
        self.number = 0

    def name(self, readme):
        return "block %d (%s:%d, section '%s')" % (self.number, readme, self.line, self.section)

    def is_shell(self):
        return self.kind == "indented" or self.lang in SHELL_LANGS

    def commands(self):
        """[(line, text as typed, text on one line)]"""
        out, cur, start = [], [], None
        for n, text in self.lines:
            if not cur and (not text.strip() or text.strip().startswith("#")):
                continue
            if not cur:
                start = n
            cur.append(text)
            if not text.endswith("\\"):
                out.append((start, "\n".join(cur), " ".join(t.rstrip("\\").strip() for t in cur)))
                cur = []
        if cur:
            raise ReadmeError("%d: the command ends in a backslash at the end of its block" % start)
        return out


def parse(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, section, pending, i = [], "(top)", None, 0
    while i < len(lines):
        text, n = lines[i], i + 1
        fence = re.match(r"^(```+|~~~+)\s*([\w+-]*)\s*$", text)
        m = MARKER.match(text.strip())
        if not m and text.lstrip().startswith("<!--") and "readme-test" in text:
            raise ReadmeError("%d: not a marker line: '%s'" % (n, text.strip()))
        if m:
            if pending:
                raise ReadmeError("%d: a marker follows the marker at line %d" % (n, pending[0]))
            pending = (n, m.group(1))
            i += 1
            continue
        if fence:
            close, body, j = fence.group(1), [], i + 1
            while j < len(lines) and not lines[j].startswith(close):
                body.append((j + 1, lines[j]))
                j += 1
            if j == len(lines):
                raise ReadmeError("%d: the ``` fence is never closed" % n)
            blocks.append(Block(n + 1, "fenced", fence.group(2).lower(), body, section))
            i = j + 1
        elif text.startswith("    ") and (i == 0 or not lines[i - 1].strip() or
                                         MARKER.match(lines[i - 1].strip())):
            body, j = [], i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                body.append((j + 1, lines[j][4:]))
                j += 1
            while body and not body[-1][1].strip():
                body.pop()
            blocks.append(Block(n, "indented", "", body, section))
            i = j
        else:
            if re.match(r"^#{1,6} ", text):
                section = text.lstrip("#").strip()
            if text.strip() and pending:
                raise ReadmeError("%d: the marker '%s' is not right before a block" %
                                  (pending[0], pending[1]))
            i += 1
            continue
        if pending:
            blocks[-1].marker = read_marker(pending)
            pending = None
    if pending:
        raise ReadmeError("%d: the marker '%s' is not right before a block" % pending)
    for k, b in enumerate(blocks, 1):
        b.number = k
    return blocks


def read_marker(pending):
    n, text = pending
    words = text.split()
    if words == ["skip"]:
        return ("skip",)
    if len(words) == 2 and words[0] == "exit" and words[1].isdigit() and 0 < int(words[1]) < 256:
        return ("exit", int(words[1]))
    if len(words) == 2 and words[0] == "file" and re.match(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$",
                                                           words[1]):
        return ("file", words[1])
    raise ReadmeError("%d: unknown marker '%s' (skip, exit N or file NAME)" % (n, text))


def uncomment(command):
    return re.sub(r"\s+#[^'\"]*$", "", command).strip()


def check(readme, blocks):
    """The README's own rules; a ReadmeError names the first line that breaks one."""
    skipped = []
    for b in blocks:
        where = b.name(readme)
        kind = b.marker[0] if b.marker else None
        if kind == "file":
            if b.lang == "json":
                try:
                    json.loads("\n".join(t for _, t in b.lines))
                except ValueError as e:
                    raise ReadmeError("%d: %s is not JSON: %s" % (b.line, where, e))
            continue
        if not b.is_shell():
            raise ReadmeError("%d: %s is a ```%s block with no file marker: it would go unchecked"
                              % (b.line, where, b.lang))
        cmds = b.commands()
        if not cmds:
            raise ReadmeError("%d: %s has no command" % (b.line, where))
        if kind == "skip":
            if [uncomment(c[2]) for c in cmds] not in [[s] for s in SETUP]:
                raise ReadmeError("%d: %s is skipped, but only the set-up commands (%s) may be"
                                  % (b.line, where, "; ".join(SETUP)))
            skipped.append(uncomment(cmds[0][2]))
            continue
        for line, _, flat in cmds:
            if uncomment(flat) in SETUP:
                raise ReadmeError("%d: %s runs the set-up command '%s' without a skip marker"
                                  % (line, where, flat))
        if kind == "exit" and len(cmds) != 1:
            raise ReadmeError("%d: %s has an exit marker and %d commands: give the failing "
                              "command a block of its own" % (b.line, where, len(cmds)))
    if sorted(skipped) != sorted(SETUP):
        raise ReadmeError("1: the skipped blocks must be the set-up commands (%s), one each; "
                          "skipped: %s" % ("; ".join(SETUP), "; ".join(skipped) or "none"))


def script(readme, blocks):
    """One bash script for all blocks, so that PATH, variables and files carry on."""
    out = ["exec < /dev/null"]
    q = shlex.quote
    for b in blocks:
        kind = b.marker[0] if b.marker else None
        if kind == "skip":
            continue
        if kind == "file":
            body = "\n".join(t for _, t in b.lines)
            eof = "README_BLOCK_EOF"
            while eof in body:
                eof += "_"
            out.append("printf '%%s\\n' %s" % q("+ %s: writing %s" % (b.name(readme), b.marker[1])))
            out.append("cat > %s <<'%s'\n%s\n%s" % (q(b.marker[1]), eof, body, eof))
            continue
        want = b.marker[1] if kind == "exit" else 0
        for line, typed, flat in b.commands():
            out.append("printf '%%s\\n' %s" % q("+ %s:%d: %s" % (readme, line, flat)))
            out.append(typed)
            out.append("__rc=$?; if [ \"$__rc\" -ne %d ]; then printf %s %s %d \"$__rc\" %d %s >&2; "
                       "exit 1; fi" % (want, q("README: %s, line %d: the command exited %s, "
                                                "expected %d: %s\\n"),
                                       q(b.name(readme)), line, want, q(flat)))
    return "\n".join(out) + "\n"


def main(argv):
    listing = argv[1:2] == ["--list"]
    args = argv[2:] if listing else argv[1:]
    if len(args) != (1 if listing else 2):
        sys.stderr.write(__doc__)
        return 2
    path = args[0]
    readme = os.path.basename(path)
    try:
        blocks = parse(path)
        check(readme, blocks)
    except ReadmeError as e:
        print("%s:%s" % (readme, e), file=sys.stderr)
        return 2
    if listing:
        for b in blocks:
            kind = " ".join(str(w) for w in b.marker) if b.marker else "run"
            first = "" if kind.startswith("file") else ": " + b.commands()[0][2]
            print("%s: %s%s" % (b.name(readme), kind, first))
        return 0
    fd, name = tempfile.mkstemp(suffix=".sh", prefix="readme-blocks-")
    with os.fdopen(fd, "w") as f:
        f.write(script(readme, blocks))
    try:
        rc = subprocess.call(["bash", "--noprofile", "--norc", name], cwd=args[1])
    finally:
        os.unlink(name)
    if rc == 0:
        ran = [b for b in blocks if not b.marker or b.marker[0] != "skip"]
        print("README: %d blocks, %d commands ran as printed (%d set-up blocks skipped)" % (
            len(ran), sum(len(b.commands()) for b in ran if b.is_shell() and
                          (not b.marker or b.marker[0] != "file")), len(blocks) - len(ran)))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
