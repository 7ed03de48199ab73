#!/usr/bin/env bats
# asmevo-agent --driver llm against a scripted endpoint (fake_llm_server.py, on 127.0.0.1 only,
# started and stopped by each test): in both dialects, a full run on the de-optimized Triton
# vector add commits the scripted improving edit and rejects the bad ones (malformed, refused,
# off-window, too large, divergent) while the client retries through a 429 with retry-after, a
# 500, a cut-short reply and a reply past its timeout. Requests are checked field by field
# against golden files, the key appears in no file the run writes, and --llm-cache replays a
# run, asking again only for the replies that were not usable. Replies that are not UTF-8, that
# do not end, or that misreport their token usage are faults; a driver that only repeats is
# redirected and stopped; bad options, key variables and prompt files are refused up front.
load test_helper

KEY=sk-asmevo-test-7f3a9c1e5d

# deopt (test_helper.bash), built once for the file and copied into each test's directory.
eval "$(declare -f deopt | sed '1s/^deopt /deopt_build /')"
deopt() {
  local d=$BATS_FILE_TMPDIR/deopt
  if [ ! -f "$d/deopt.json" ]; then
    mkdir -p "$d"
    (cd "$d" && deopt_build) >/dev/null
  fi
  cp "$d/deopt.hsaco" "$d/deopt.s" "$d/deopt.json" .
  VADD=$TRITON/gfx942/vector_add_fp32.hsaco
}

# start_llm SCRIPT [LOG]: the fake endpoint, its requests logged under LOG (default log/);
# $LLM_URL its base URL.
start_llm() {
  local log=${2:-log}
  mkdir -p "$log"
  rm -f port
  python3 "$BATS_TEST_DIRNAME/fake_llm_server.py" "$1" port "$log" 3>&- &
  SERVER_PID=$!
  for _ in $(seq 100); do [ -f port ] && break; sleep 0.1; done
  [ -f port ] || fail "the fake LLM endpoint did not start"
  LLM_URL=http://127.0.0.1:$(cat port)
}

# make_script < PYTHON: script.json from PYTHON, which sets S (the script) with these at hand:
# window(a, b), edit(w, rep), PLAN (one step over lines 100-140 of deopt.s), GOOD (the edit that
# lets the loads at 107-122 overlap: committed) and DIVERGENT (an edit of the improved node's
# first add, at line 119 once GOOD is in).
make_script() {
  {
    cat <<'PY'
import json
def window(a, b): return {"function": "add_kernel", "first_line": a, "last_line": b}
def edit(w, rep, why="test"):
    return {"payload": {"window": w, "replacement": rep, "rationale": why,
                        "expected_effect": "fewer stalls"}}
loads = open("deopt.s").read().split("\n")[106:122]
GOOD = edit(window(107, 122), "\n".join(l for l in loads if "s_waitcnt" not in l), "overlap")
DIVERGENT = edit(window(119, 119), "\tv_sub_f32_e32 v4, v4, v8")
PLAN = {"payload": {"steps": [{"window": window(100, 140), "direction": "latency hiding",
                               "why": "every load waits for the one before"}], "done": False}}
PY
    cat
    echo 'json.dump(S, open("script.json", "w"), indent=1)'
  } | python3 - "$@"
}

# journal_faults: the faults in run/journal.jsonl, one "KIND | MESSAGE" line each.
journal_faults() {
  python3 -c '
import json
for l in open("run/journal.jsonl"):
    e = json.loads(l)
    if e["event"] == "fault":
        print(e["fault"] + " | " + e["message"])'
}

teardown() {
  [ -z "${SERVER_PID:-}" ] || kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$TMP"
}

# script: the scripted plan and edits for deopt.s (lines 107-122: eight loads, each followed by
# an s_waitcnt vmcnt(0); 126-133: the adds with their own waits).
script() {
  python3 - "$ASMEVO_SOURCE_DIR" <<'PY'
import json
def window(a, b): return {"function": "add_kernel", "first_line": a, "last_line": b}
def edit(w, rep, why="test"):
    return {"payload": {"window": w, "replacement": rep, "rationale": why,
                        "expected_effect": "fewer stalls"}}
loads = open("deopt.s").read().split("\n")[106:122]
good = "\n".join(l for l in loads if "s_waitcnt" not in l)
plan = {"payload": {"steps": [{"window": window(100, 140), "direction": "latency hiding",
                               "why": "every load waits for the one before"}], "done": False}}
# After the improving edit the best node's text is 8 lines shorter: its first add is line 119.
json.dump({
  "asmevo_plan": [plan], "asmevo_plan_then": plan,
  "asmevo_edit": [
    {"text": "Sure! I would remove the waits."},                         # malformed
    {"refusal": "I cannot help with that."},                             # refused
    {"status": 429, "headers": {"retry-after": "1"}},                    # retried after 1 s
    edit(window(107, 122), good, "the loads can overlap"),               # improving: committed
    edit(window(1, 3), "\ts_nop 0"),                                     # off-window
    {"truncate": True, "payload": {"steps": []}},                        # cut short: retried
    {"delay": 3, "payload": {"steps": []}},                              # past --llm-timeout 2
    edit(window(119, 119), "\n".join(["\ts_nop 0"] * 1100)),             # too large
    {"status": 500},                                                     # retried
    edit(window(119, 119), "\tv_sub_f32_e32 v4, v4, v8"),                # divergent
  ]}, open("script.json", "w"), indent=1)
PY
}

