#!/usr/bin/env bats
# asmevo-report: one self-contained report.html over a real search run (the de-optimized vector
# add improved by asmevo-agent) and over a workflow run; its content checked against the run's
# own files; rendered by a real browser (headless Chromium: a screenshot that is not blank, and
# the SVG measured in the page); empty, half-written and nonexistent run directories.
load test_helper

# search_run: deopt's kernel searched by the rules driver into run/ (it commits several nodes).
search_run() {
  deopt
  asmevo-agent deopt.hsaco --asm deopt.s --spec deopt.json --run-dir run --max-candidates 40 -q \
    > /dev/null
}

# no_outside FILE: nothing in the page refers outside it.
no_outside() {
  run grep -Eio 'https?://|src=|url\(|@import|<link' "$1"
  assert_failure 1
}

@test "asmevo-report --help matches its man page" {
  assert_help_matches_man asmevo-report
}

@test "a search run: commits, diffs, modeled labels and gate counts from the run's files" {
  search_run
  run asmevo-report run
  assert_success
  assert_output --regexp "^asmevo-report: wrote run/report\.html: search run, 41 nodes, [0-9]+ commits, nothing missing$"
  no_outside run/report.html
  python3 - <<'PY'
import collections, difflib, glob, html, json, os, re
page = open("run/report.html").read()
nodes = {os.path.basename(os.path.dirname(p)): json.load(open(p))
         for p in glob.glob("run/nodes/*/node.json")}
commits = sorted(i for i, n in nodes.items() if n["committed"] and i != "n000000")
assert len(commits) >= 3, commits
# every commit has its section, and every node a tree node
for c in commits:
    assert 'id="commit-%s"' % c in page, c
    assert "Commit %s (from %s)" % (c, nodes[c]["parent"]) in page, c
tree = re.findall(r'<g class="node[^"]*" data-id="([^"]+)"', page)
assert sorted(tree) == sorted(nodes), (len(tree), len(nodes))
# each commit's diffs show exactly the lines changed: against K0 (the root's text), and against
# its parent when that is not the root
def diff(a, b):
    return [l for l in difflib.unified_diff(a, b, lineterm="", n=3) if l[:1] in "+-"
            and not l.startswith(("+++", "---"))]
def text(i):
    return open("run/nodes/%s/cand.s" % i).read().splitlines()
for c in commits:
    sec = page[page.index('id="commit-%s"' % c):]
    sec = sec[:sec.index("</section>")]
    got = {}
    for against, pre in re.findall(r'<pre class="diff" data-against="(\w+)">(.*?)</pre>', sec, re.S):
        got[against] = [html.unescape(re.sub(r"<b class=\"deleted\">deleted</b>", "", x))
                        for x in re.findall(r'<span class="(?:add|del|del deleted)">(.*?)</span>', pre)]
    assert got["K0"] == diff(text("n000000"), text(c)), (c, got["K0"])
    parent = nodes[c]["parent"]
    if parent != "n000000":
        assert got["parent"] == diff(text(parent), text(c)), (c, got["parent"])
    else:
        assert "parent" not in got, c
# the diffcheck verdict is not a figure: no "modeled" on it, and its outcome is said once
for row in re.findall(r"<tr><th>diffcheck</th><td>(.*?)</td></tr>", page):
    assert "modeled" not in row and '<span class="kind backend">on emu</span>' in row, row
    assert "ok: ok:" not in html.unescape(re.sub(r"<[^>]+>", "", row)), row
assert "ok: ok:" not in html.unescape(re.sub(r"<[^>]+>", "", page))
# the gate counts are the nodes' stage and outcome counts (node.json's outcome in data-outcome)
want = collections.Counter((n["stage"], n["outcome"]) for i, n in nodes.items() if i != "n000000")
got = collections.Counter()
for s_, o, c in re.findall(
        r'<tr class="gate" data-stage="([^"]*)" data-outcome="([^"]*)" data-count="(\d+)">', page):
    got[(s_, o)] += int(c)
assert got == want, (got, want)
# a verified node that was not committed is "slower" only when it was slower than the best at
# the time; at the best's speed or above it was not faster enough for the gate's margin
drawn = dict(re.findall(r'<g class="node[^"]*" data-id="([^"]+)" data-outcome="([^"]*)"', page))
shown = collections.Counter()
for i, n in nodes.items():
    if n["verified"] and not n["committed"]:
        best = nodes[n["best_before"]]["speedup"]
        w = "not faster enough" if n["speedup"] >= best else "slower"
        # the nominal figures cleared Eq. 2, some parameter set of the model's ensemble did not
        if n["gate"]["point_commit"] and len(n["speedups"]) > 1:
            w = "not faster under every parameter set"
        assert drawn[i] == w, (i, drawn[i], n["speedup"], best)
        shown[w] += 1
assert shown["not faster enough"] + shown["not faster under every parameter set"] >= 5, shown
# the model's interval over its parameter sets, beside every commit's speedup
for c in commits:
    s = nodes[c]["speedups"]
    assert len(s) == 8 and min(s) > 1, (c, s)
    label = '<span class="interval" title="least and most over 8 parameter sets of the model; faster than K0 under 8 of 8">[%.4f, %.4f]</span>' % (min(s), max(s))
    sec = page[page.index('id="commit-%s"' % c):]
    assert label in sec[:sec.index("</section>")], (c, label)
assert "8 parameter sets (seed 1: a commit clears the gate under every one)" in page
sigs = collections.Counter(n["signature"] for n in nodes.values() if n["signature"])
got = re.findall(r'<tr class="signature" data-count="(\d+)"><td>(.*?)</td>', page)
assert {html.unescape(s): int(c) for c, s in got} == dict(sigs), (got, sigs)
# how far the model is believed on K0's GPU: the summary's agreement, one cell per run
summary = json.load(open("run/summary.json"))["body"]["model_agreement"]
assert summary["status"] == "measured", summary
cell = re.findall(r"<tr><th>model agreement</th><td>(.*?)</td></tr>", page)
assert len(cell) == 1, cell
assert cell[0].startswith("MI300X: modeled/published 1.03 (geometric mean of 7 published kernels), 100% within &plusmn;25%, target met; MI325X: modeled/published 1.11"), cell
PY
}

