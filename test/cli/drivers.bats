#!/usr/bin/env bats
# The offline drivers on real kernels, through the whole gate: the waits driver (s_waitcnt
# placed by a dataflow over the CFG) recovers a de-optimized kernel's waits, and on Triton's
# kernels every candidate it proposes passes the strict checks (no pending-read, no race) on the
# launches: its analysis is sound where the gate can see, and it never proposes what the gate
# must refuse. The sched driver (list scheduling under the dependency graph) never changes a
# result or reads a register early; only wait states, which its graph leaves to the gate, may
# refuse one of its candidates.
load test_helper

# check_sound RUN_DIR DRIVER: every candidate DRIVER proposed passed every check of the gate
# (built, ABI kept, outputs equal, strict checks clean; faster or not); the controller's own
# compositions of two verified edits (driver "compose") are not the driver's, and two wait
# relaxations each safe alone need not be safe together (the gate refuses those).
check_sound() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
run, driver = sys.argv[1:3]
bad = []
n = 0
for d in sorted(os.listdir(run + "/nodes")):
    if d == "n000000":
        continue
    j = json.load(open("%s/nodes/%s/node.json" % (run, d)))
    if j["driver"] == "compose":
        continue
    assert j["driver"] == driver, (d, j["driver"])
    n += 1
    if j["outcome"] in ("roundtrip_differs", "asm_invalid", "abi_invalid", "divergent", "unsafe",
                        "refused", "not_covered", "input_error", "runtime_error"):
        bad.append((d, j["outcome"], j.get("stage"), j.get("message", "")[:300]))
assert n > 0, "no candidate was proposed"
assert not bad, bad
print(n)
PY
}

@test "waits: recovers the de-optimized vector add's waits, every candidate verified" {
  deopt
  run --separate-stderr asmevo-agent deopt.hsaco --asm deopt.s --spec deopt.json \
    --run-dir run --driver waits --max-candidates 40 --json
  assert_report asmevo-agent ok 0
  python3 - <<'PY'
import json
b = json.load(open("report.json"))["body"]
assert b["speedup"] > 1.1 and b["commits"] >= 1, b  # the de-optimization's cost: 1/0.88
PY
  check_sound run waits
  [ "$(grep -c 's_waitcnt vmcnt(0)' run/best.s)" -lt "$(grep -c 's_waitcnt vmcnt(0)' deopt.s)" ]
}

@test "waits: every candidate on Triton's matmul and layer norm passes the strict checks" {
  for k in matmul_fp16 layernorm_fwd_fp16; do
    kernel-diffcheck --infer "$TRITON/gfx942/$k.hsaco" --spec "$ASMEVO_SOURCE_DIR/test/specs/$k.json" \
      -o "$k.json" -q
    run --separate-stderr asmevo-agent "$TRITON/gfx942/$k.hsaco" --spec "$k.json" \
      --run-dir "run-$k" --driver waits --max-candidates 12 --json
    assert_report asmevo-agent ok 0
    check_sound "run-$k" waits
  done
}

@test "sched: on Triton's matmul and layer norm no candidate changes a result or a dependency" {
  # The dependency graph is exact for registers, counters and memory: no candidate may compute
  # another result or read a register before its load returns. Wait states between
  # instructions are not in the graph, so a candidate the strict checks refuse for a wait-state
  # hazard is a rejected proposal, not a wrong one.
  for k in matmul_fp16 layernorm_fwd_fp16; do
    kernel-diffcheck --infer "$TRITON/gfx942/$k.hsaco" --spec "$ASMEVO_SOURCE_DIR/test/specs/$k.json" \
      -o "$k.json" -q
    run --separate-stderr asmevo-agent "$TRITON/gfx942/$k.hsaco" --spec "$k.json" \
      --run-dir "run-$k" --driver sched --max-candidates 12 --json
    assert_report asmevo-agent ok 0
    python3 - "run-$k" <<'PY'
import json, os, sys
run = sys.argv[1]
n, bad = 0, []
for d in sorted(os.listdir(run + "/nodes")):
    j = json.load(open("%s/nodes/%s/node.json" % (run, d)))
    if d == "n000000" or j["driver"] == "compose":
        continue
    assert j["driver"] == "sched", (d, j["driver"])
    n += 1
    if j["outcome"] == "unsafe" and "wait-state hazard" in j.get("message", ""):
        continue
    if j["outcome"] in ("roundtrip_differs", "asm_invalid", "abi_invalid", "divergent", "unsafe",
                        "refused", "not_covered", "input_error", "runtime_error"):
        bad.append((d, j["outcome"], j.get("message", "")[:300]))
assert n > 0, "no candidate was proposed"
assert not bad, bad
PY
  done
}

@test "pipeline: on Triton's matmul, flash attention, fused MoE and AWQ every candidate passes the strict checks" {
  # The K loops of num_stages=1 kernels: each load issued one iteration ahead must compute K0's
  # result on every seed and edge shape with no pending read, race or wait-state hazard; the
  # last iteration's load runs under EXEC from the loop's condition, so nothing reads past what
  # K0 read (the emulator faults on a read outside every allocation). Flash attention's loop is
  # longer than one edit window (its candidates are edits of several); AWQ's scales are
  # multiplied in place (v_mul_f16 v76, v94, v76: only the sources read the prefetched copy).
  for k in matmul_fp16 flash_attn_fwd_fp16 fused_moe_fp16 awq_gemm_fp16; do
    kernel-diffcheck --infer "$TRITON/gfx942/$k.hsaco" --spec "$ASMEVO_SOURCE_DIR/test/specs/$k.json" \
      -o "$k.json" -q
    run --separate-stderr asmevo-agent "$TRITON/gfx942/$k.hsaco" --spec "$k.json" \
      --run-dir "run-$k" --driver pipeline --max-candidates 6 --json
    assert_report asmevo-agent ok 0
    check_sound "run-$k" pipeline
  done
  grep -q 's_cselect_b64 exec, exec, 0' run-matmul_fp16/nodes/n000001/cand.s
  # Some flash attention candidate is several edits (edit.json a list of them).
  grep -l '^\[' run-flash_attn_fwd_fp16/nodes/n*/edit.json
  # AWQ's scales are pipelined: some candidate multiplies by a prefetched copy.
  grep -q 'v_mul_f16_e32 v76, v94, v1[0-9][0-9]' run-awq_gemm_fp16/nodes/n*/cand.s
}