# run_llm DIALECT RUN_DIR [ARGS...]: the search, at most 2 candidates, the key in ASMEVO_TEST_KEY.
run_llm() {
  local dialect=$1 dir=$2
  shift 2
  run --separate-stderr env ASMEVO_TEST_KEY=$KEY asmevo-agent deopt.hsaco --asm deopt.s \
    --spec deopt.json --run-dir "$dir" --driver llm --llm-url "$LLM_URL" --llm-model test-model \
    --llm-dialect "$dialect" --llm-key-env ASMEVO_TEST_KEY --llm-timeout 2 --max-candidates 2 \
    --json "$@"
}

# check_run DIALECT: the outcomes of the scripted run, the requests, the key.
check_run() {
  run_llm "$1" run
  echo "$stderr" > stderr.txt
  assert_report asmevo-agent ok 0
  python3 - "$1" "$KEY" "$ASMEVO_SOURCE_DIR" <<'PY'
import glob, json, os, sys
dialect, key, src = sys.argv[1:4]
e = json.load(open("report.json")); b = e["body"]
# The improving edit is committed, the divergent one rejected; 2 candidates.
assert b["candidates"] == 2 and b["commits"] == 1 and b["speedup"] > 1.1, b
assert b["outcomes"].get("divergent") == 1, b["outcomes"]
faults = [json.loads(l) for l in open("run/journal.jsonl")]
kinds = [f["fault"] for f in faults if f["event"] == "fault"]
assert kinds == ["malformed", "refused", "off-window", "too-large"], kinds
msgs = [f["message"] for f in faults if f["event"] == "fault"]
assert msgs[0] == "llm edit call: the reply is not a JSON object: 'Sure! I would remove the waits.'", msgs[0]
assert msgs[1] == "llm edit call: the model refused: 'I cannot help with that.'", msgs[1]
assert msgs[2] == "llm reply: the edit's lines 1-3 are outside its step's window 100-140", msgs[2]
best = open("run/best.s").read()
assert best.count("s_waitcnt vmcnt(0)") < open("deopt.s").read().count("s_waitcnt vmcnt(0)")
# Token accounting in the report and the journal's stop event.
u = b["driver_usage"]
stop = [f for f in faults if f["event"] == "stop"][-1]
assert stop["driver_usage"] == u, (stop, u)
assert u["dialect"] == dialect and u["model"] == "test-model" and u["cache_hits"] == 0, u
reqs = [json.load(open(f)) for f in sorted(glob.glob("log/*.json"))]
assert u["requests"] == len(reqs), (u, len(reqs))
assert u["retries"] == 4, u                      # the 429, the cut-short reply, the timeout, the 500
assert u["input_tokens"] > 0 and u["output_tokens"] > 0 and u["plan_calls"] >= 2 and u["edit_calls"] == 4 and u["faults"] == 3, u
# retry-after honoured: the request after the 429 came at least 1 s later.
i = next(k for k, r in enumerate(reqs) if r["step"].get("status") == 429)
assert reqs[i + 1]["time"] - reqs[i]["time"] >= 0.95, reqs[i + 1]["time"] - reqs[i]["time"]
# Field by field against the golden first request (a plan); the prompt's own text apart.
g = json.load(open(os.path.join(src, "test/cli/fixtures/llm/%s-plan.request.json" % dialect)))
r = reqs[0]
assert r["path"] == g["path"], r["path"]
for h, v in g["headers"].items():
    assert r["headers"].get(h) == v.replace("<key>", key), (h, r["headers"].get(h))
body = json.loads(json.dumps(r["body"]))
system = open(os.path.join(src, "share/asmevo/prompts/system.txt")).read()
if dialect == "anthropic":
    prompt = body["messages"][0]["content"]; body["messages"][0]["content"] = "<prompt>"
    assert body["system"] == system; body["system"] = "<system>"
else:
    assert body["messages"][0]["content"] == system; body["messages"][0]["content"] = "<system>"
    prompt = body["messages"][1]["content"]; body["messages"][1]["content"] = "<prompt>"
assert body == g["body"], json.dumps(body, indent=1)
assert prompt.startswith("Plan the next edits of kernel add_kernel (gfx942), node n000000: 1.0000x over K0; the\nbest so far is n000000 at 1.0000x."), prompt[:200]
assert "107| \tbuffer_load_dword v4, v0, s[12:15], 0 offen\n108| \ts_waitcnt vmcnt(0)\n" in prompt
assert "Hot windows" in prompt and "{{" not in prompt
# The ABI limits from K0's descriptor, and LLVM's costs of the hot windows' instructions.
assert '"rule": "an edit may use only v0..v15, s0..s17, a0..a3 and the LDS the kernel already has"' in prompt
assert '"vgpr_headroom": ' in prompt and '"limited_by": ' in prompt, prompt[:3000]
facts = prompt[prompt.index("What the instructions in the hot windows cost"):]
facts = json.loads(facts[facts.index("{"):facts.index("\n}\n") + 2])
assert facts["buffer_load_dword"]["unit"] == "vmem" and facts["buffer_load_dword"]["increments"] == ["vmcnt"], facts
assert facts["v_add_f32"]["unit"] == "valu" and facts["v_add_f32"]["from"] == "LLVM's scheduling model", facts
# A replan carries the gate's feedback.
replans = [r for r in reqs if "Revise the plan" in json.dumps(r["body"])]
assert replans and any('"outcome": "malformed"' in json.dumps(r["body"]).replace('\\"', '"') for r in replans)
# The key went out in its header, and is in no file the run wrote.
auth = r["headers"].get("x-api-key") if dialect == "anthropic" else r["headers"].get("authorization")
assert key in auth, auth
for root, _, files in os.walk("run"):
    for f in files:
        assert key.encode() not in open(os.path.join(root, f), "rb").read(), f
for f in ("report.json", "stderr.txt"):
    assert key.encode() not in open(f, "rb").read(), f
print("checked")
PY
}