@test "--json: the envelope names the file, the counts and nothing missing; -o - writes stdout" {
  search_run
  run --separate-stderr asmevo-report run -o r.html --json
  assert_report asmevo-report ok 0
  python3 - <<'PY'
import glob, json
b = json.load(open("report.json"))["body"]
n = len(glob.glob("run/nodes/*/node.json"))
assert b["output"] == "r.html" and b["kind"] == "search" and b["nodes"] == n, b
assert b["missing"] == [] and b["commits"] >= 3, b
PY
  [ -s r.html ] && [ ! -e run/report.html ]
  run --separate-stderr asmevo-report run -o -
  assert_success
  cmp <(echo "$output") r.html
  assert_equal "$stderr" "asmevo-report: wrote -: search run, 41 nodes, $(python3 -c 'import json; print(json.load(open("report.json"))["body"]["commits"])') commits, nothing missing"
}

# png_nonblank FILE: the share of pixels of a PNG (8-bit RGB or RGBA) that are not the page's
# white background, decoded with zlib and struct only.
png_nonblank() {
  python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, color = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and color in (2, 6), (depth, color)
        bpp = 3 if color == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride = zlib.decompress(idat), w * bpp
prev, ink = bytearray(stride), 0
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    ink += sum(1 for x in range(0, stride, bpp) if line[x:x + 3] != b"\xff\xff\xff")
    prev = line
print("%.4f" % (ink / (w * h)))
PY
}

