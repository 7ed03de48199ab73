#!/usr/bin/env bats
# asmevo-agent --driver llm against a scripted endpoint (fake_llm_server.py, on 127.0.0.1 only,
# started and stopped by each test): in both dialects, a full run on the de-optimized Triton
# vector add commits the scripted improving edit and rejects the bad ones (malformed, refused,
# off-window, too large, divergent) while the client retries through a 429 with retry-after, a
# 500, a cut-short reply and a reply past its timeout. Requests are checked field by field
# against golden files, the key appears in no file the run writes, and --llm-cache replays a
# run without a request.
load test_helper

KEY=sk-asmevo-test-7f3a9c1e5d

# start_llm SCRIPT: the fake endpoint, its requests logged under log/; $LLM_URL its base URL.
start_llm() {
  mkdir -p log
  python3 "$BATS_TEST_DIRNAME/fake_llm_server.py" "$1" port log 3>&- &
  SERVER_PID=$!
  for _ in $(seq 100); do [ -f port ] && break; sleep 0.1; done
  [ -f port ] || fail "the fake LLM endpoint did not start"
  LLM_URL=http://127.0.0.1:$(cat port)
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
assert b["candidates"] == 2 and b["commits"] == 1 and b["speedup"] > 1.2, b
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

@test "--llm-cache: a second run is answered from the cache, with no request, to the same result" {
  deopt
  script
  start_llm script.json
  run_llm anthropic run1 --llm-cache cache
  assert_report asmevo-agent ok 0
  first=$(python3 -c 'import json; b=json.load(open("report.json"))["body"]; print(b["speedup"], b["commits"], b["candidates"])')
  sent=$(ls log | wc -l)
  ! grep -rq "$KEY" cache
  run_llm anthropic run2 --llm-cache cache
  assert_report asmevo-agent ok 0
  second=$(python3 -c 'import json; b=json.load(open("report.json"))["body"]; print(b["speedup"], b["commits"], b["candidates"])')
  [ "$first" = "$second" ] || fail "first run: $first; replay: $second"
  [ "$(ls log | wc -l)" = "$sent" ] || fail "the replay sent requests"
  python3 -c '
import json; u = json.load(open("report.json"))["body"]["driver_usage"]
assert u["requests"] == 0 and u["cache_hits"] > 0 and u["cache_hits"] == u["calls"], u'
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