@test "anthropic: the scripted improving edit is committed, the bad replies and the bad edit are not" {
  deopt
  script
  start_llm script.json
  check_run anthropic
}

@test "openai: the same run through the chat completions dialect" {
  deopt
  script
  start_llm script.json
  check_run openai
}

@test "--workers 2: one plan, then both workers' edit requests at once, one step each" {
  deopt
  python3 - <<'PY'
import json
text = open("deopt.s").read().split("\n")
def window(a, b): return {"function": "add_kernel", "first_line": a, "last_line": b}
def edit(a, b, d):  # drop the waits between lines a and b, for the step of direction d
    rep = "\n".join(l for l in text[a - 1:b] if "s_waitcnt" not in l)
    return {"match": '"direction": "%s"' % d, "delay": 1.5,  # the reply comes 1.5 s late
            "payload": {"window": window(a, b), "replacement": rep, "rationale": "r",
                        "expected_effect": "e"}}
plan = {"payload": {"steps": [{"window": window(107, 114), "direction": "d1", "why": "w"},
                              {"window": window(115, 122), "direction": "d2", "why": "w"}],
                    "done": False}}
json.dump({"asmevo_plan": [plan], "asmevo_plan_then": plan,
           "asmevo_edit": [edit(107, 114, "d1"), edit(115, 122, "d2")]}, open("script.json", "w"))
PY
  start_llm script.json
  run --separate-stderr asmevo-agent deopt.hsaco --asm deopt.s --spec deopt.json --run-dir run \
    --driver llm --llm-url "$LLM_URL" --llm-model m --workers 2 --max-candidates 2 --json
  assert_report asmevo-agent ok 0
  python3 - <<'PY'
import glob, json
reqs = [json.load(open(f)) for f in sorted(glob.glob("log/*.json"))]
kinds = ["edit" if "asmevo_edit" in json.dumps(r["body"]) else "plan" for r in reqs]
assert kinds == ["plan", "edit", "edit"], kinds
# Each edit reply took 1.5 s: one after the other, the second request would come 1.5 s later.
assert abs(reqs[2]["time"] - reqs[1]["time"]) < 0.75, reqs[2]["time"] - reqs[1]["time"]
# One step each: the two edits are for the plan's two windows.
def step(r):
    p = r["body"]["messages"][0]["content"]
    t = p[p.index("for this step of the plan:\n") + 27:]
    return json.loads(t[:t.index("\n}\n") + 2])["window"]["first_line"]
assert sorted(step(r) for r in reqs[1:]) == [107, 115], [step(r) for r in reqs[1:]]
b = json.load(open("report.json"))["body"]
assert b["candidates"] == 2 and b["commits"] >= 1 and b["driver_usage"]["edit_calls"] == 2, b
PY
}