@test "a real browser renders it: a screenshot that is not blank, the tree and the plots measured" {
  search_run
  asmevo-report run -q
  export HOME=$PWD/home # Chromium keeps its profile there
  mkdir -p home
  chrome=(chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars
    --disable-dev-shm-usage --no-first-run)
  shot=${ASMEVO_ARTIFACT_DIR:-$BATS_RUN_TMPDIR}/asmevo-report-screenshot.png
  mkdir -p "$(dirname "$shot")"
  rm -f "$shot"
  timeout 120 "${chrome[@]}" --screenshot="$shot" --window-size=1400,2000 \
    "file://$PWD/run/report.html" 2> chromium.log || { cat chromium.log; false; }
  echo "# screenshot: $shot" >&3
  ink=$(png_nonblank "$shot")
  echo "# share of non-background pixels: $ink" >&3
  python3 -c "import sys; sys.exit(0 if 0.02 < $ink < 0.9 else 1)"
  # The page's own script measures what was drawn and writes it into a data block that is never
  # displayed (<script type="application/json" id="render-check">): no debug line on the page.
  ! grep -q '<pre id="render-check"' run/report.html
  [ "$(grep -o 'id="render-check"' run/report.html | wc -l)" = 1 ]
  grep -q '<script type="application/json" id="render-check"></script>' run/report.html
  timeout 120 "${chrome[@]}" --virtual-time-budget=5000 --dump-dom \
    "file://$PWD/run/report.html" > dom.html 2> chromium.log || { cat chromium.log; false; }
  python3 - <<'PY'
import glob, json, re
dom = open("dom.html").read()
m = re.search(r'<script type="application/json" id="render-check">(\{.*?\})</script>', dom)
assert m, "the page's render check did not run"
r = json.loads(m.group(1))
n = len(glob.glob("run/nodes/*/node.json"))
assert r["tree_nodes"] == n and r["tree_nodes_drawn"] == n, (r, n)
assert r["plots"] == 2 and r["tick_labels"] >= 8, r
assert sorted(set(r["axis_titles"])) == ["best speedup over K0 (modeled, emu)",
    "candidates evaluated", "wall-clock seconds since K0 was recorded"], r["axis_titles"]
PY
}

