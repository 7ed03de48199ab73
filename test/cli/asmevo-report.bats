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
# the diff of each commit shows exactly the lines the edit changed
for c in commits:
    a = open("run/nodes/%s/cand.s" % nodes[c]["parent"]).read().splitlines()
    b = open("run/nodes/%s/cand.s" % c).read().splitlines()
    sec = page[page.index('id="commit-%s"' % c):]
    sec = sec[:sec.index("</section>")]
    want = [l for l in difflib.unified_diff(a, b, lineterm="", n=3) if l[:1] in "+-"
            and not l.startswith(("+++", "---"))]
    got = [html.unescape(x) for x in re.findall(r'<span class="(?:add|del)">(.*?)</span>', sec)]
    assert got == want, (c, got, want)
# every figure is modeled, on emu
assert page.count('<span class="kind modeled">modeled, emu</span>') >= len(commits) * 3
assert 'class="kind measured"' not in page and 'class="kind unknown"' not in page
# the gate counts are the nodes' stage and outcome counts
want = collections.Counter((n["stage"], n["outcome"]) for i, n in nodes.items() if i != "n000000")
got = {(s, o): int(c) for s, o, c in re.findall(
    r'<tr class="gate" data-stage="([^"]*)" data-outcome="([^"]*)" data-count="(\d+)">', page)}
assert got == dict(want), (got, want)
sigs = collections.Counter(n["signature"] for n in nodes.values() if n["signature"])
got = re.findall(r'<tr class="signature" data-count="(\d+)"><td>(.*?)</td>', page)
assert {html.unescape(s): int(c) for c, s in got} == dict(sigs), (got, sigs)
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
  # The page's own script measures what was drawn and writes it into <pre id="render-check">.
  timeout 120 "${chrome[@]}" --virtual-time-budget=5000 --dump-dom \
    "file://$PWD/run/report.html" > dom.html 2> chromium.log || { cat chromium.log; false; }
  python3 - <<'PY'
import glob, json, re
dom = open("dom.html").read()
m = re.search(r'<pre id="render-check">render-check (\{.*?\})</pre>', dom)
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