@test "bad configuration: no model, no URL, an unset key variable, a bad dialect, --llm-* without llm" {
  deopt
  run asmevo-agent deopt.hsaco --spec deopt.json --run-dir run1 --driver llm --llm-url http://127.0.0.1:9
  assert_failure 2
  assert_output "asmevo-agent: error: --llm-model is required with --driver llm"
  run asmevo-agent deopt.hsaco --spec deopt.json --run-dir run2 --driver llm --llm-model m
  assert_failure 2
  assert_output "asmevo-agent: error: --llm-url is required with --driver llm"
  run env -u NO_SUCH_KEY asmevo-agent deopt.hsaco --spec deopt.json --run-dir run3 --driver llm \
    --llm-model m --llm-url http://127.0.0.1:9 --llm-key-env NO_SUCH_KEY
  assert_failure 2
  assert_output "asmevo-agent: error: --llm-key-env NO_SUCH_KEY: the environment variable is not set"
  run asmevo-agent deopt.hsaco --spec deopt.json --run-dir run4 --driver llm --llm-dialect gemini
  assert_failure 2
  assert_line --index 0 "asmevo-agent: error: --llm-dialect must be anthropic or openai"
  run asmevo-agent deopt.hsaco --spec deopt.json --run-dir run5 --llm-model m
  assert_failure 2
  assert_line --index 0 "asmevo-agent: error: the --llm-* options are for --driver llm"
}

@test "an endpoint that never answers: the run stops with the transport error, never the key" {
  deopt
  # Nothing listens on port 9 of the loopback: every request fails at once.
  run --separate-stderr env ASMEVO_TEST_KEY=$KEY asmevo-agent deopt.hsaco --asm deopt.s \
    --spec deopt.json --run-dir run --driver llm --llm-url http://127.0.0.1:9 --llm-model m \
    --llm-key-env ASMEVO_TEST_KEY --llm-retries 0
  assert_failure 3
  [[ $stderr == *"asmevo-agent: error: the driver failed 3 times in a row: llm replan call: no usable reply after 1 tries; the last: POST http://127.0.0.1:9/v1/messages: "* ]] || fail "stderr: $stderr"
  [[ $stderr != *"$KEY"* ]]
  ! grep -rq "$KEY" run
}

# utf8_run DIALECT: replies that are not UTF-8 (raw bytes; an invalid sequence inside the edit's
# replacement string), a refusal whose quoted text is cut inside a character, a good edit after
# a byte-order mark and a divergent one: the bad replies are faults in the journal and in the
# next prompt, and the run goes on.
utf8_run() {
  deopt
  make_script <<'PY'
bad = edit(window(119, 119), "\tv_sub_f32_e32 v4, v4, v8@@BAD@@")
bad["bytes"] = {"@@BAD@@": "\u00c3\u0028"}   # C3 28: a lead byte without its continuation
S = {"asmevo_plan": [PLAN], "asmevo_plan_then": PLAN, "asmevo_edit": [
  {"raw": "\u00ff\u00fe<html>bad gateway</html>"},
  {"refusal": "a" + "\u20ac" * 80},          # 241 bytes of UTF-8: cut at 200, inside a '€'
  dict(GOOD, bom=True),
  bad,
  DIVERGENT]}
PY
  start_llm script.json
  snapshot_tree
  run_llm "$1" run
  assert_report asmevo-agent ok 0
  assert_tree_unchanged run log report.json
  run journal_faults
  assert_success
  assert_line --index 0 "malformed | llm edit call: the reply is not valid UTF-8 (byte 0xFF at offset 0 of 26): '��<html>bad gateway</html>'"
  assert_line --index 1 "refused | llm edit call: the model refused: 'a$(printf '€%.0s' $(seq 66))...'"
  assert_line --index 2 --regexp "^malformed \| llm edit call: the reply is not valid UTF-8 \(byte 0xC3 at offset [0-9]+ of [0-9]+\): '\{.*'$"
  python3 - <<'PY'
import glob, json
b = json.load(open("report.json"))["body"]
assert b["candidates"] == 2 and b["commits"] == 1 and b["outcomes"].get("divergent") == 1, b
# The first fault went back to the model in the next (re)plan's feedback.
reqs = [json.load(open(f)) for f in sorted(glob.glob("log/*.json"))]
assert any("the reply is not valid UTF-8 (byte 0xFF" in json.dumps(r["body"], ensure_ascii=False)
           for r in reqs[2:]), "no prompt quoted the fault"
PY
}