@test "a half-written run still renders and lists exactly what is missing" {
  search_run
  first=$(python3 -c '
import glob, json
print(min(p.split("/")[2] for p in glob.glob("run/nodes/*/node.json")
          if json.load(open(p))["committed"] and "n000000" not in p))')
  rm run/summary.json run/nodes/n000000/cand.s "run/nodes/$first/time.json"
  events=$(wc -l < run/journal.jsonl)
  printf '{"event": "node", "id": "n0000' >> run/journal.jsonl
  mkdir run/nodes/n000999
  echo '{}' > run/nodes/n000999/edit.json
  run asmevo-report run
  assert_success
  assert_line --index 0 --regexp '^asmevo-report: wrote run/report\.html: search run, 41 nodes, [0-9]+ commits, 5 missing parts$'
  assert_line --index 1 "  missing: journal.jsonl: line $((events + 1)) is torn (the run stopped while writing it)"
  assert_line --index 2 "  missing: nodes/n000000/cand.s: missing"
  assert_line --index 3 "  missing: nodes/$first/time.json: missing"
  assert_line --index 4 "  missing: nodes/n000999/node.json: missing (a candidate being evaluated when the run stopped)"
  assert_line --index 5 "  missing: summary.json: missing (the search has not finished: stopped, or still running)"
  [ "${#lines[@]}" -eq 6 ]
  for m in "journal.jsonl: line $((events + 1)) is torn (the run stopped while writing it)" \
    "nodes/n000000/cand.s: missing" "nodes/$first/time.json: missing" \
    "nodes/n000999/node.json: missing (a candidate being evaluated when the run stopped)" \
    "summary.json: missing (the search has not finished: stopped, or still running)"; do
    grep -qF "<li>$m</li>" run/report.html || fail "no missing line '$m' in the page"
  done
  # The first commit's parent is the root, whose text is gone: its edit is shown instead.
  grep -qF "the parent's text (nodes/n000000/cand.s) is missing: below is the edit as proposed (edit.json)" run/report.html
  grep -qF "time.json is missing" run/report.html
  no_outside run/report.html
}

@test "an empty run directory renders, everything listed as missing" {
  mkdir empty
  run asmevo-report empty
  assert_success
  assert_output "asmevo-report: wrote empty/report.html: search run, 0 nodes, 0 commits, 4 missing parts
  missing: run.json: missing (the run's identity: K0, kernel, launch spec)
  missing: journal.jsonl: missing
  missing: nodes/: missing (no candidate was recorded)
  missing: summary.json: missing (the search has not finished: stopped, or still running)"
  grep -qF "<li>nodes/: missing (no candidate was recorded)</li>" empty/report.html
  grep -qF "<h2>Missing</h2>" empty/report.html
  no_outside empty/report.html
}

@test "a path that does not exist or is not a directory is an input error; nothing is written" {
  run --separate-stderr asmevo-report nope
  assert_failure 2
  assert_equal "$stderr" "asmevo-report: error: 'nope': no such file or directory"
  [ -z "$output" ]
  [ ! -e nope ]
  touch plain
  run --separate-stderr asmevo-report plain -o out.html
  assert_failure 2
  assert_equal "$stderr" "asmevo-report: error: 'plain': not a directory"
  [ ! -e out.html ]
  run --separate-stderr asmevo-report nope --json
  assert_report asmevo-report input_error 2
  [ "$(ls)" = "$(printf 'plain\nreport.json')" ]
}

@test "make -f Makefile.workflow report: one report per kernel and one over the run" {
  deopt
  mkdir k
  cp deopt.hsaco k/
  make -s -f "$ASMEVO_SOURCE_DIR/Makefile.workflow" OBJ=k/deopt.hsaco TOOLS="$ASMEVO_TOOLS" \
    SPEC="$ASMEVO_SOURCE_DIR/test/specs/vector_add_fp32.json" MAX_CANDIDATES=20 RUN=runs > /dev/null
  # A second kernel whose workflow stopped after its copy (no search yet).
  mkdir runs/k-late
  cp deopt.hsaco runs/k-late/k0.hsaco
  run make -s -f "$ASMEVO_SOURCE_DIR/Makefile.workflow" KERNELS="k/deopt.hsaco k/late.hsaco" \
    TOOLS="$ASMEVO_TOOLS" RUN=runs report
  assert_success
  assert_line "workflow: k-late: no search yet, no report of its own"
  assert_line --regexp "^asmevo-report: wrote runs/report\.html: workflow run, 2 kernels, 21 nodes, [0-9]+ commits, 7 missing parts$"
  [ -s runs/k-deopt/report.html ] && [ ! -e runs/k-late/report.html ]
  for m in "k-late/k0.s: missing" "k-late/summary.json: missing" \
    "k-late/search/: missing (the search has not started)"; do
    grep -qF "<li>$m</li>" runs/report.html || fail "no missing line '$m'"
  done
  # The overview links each kernel to its section of the same page.
  grep -qF '<a href="#k-k-deopt-overview">k-deopt</a>' runs/report.html
  grep -qF 'id="k-k-deopt-overview"' runs/report.html
  grep -qF 'id="k-k-deopt-commit-n000001"' runs/report.html
  grep -qF '<a href="#k-k-late-overview">k-late</a>' runs/report.html
  no_outside runs/report.html
  no_outside runs/k-deopt/report.html
}

@test "the time axis comes from node.json's recorded_at, so a copy of the run keeps it" {
  search_run
  # A copy whose files' modification times run backwards: only recorded_at can order them.
  cp -r run copy
  for f in $(ls -r copy/nodes/*/node.json); do touch "$f"; sleep 0.01; done
  run asmevo-report copy -o copy.html -q
  assert_success
  grep -q 'wall-clock seconds since K0 was recorded' copy.html
  python3 - <<'PY'
import glob, json
t = [json.load(open(f))["recorded_at"] for f in sorted(glob.glob("run/nodes/*/node.json"))]
assert all(x > 1.7e9 for x in t) and t == sorted(t), t
PY
}

@test "-o never names one of the run's files (also through a link); an .html file in RUN is fine" {
  search_run
  mkdir elsewhere
  ln -s ../run elsewhere/linked-dir
  ln -s run/run.json link.html
  ln run/summary.json hard.html
  snapshot_tree
  for out in run/journal.jsonl run/run.json run/summary.json run/best.s run/nodes/n000001/node.json \
    run/nodes/n000001/cand.s run/nodes/n000001/new.html run/nodes/../best.hsaco \
    elsewhere/linked-dir/journal.jsonl; do
    run --separate-stderr asmevo-report run -o "$out"
    assert_failure 2
    assert_equal "$stderr" "asmevo-report: error: '$out': is inside the run directory 'run', whose files the report reads; the report goes there only as an .html file directly in it (by default 'run/report.html'): choose another output"
    [ -z "$output" ]
  done
  run --separate-stderr asmevo-report run -o link.html
  assert_failure 2
  assert_equal "$stderr" "asmevo-report: error: 'link.html': is the same file as 'run/run.json' of the run directory; writing it would destroy the run's file: choose another output"
  run --separate-stderr asmevo-report run -o hard.html --json
  assert_report asmevo-report input_error 2
  assert_equal "$stderr" "asmevo-report: error: 'hard.html': is the same file as 'run/summary.json' of the run directory; writing it would destroy the run's file: choose another output"
  assert_tree_unchanged report.json
  # A workflow run: its kernels' files too.
  mkdir -p wf/k-add
  cp -r run wf/k-add/search
  cp deopt.hsaco wf/k-add/k0.hsaco
  snapshot_tree
  run --separate-stderr asmevo-report wf -o wf/k-add/k0.hsaco
  assert_failure 2
  assert_equal "$stderr" "asmevo-report: error: 'wf/k-add/k0.hsaco': is inside the run directory 'wf', whose files the report reads; the report goes there only as an .html file directly in it (by default 'wf/report.html'): choose another output"
  assert_tree_unchanged
  # An .html file directly in the run directory is the report's to write.
  run asmevo-report run -o run/other.html -q
  assert_success
  [ -s run/other.html ] && [ "$(head -c 15 run/other.html)" = "<!DOCTYPE html>" ]
  assert_tree_unchanged run/other.html
}

@test "a damaged file of the run is an input error that names it and the field; nothing is written" {
  search_run
  cp -r run r1 && cp -r run r2 && cp -r run r3 && cp -r run r4
  python3 - <<'PY'
import glob, json
p = "r1/nodes/n000003/node.json"
n = json.load(open(p)); n["speedup"] = "fast"; json.dump(n, open(p, "w"))
lines = open("r2/journal.jsonl").read().splitlines(True)
open("r2/journal.jsonl", "w").write("".join(lines[:2] + ["{torn\n"] + lines[2:]))
s = json.load(open("r3/summary.json")); s["body"]["seconds"] = "3 s"; json.dump(s, open("r3/summary.json", "w"))
first = min(p.split("/")[2] for p in glob.glob("r4/nodes/*/node.json")
            if json.load(open(p))["committed"] and "n000000" not in p)
open("r4/nodes/%s/cand.s" % first, "ab").write(b"\t\xff\n")
open("first", "w").write(first)
PY
  first=$(cat first)
  snapshot_tree
  run --separate-stderr asmevo-report r1
  assert_failure 2
  assert_equal "$stderr" "asmevo-report: error: 'r1/nodes/n000003/node.json': \"speedup\" is \"fast\" (a string), not a number"
  run --separate-stderr asmevo-report r2
  assert_failure 2
  assert_equal "$stderr" "asmevo-report: error: 'r2/journal.jsonl':3: not valid JSON (at column 3)"
  # This one aborted with an uncaught exception (nlohmann's type_error) before.
  run --separate-stderr asmevo-report r3 --json
  assert_report asmevo-report input_error 2
  assert_equal "$stderr" "asmevo-report: error: 'r3/summary.json': \"body.seconds\" is \"3 s\" (a string), not a number"
  run --separate-stderr asmevo-report r4
  assert_failure 2
  assert_equal "$stderr" "asmevo-report: error: 'r4/nodes/$first/cand.s'@0x$(printf '%x' $(($(stat -c %s "run/nodes/$first/cand.s") + 1))): not valid UTF-8 (byte 0xff)"
  assert_tree_unchanged report.json
}

@test "a file of a format version this build does not read is an input error naming it; nothing is written" {
  search_run
  cp -r run r1 && cp -r run r2 && cp -r run r3
  python3 - <<'PY'
import json
def bump(p, v):
    j = json.load(open(p)); j["format_version"] = v; json.dump(j, open(p, "w"))
bump("r1/run.json", 2)
bump("r2/nodes/n000003/node.json", 2)
bump("r3/summary.json", "1")
PY
  snapshot_tree
  run --separate-stderr asmevo-report r1
  assert_failure 2
  assert_equal "$stderr" "asmevo-report: error: 'r1/run.json': format asmevo-run version 2; this build reads version 1"
  run --separate-stderr asmevo-report r2 --json
  assert_report asmevo-report input_error 2
  assert_equal "$stderr" "asmevo-report: error: 'r2/nodes/n000003/node.json': format asmevo-node version 2; this build reads version 1"
  run --separate-stderr asmevo-report r3
  assert_failure 2
  assert_equal "$stderr" "asmevo-report: error: 'r3/summary.json': format asmevo-report version \"1\"; this build reads version 1"
  assert_tree_unchanged report.json
}

@test "a stochastic walk's commit: the diff against K0 shows its uncommitted ancestors' edits and flags deleted instructions" {
  deopt
  asmevo-agent deopt.hsaco --asm deopt.s --spec deopt.json --run-dir run --driver stochastic \
    --seed 4 --max-candidates 10 -q > /dev/null
  snapshot_tree
  run asmevo-report run -q
  assert_success
  assert_tree_unchanged run/report.html
  python3 - <<'PY'
import collections, glob, html, json, os, re
page = open("run/report.html").read()
nodes = {os.path.basename(os.path.dirname(p)): json.load(open(p))
         for p in glob.glob("run/nodes/*/node.json")}
text = lambda i: open("run/nodes/%s/cand.s" % i).read().splitlines()
# the commits whose parent was a step of the walk that was not committed
walk = [c for c, n in nodes.items() if n["committed"] and c != "n000000"
        and not nodes[n["parent"]]["committed"]]
assert walk, "the walk committed no node whose parent was uncommitted"
def mnemonic(l):
    m = re.match(r"\s*([A-Za-z][A-Za-z0-9_.]*)(?!\S*:)", l)
    return m.group(1) if m and not l.strip().startswith(".") else None
def deleted(a, b):
    ca = collections.Counter(filter(None, map(mnemonic, a)))
    ca.subtract(collections.Counter(filter(None, map(mnemonic, b))))
    return {k: v for k, v in ca.items() if v > 0}
flagged = 0
for c in walk:
    sec = page[page.index('id="commit-%s"' % c):]
    sec = sec[:sec.index("</section>")]
    k0 = re.search(r'<pre class="diff" data-against="K0">(.*?)</pre>', sec, re.S).group(1)
    par = re.search(r'<pre class="diff" data-against="parent">(.*?)</pre>', sec, re.S).group(1)
    lines = lambda pre: [html.unescape(re.sub(r"<b class=\"deleted\">deleted</b>", "", x))
                         for x in re.findall(r'<span class="(?:add|del|del deleted)">(.*?)</span>', pre)]
    # Any correct diff (a moved line may show at either end): what it deletes less what it adds
    # is what K0 has and the commit lacks, and the other way round.
    got = lines(k0)
    dels = collections.Counter(l[1:] for l in got if l[:1] == "-")
    adds = collections.Counter(l[1:] for l in got if l[:1] == "+")
    a, b = collections.Counter(text("n000000")), collections.Counter(text(c))
    assert dels - adds == a - b and adds - dels == b - a, (c, got)
    assert got and all(l[:1] in "+-" for l in got), (c, got)
    # what the uncommitted parent changed is in the diff against K0, not in the parent's
    assert set(lines(k0)) - set(lines(par)), c
    assert "was not committed" in sec, c
    d = deleted(text("n000000"), text(c))
    total = sum(d.values())
    marks = len(re.findall(r'<span class="del deleted">', k0))
    assert marks == total, (c, marks, d)
    if total:
        flagged += 1
        m = re.search(r'<p class="deleted-summary" data-deleted="(\d+)">(.*?)</p>', sec)
        assert m and int(m.group(1)) == total, (c, m and m.group(0))
        for k in d:
            assert k in m.group(2), (k, m.group(2))
    else:
        assert "deleted-summary" not in sec, c
assert flagged, "no commit of the walk deleted an instruction of K0"
PY
}

@test "one candidate: every count on the page is in the singular" {
  deopt
  asmevo-agent deopt.hsaco --asm deopt.s --spec deopt.json --run-dir run --max-candidates 1 -q \
    > /dev/null
  snapshot_tree
  run asmevo-report run
  assert_success
  assert_tree_unchanged run/report.html
  grep -q '<p class="note">1 candidate; each stops' run/report.html
  # (The "result" row quotes summary.json's message, asmevo-agent's own words.)
  run grep -Eo '\b1 (candidates|nodes|events|commits|instructions|kernels|missing parts)\b' \
    <(grep -v '<tr><th>result</th>' run/report.html)
  assert_failure 1
}

# many_nodes N: a search run directory big/ of N candidates as asmevo-agent writes them: the root
# with N/3 verified children, each with a divergent and an unsafe child.
many_nodes() {
  python3 - "$1" <<'PY'
import json, os, sys
n = int(sys.argv[1])
def node(i, parent, outcome, verified, speedup):
    d = "big/nodes/n%06d" % i
    os.makedirs(d)
    j = {"format": "asmevo-node", "format_version": 1, "id": "n%06d" % i, "parent": parent,
         "sources": [], "driver": "stochastic", "edits": [], "edited_lines": [],
         "outcome": outcome, "stage": "gate" if verified else "diffcheck", "signature": "",
         "message": "", "verified": verified, "committed": i == 0, "speedup": speedup,
         "k0_us": 2.0, "us": 2.0 / speedup if speedup else 0, "cv": 0, "threshold": 1.002,
         "kind": "modeled", "backend": "emu", "seconds": 0.1, "best_before": "n000000",
         "recorded_at": 1.8e9 + i}
    json.dump(j, open(d + "/node.json", "w"))
    if i:
        json.dump({"format": "asmevo-edit", "window": {"function": "k"}}, open(d + "/edit.json", "w"))
        rep = {"format": "asmevo-report", "outcome": outcome}
        json.dump(rep, open(d + "/diffcheck.json", "w"))
        if verified:
            json.dump(rep, open(d + "/time.json", "w"))
    if verified:
        open(d + "/cand.s", "w").write("\ts_endpgm\n")
os.makedirs("big")
json.dump({"format": "asmevo-run", "kernel": "k"}, open("big/run.json", "w"))
open("big/journal.jsonl", "w").write('{"event": "start"}\n')
node(0, "", "ok", True, 1.0)
i = 1
while i < n:
    p = i
    node(p, "n000000", "slower", True, 0.9)
    node(p + 1, "n%06d" % p, "divergent", False, 0)
    node(p + 2, "n%06d" % p, "unsafe", False, 0)
    i += 3
PY
}

# py_tree_state: tree_state's listing of $TMP from one Python process (tree_state forks three
# processes a file, minutes for the 11,000 files of many_nodes on a loaded machine).
py_tree_state() {
  python3 - <<'PY'
import hashlib, os
for d, dirs, files in sorted(os.walk(".")):
    dirs.sort()
    for f in sorted(files):
        p = os.path.join(d, f)
        print("f", p, hashlib.sha256(open(p, "rb").read()).hexdigest())
    for x in dirs:
        print("d", os.path.join(d, x))
PY
}

@test "thousands of nodes: the first view of the lineage shows the root, not blank space" {
  many_nodes 3001
  py_tree_state > "$BATS_TEST_TMPDIR/before"
  run asmevo-report big -q
  assert_success
  py_tree_state | diff "$BATS_TEST_TMPDIR/before" - | grep "^[<>]" > "$BATS_TEST_TMPDIR/changes" || true
  [ "$(cat "$BATS_TEST_TMPDIR/changes")" = "> f ./big/report.html $(sha256sum < big/report.html | cut -c1-64)" ] ||
    fail "files outside big/report.html changed: $(cat "$BATS_TEST_TMPDIR/changes")"
  # The root is drawn on the first row (it was in the middle, thousands of pixels down).
  python3 - <<'PY'
import re
page = open("big/report.html").read()
g = re.search(r'<g class="node committed" data-id="n000000"[^>]*>.*?<circle cx="([\d.]+)" cy="([\d.]+)"', page)
assert g and float(g.group(2)) <= 40, g and g.groups()
PY
  export HOME=$PWD/home
  mkdir -p home
  timeout 120 chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
    --disable-dev-shm-usage --no-first-run --window-size=1400,1200 --virtual-time-budget=10000 \
    --dump-dom "file://$PWD/big/report.html" > dom.html 2> chromium.log || { cat chromium.log; false; }
  python3 - <<'PY'
import json, re
m = re.search(r'<script type="application/json" id="render-check">(\{.*?\})</script>',
              open("dom.html").read())
assert m, "the page's render check did not run"
r = json.loads(m.group(1))
assert r["root_in_first_view"] and r["first_view_nodes"] >= 20, r
PY
}