@test "anthropic: a reply that is not UTF-8 is a malformed reply, recorded and fed back; a BOM is ignored" {
  utf8_run anthropic
}

@test "openai: a reply that is not UTF-8 is a malformed reply, recorded and fed back; a BOM is ignored" {
  utf8_run openai
}

@test "a reply past 8 MiB is cut off as it streams (no end; a Content-Length of 300 MB): too-large, not retried" {
  deopt
  make_script <<'PY'
S = {"asmevo_plan": [PLAN], "asmevo_plan_then": PLAN,
     "asmevo_edit": [{"endless": True}, {"huge": 300000000}, GOOD]}
PY
  start_llm script.json
  snapshot_tree
  SECONDS=0
  run_llm anthropic run --llm-timeout 60 --max-candidates 1
  took=$SECONDS
  assert_report asmevo-agent ok 0
  assert_tree_unchanged run log report.json
  # An endless reply read until the 60 s timeout would have taken that long (and its memory).
  [ "$took" -lt 30 ] || fail "the run took $took s"
  run journal_faults
  assert_success
  assert_output "too-large | llm edit call: the reply from $LLM_URL/v1/messages is larger than 8 MiB, the most a reply may have; it was not read further (its usage is unknown)
too-large | llm edit call: the reply from $LLM_URL/v1/messages is larger than 8 MiB, the most a reply may have; it was not read further (its usage is unknown)"
  python3 - <<'PY'
import json
b = json.load(open("report.json"))["body"]
u = b["driver_usage"]
assert b["commits"] == 1 and u["retries"] == 0 and u["usage_faults"] == 2, u
assert u["charged_tokens"] > 2 * 4096, u
PY
}

@test "--llm-cache keeps only usable replies: a rerun asks again for the malformed, refused, off-window and too-large ones" {
  deopt
  script
  start_llm script.json
  run_llm anthropic run1 --llm-cache cache
  assert_report asmevo-agent ok 0
  kill "$SERVER_PID"
  python3 - <<'PY'
import glob, json
# Every kept reply is a plan or one of the two edits that became candidates.
edits = []
for f in glob.glob("cache/*.json"):
    reply = json.loads(json.load(open(f))["reply"])
    objs = [b["input"] for b in reply["content"] if b["type"] == "tool_use"]
    if not objs:
        edits.append(reply["content"])  # a malformed or refused reply
    elif "steps" not in objs[0]:
        w = objs[0]["window"]
        edits.append((w["first_line"], w["last_line"], len(objs[0]["replacement"]) < 1000))
assert sorted(edits, key=str) == [(107, 122, True), (119, 119, True)], edits
# The second endpoint answers only what the rerun must ask again, in the first run's order.
steps = json.load(open("script.json"))["asmevo_edit"]
json.dump({"asmevo_edit": [steps[i] for i in (0, 1, 4, 7)]}, open("script2.json", "w"))
PY
  start_llm script2.json log2
  snapshot_tree
  run_llm anthropic run2 --llm-cache cache
  assert_report asmevo-agent ok 0
  assert_tree_unchanged run2 log2 report.json cache
  python3 - <<'PY'
import glob, json
b1 = json.load(open("run1/summary.json"))["body"]
b2 = json.load(open("report.json"))["body"]
for k in ("speedup", "commits", "candidates", "outcomes"):
    assert b1[k] == b2[k], (k, b1[k], b2[k])
# Exactly the four edit requests whose replies were not usable went out again, unchanged.
r1 = [json.load(open(f)) for f in sorted(glob.glob("log/*.json"))]
r2 = [json.load(open(f)) for f in sorted(glob.glob("log2/*.json"))]
again = [r for r in r1 if r["step"] in [x["step"] for x in r2]]
assert len(r2) == 4 and [r["body"] for r in r2] == [r["body"] for r in again], len(r2)
u = b2["driver_usage"]
assert u["requests"] == 4 and u["cache_hits"] == u["calls"] - 4, u
PY
}

@test "--llm-key-env: a value that is not a variable name is refused, never echoed, before anything is written" {
  deopt
  snapshot_tree
  want="asmevo-agent: error: --llm-key-env takes the name of the environment variable that holds the key (letters, digits and '_', not starting with a digit); the value given is not one, and is not shown here since it may be the key itself"
  for v in 'sk-ant-api03-Zx9Qe7_SECRET' '1KEY' 'MY KEY' 'A=B' 'KEY$' ''; do
    json=()
    [ "$v" != 'sk-ant-api03-Zx9Qe7_SECRET' ] || json=(--json)
    run --separate-stderr asmevo-agent deopt.hsaco --spec deopt.json --run-dir run --driver llm \
      --llm-url http://127.0.0.1:9 --llm-model m --llm-key-env "$v" "${json[@]}"
    [ "$status" = 2 ] || fail "'$v': exit $status"
    [ "${stderr%%$'\n'*}" = "$want" ] || fail "'$v': $stderr"
    if [ -n "$v" ]; then
      [[ $stderr$output != *"$v"* ]] || fail "'$v' is echoed"
    fi
  done
  run --separate-stderr asmevo-agent deopt.hsaco --spec deopt.json --run-dir run --driver llm \
    --llm-url http://127.0.0.1:9 --llm-model m --llm-key-env 'sk-ant-api03-Zx9Qe7_SECRET' --json
  assert_report asmevo-agent input_error 2
  ! grep -qF 'SECRET' report.json || fail "the report echoes the value"
  assert_tree_unchanged report.json
}

@test "exec: a driver that always proposes the same edit is redirected after 25 repeats and stopped after 25 more" {
  deopt
  cat > edit.json <<'JSON'
{"window": {"function": "add_kernel", "first_line": 108, "last_line": 108},
 "replacement": "\ts_nop 0", "rationale": "r", "expected_effect": "e"}
JSON
  snapshot_tree
  run --separate-stderr asmevo-agent deopt.hsaco --asm deopt.s --spec deopt.json --run-dir run \
    --driver 'exec:cat > ctx.json; echo >> calls; cat edit.json' --json
  assert_report asmevo-agent ok 0
  assert_tree_unchanged run ctx.json calls report.json
  [ "$(wc -l < calls)" = 51 ] || fail "the driver ran $(wc -l < calls) times"
  [[ $stderr == *"asmevo-agent: redirect: 25 proposals in a row were candidates already evaluated; backtracking to earlier verified nodes"* ]] || fail "$stderr"
  python3 - <<'PY'
import json
b = json.load(open("report.json"))["body"]
stop = "converged: the driver only repeats candidates already evaluated (50 proposals in a row, 25 of them after a redirect)"
assert b["stopped_by"] == stop and b["candidates"] == 1 and b["redirects"] == 1, b
assert b["stages"]["propose:repeat"] == 50, b["stages"]
ev = [json.loads(l) for l in open("run/journal.jsonl")]
assert [e["why"] for e in ev if e["event"] == "redirect"] == [
    "25 proposals in a row were candidates already evaluated; backtracking to earlier verified nodes"]
assert ev[-1]["event"] == "stop" and ev[-1]["why"] == stop, ev[-1]
# The driver was told each time which node its candidate is.
n1 = json.load(open("run/nodes/n000001/node.json"))
ctx = json.load(open("ctx.json"))
assert ctx["feedback"]["outcome"] == "repeat", ctx["feedback"]
assert ctx["feedback"]["message"] == "this edit was already evaluated: it gives the candidate of node n000001 (%s: %s); propose a different one" % (n1["stage"], n1["outcome"]), ctx["feedback"]
assert ctx["redirect"] == "stalled: 25 proposals in a row were candidates already evaluated; try another window or direction", ctx["redirect"]
PY
}

@test "llm: an endpoint that repeats one edit is told so each time, redirected after 25 repeats, stopped after 50" {
  deopt
  make_script <<'PY'
S = {"asmevo_plan": [PLAN], "asmevo_plan_then": PLAN,
     "asmevo_edit": [], "asmevo_edit_then": edit(window(108, 108), "\ts_nop 0")}
PY
  start_llm script.json
  snapshot_tree
  run_llm anthropic run --max-candidates 100
  assert_report asmevo-agent ok 0
  assert_tree_unchanged run log report.json
  python3 - <<'PY'
import glob, json
b = json.load(open("report.json"))["body"]
u = b["driver_usage"]
assert b["stopped_by"].startswith("converged: the driver only repeats candidates already evaluated (50 proposals in a row"), b["stopped_by"]
# A plan and an edit for the candidate, then a replan and an edit for each of the 50 repeats.
reqs = [json.load(open(f)) for f in sorted(glob.glob("log/*.json"))]
assert len(reqs) == 102 and u["requests"] == 102 and b["candidates"] == 1, (len(reqs), u)
# The default budgets hold.
assert u["max_requests"] == 500 and u["max_tokens"] == 5000000, u
text = [json.dumps(r["body"]) for r in reqs]
assert "this edit was already evaluated: it gives the candidate of node n000001" in text[4], text[4][:300]
assert "The search has stalled (25 proposals in a row were candidates already evaluated)" in text[2 + 2 * 25], text[52][:300]
PY
}

@test "--llm-max-requests and --llm-max-tokens have finite defaults, in --help and the man page; a spent budget says so" {
  run asmevo-agent --help
  assert_success
  assert_output --partial "Requests the run may send, retries included (default 500; 0: no"
  assert_output --partial "Input and output tokens the run may spend (default 5000000; 0: no"
  man=$ASMEVO_SOURCE_DIR/man/man1/asmevo-agent.1
  tr '\n' ' ' < "$man" | grep -q 'retries included, cache hits not (default 500; 0: no limit)'
  tr '\n' ' ' < "$man" | grep -q 'as the endpoint counts them (default 5000000; 0: no limit)'

  deopt
  script
  start_llm script.json
  snapshot_tree
  run_llm anthropic run --llm-max-requests 3
  assert_report asmevo-agent ok 0
  assert_tree_unchanged run log report.json
  python3 - <<'PY'
import json
b = json.load(open("report.json"))["body"]
assert b["stopped_by"] == "the request budget is spent (3 requests, --llm-max-requests)", b["stopped_by"]
assert b["driver_usage"]["requests"] == 3 and b["driver_usage"]["max_requests"] == 3, b
PY
  run_llm anthropic run0 --llm-max-requests 0 --llm-max-tokens 0 --max-candidates 1
  assert_report asmevo-agent ok 0
  python3 -c '
import json; u = json.load(open("report.json"))["body"]["driver_usage"]
assert u["max_requests"] == 0 and u["max_tokens"] == 0, u'
}

# usage_run DIALECT USAGE1 USAGE2 USAGE3 USAGE4: the usage of four replies the endpoint
# misreports (the first two carry the improving edit, the last two the divergent one), each
# followed by the honest ones.
usage_run() {
  deopt
  make_script "$@" <<'PY'
import sys
u = [json.loads(x) for x in sys.argv[2:6]]
S = {"asmevo_plan": [PLAN], "asmevo_plan_then": PLAN, "asmevo_edit": [
  dict(GOOD, usage=u[0]), dict(GOOD, usage=u[1]), GOOD,
  dict(DIVERGENT, usage=u[2]), dict(DIVERGENT, usage=u[3]), DIVERGENT]}
PY
  start_llm script.json
  snapshot_tree
  run_llm "$1" run
  assert_report asmevo-agent ok 0
  assert_tree_unchanged run log report.json
  run journal_faults
  assert_success
  [ "${#lines[@]}" = 4 ] || fail "$output"
  python3 - <<'PY'
import json, re
b = json.load(open("report.json"))["body"]
u = b["driver_usage"]
assert b["candidates"] == 2 and b["commits"] == 1 and u["usage_faults"] == 4, (b, u)
charged = 0
for l in open("run/journal.jsonl"):
    e = json.loads(l)
    if e["event"] == "fault":
        m = re.search(r"; ([0-9]+) tokens, the most the request could cost, are charged to "
                      r"--llm-max-tokens instead$", e["message"])
        assert m, e["message"]
        charged += int(m.group(1))
assert u["charged_tokens"] == charged, (u, charged)
PY
}

@test "anthropic: token usage that is negative, fractional, missing or past max_tokens is a fault, charged at its bound" {
  usage_run anthropic '[-5, 50]' '[100, 1.5]' '["absent", 50]' '[100, 5000]'
  prefix="malformed | llm edit call: the reply's token usage cannot be believed:"
  assert_line --index 0 --regexp "^$prefix usage\.input_tokens is -5, not a count of tokens; [0-9]+ tokens"
  assert_line --index 1 --regexp "^$prefix usage\.output_tokens is 1\.5, not a count of tokens; "
  assert_line --index 2 --regexp "^$prefix usage\.input_tokens is missing; "
  assert_line --index 3 --regexp "^$prefix usage says 5000 output tokens, more than the request's max_tokens 4096; "
}

@test "openai: no usage, an input count past the request's size, a string, a count past 2^64: each a fault" {
  usage_run openai 'null' '[1000000000000, 50]' '["12", 50]' '[100, 1e30]'
  prefix="malformed | llm edit call: the reply's token usage cannot be believed:"
  assert_line --index 0 --regexp "^$prefix the reply has no usage object; "
  assert_line --index 1 --regexp "^$prefix usage says 1000000000000 input tokens for a request of [0-9]+ bytes; "
  assert_line --index 2 --regexp "^$prefix usage\.prompt_tokens is \"12\", not a count of tokens; "
  assert_line --index 3 --regexp "^$prefix usage\.completion_tokens is 1e\+30, not a count of tokens; "
}

@test "bad --llm-* values: exit 2 with the option named, nothing written, no crash with --json" {
  deopt
  touch a-file
  snapshot_tree
  check() {
    local want=$1
    shift
    run --separate-stderr asmevo-agent deopt.hsaco --spec deopt.json --run-dir run --driver llm \
      --llm-url http://127.0.0.1:9 "$@"
    [[ $* != *--json* ]] || assert_report asmevo-agent input_error 2
    [ "$status" = 2 ] || fail "$*: exit $status"
    [ "${stderr%%$'\n'*}" = "asmevo-agent: error: $want" ] || fail "$*: $stderr"
  }
  check "--llm-timeout must be more than 0 and at most 86400 seconds" --llm-model m --llm-timeout 0
  check "--llm-timeout must be more than 0 and at most 86400 seconds" --llm-model m --llm-timeout 1e308
  check "option '--llm-timeout': 'nan' is not a valid value" --llm-model m --llm-timeout nan
  check "--llm-retries must be at most 50" --llm-model m --llm-retries 51
  check "--llm-reply-tokens must be 1 to 1000000" --llm-model m --llm-reply-tokens 0
  check "--llm-reply-tokens must be 1 to 1000000" --llm-model m --llm-reply-tokens 1000001
  check "option '--llm-max-requests': '-1' is not a valid value" --llm-model m --llm-max-requests -1
  check "option '--llm-max-tokens': '1.5' is not a valid value" --llm-model m --llm-max-tokens 1.5
  # (stderr quotes the argument as given; the --json envelope as U+FFFD)
  check "option '--llm-max-requests': '"$'\xff'"' is not a valid value" --llm-model m --llm-max-requests $'\xff' --json
  grep -q "'--llm-max-requests': '�' is not a valid value" report.json
  check "--llm-model '�x' is not a model name (not UTF-8 text, or a control character)" --llm-model $'\xffx' --json
  check "--llm-model 'a\\x0ab' is not a model name (not UTF-8 text, or a control character)" --llm-model $'a\nb'
  check "--llm-model is required with --driver llm" --llm-model ''
  check "--llm-url 'ftp://h' is not an http:// or https:// URL (ASCII, no spaces)" --llm-model m --llm-url ftp://h
  check "--llm-url 'http://a b' is not an http:// or https:// URL (ASCII, no spaces)" --llm-model m --llm-url 'http://a b'
  check "--llm-cache 'a-file': not a directory" --llm-model m --llm-cache a-file
  assert_tree_unchanged report.json
}

@test "bad prompt files: missing, not UTF-8, a BOM, empty, an unknown or unclosed placeholder: exit 2 naming the file and line, nothing written" {
  deopt
  snapshot_tree
  check() {
    local file=$1 want=$2
    rm -rf p
    cp -r "$ASMEVO_SOURCE_DIR/share/asmevo/prompts" p
    if [ "$3" = missing ]; then rm "p/$file"; else printf "$3" > "p/$file"; fi
    run --separate-stderr env ASMEVO_PROMPTS_DIR=p asmevo-agent deopt.hsaco --spec deopt.json \
      --run-dir run --driver llm --llm-url http://127.0.0.1:9 --llm-model m "${@:4}"
    [ "$status" = 2 ] || fail "$file: exit $status"
    [ "$stderr" = "asmevo-agent: error: 'p/$file'$want" ] || fail "$file: $stderr"
  }
  check edit.txt ": cannot read: No such file or directory" missing
  check plan.txt ":3: the prompt is not valid UTF-8 (byte 0xFF at offset 10)" 'one\ntwo\nab\xff\n' --json
  assert_report asmevo-agent input_error 2
  check replan.txt ":1: the prompt starts with a UTF-8 byte-order mark, which the model would get as text; save it without one" '\xef\xbb\xbfRevise {{plan}}'
  check system.txt ":1: the prompt is empty" ' \n\n'
  check edit.txt ":2: the prompt template names {{nosuch}}, which the driver does not fill (it fills kernel, target, node, speedup, best, assembly, hot_windows, loops, memory, gate, feedback, redirect, plan, step, abi, isa_facts)" 'Edit\n{{kernel}} {{nosuch}}\n'
  check edit.txt ":3: an unclosed {{ in the prompt template" 'a\n\nb {{kernel\n'
  check system.txt ":1: the prompt template names {{kernel}}, which the driver does not fill (this prompt is sent as it is)" 'You edit {{kernel}}.'
  rm -rf p
  assert_tree_unchanged report.json
}
