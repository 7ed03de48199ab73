#!/usr/bin/env bats
# Makefile.workflow through Slurm, on a private single-node cluster that this file starts on this
# machine (test/slurm/cluster.sh: Debian's slurmctld, slurmd and munge, loopback only) in
# setup_file and stops in teardown_file; a watchdog stops it too if the run is aborted. Two
# kernels' searches run as job steps (LAUNCH='srun ...') and equal a local run; a search step
# cancelled with scancel resumes on the rerun with every verified commit; a step Slurm refuses
# to start fails the make with srun's error and loses nothing; the sbatch array script
# (share/asmevo/slurm-array.sbatch) runs two kernels as two array tasks plus the summary job.
load test_helper

setup_file() {
  # Not the job or the cluster this test may itself run in (srun reads SLURM_JOB_ID and more).
  # shellcheck disable=SC2046
  unset $(compgen -e | grep '^SLURM_')
  : "${ASMEVO_SOURCE_DIR:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
  export CLUSTER_SH=$ASMEVO_SOURCE_DIR/test/slurm/cluster.sh
  # A short path: the munge socket lives in it.
  CLUSTER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/asmevo-slurm.XXXXXX")
  export CLUSTER_DIR
  # The watchdog: once this file's bats process is gone (finished, interrupted, killed), it
  # stops the cluster (idempotent), so an aborted run leaves no daemon behind. Its own session,
  # so that a signal to the test's process group does not take it too; no bats descriptor.
  local bats_pid=$BASHPID # (in the & below, $BASHPID would be the watchdog's own)
  setsid bash -c 'while kill -0 "$1" 2> /dev/null; do sleep 1; done; bash "$2" stop "$3"; rm -rf "$3"' \
    _ "$bats_pid" "$CLUSTER_SH" "$CLUSTER_DIR" < /dev/null > /dev/null 2>&1 3>&- &
  export CLUSTER_WATCHDOG=$!
  bash "$CLUSTER_SH" start "$CLUSTER_DIR" >&3 2>&1
  eval "$(bash "$CLUSTER_SH" env "$CLUSTER_DIR")"
}

teardown_file() {
  bash "$CLUSTER_SH" stop "$CLUSTER_DIR"
  kill "$CLUSTER_WATCHDOG" 2> /dev/null || true
  rm -rf "$CLUSTER_DIR"
}

# kernels: the de-optimized vector add as deopt/vector_add_fp32.hsaco (its partial spec is
# test/specs/vector_add_fp32.json) and the bundled Triton layernorm: both reach verified
# commits within a dozen candidates of the rules driver.
kernels() {
  deopt
  mkdir -p deopt
  cp deopt.hsaco deopt/vector_add_fp32.hsaco
  KERNELS="$TMP/deopt/vector_add_fp32.hsaco test/corpus/triton/gfx942/layernorm_fwd_fp16.hsaco"
}

# wf RUN [VAR=value ...]: Makefile.workflow from the repository root into $TMP/RUN; a dozen
# candidates per kernel and a budget that never binds, so a search's result is deterministic.
wf() {
  local run=$1
  shift
  make -s -f "$ASMEVO_SOURCE_DIR/Makefile.workflow" -C "$ASMEVO_SOURCE_DIR" RUN="$TMP/$run" \
    TOOLS="$ASMEVO_TOOLS" KERNELS="$KERNELS" MAX_CANDIDATES=12 BUDGET=600 \
    AGENT_FLAGS='--seed 7 --seeds 1,2,3' "$@"
}

# record.sh: a LAUNCH wrapper that notes which Slurm job step ran which tool, in steps.log.
recorder() {
  cat > record.sh <<SH
#!/bin/sh
echo "\${SLURM_ARRAY_JOB_ID:--}_\${SLURM_ARRAY_TASK_ID:--} \${SLURM_JOB_ID:-none}.\${SLURM_STEP_ID:-none} \$(basename "\$1") \$*" >> "$TMP/steps.log"
exec "\$@"
SH
  chmod +x record.sh
}

# signature RUN: per kernel its candidate count, committed node ids and best.hsaco's SHA-256.
signature() {
  python3 - "$1" <<'PY'
import glob, hashlib, json, os, sys
for k in sorted(glob.glob(sys.argv[1] + "/*/search")):
    name = k.split("/")[-2]
    nodes = [json.load(open(f)) for f in sorted(glob.glob(k + "/nodes/*/node.json"))]
    body = json.load(open(os.path.dirname(k) + "/summary.json"))["body"]
    committed = [n["id"] for n in nodes if n["committed"]]
    print(name, body["candidates"], ",".join(committed),
          hashlib.sha256(open(k + "/best.hsaco", "rb").read()).hexdigest())
PY
}

@test "two kernels' searches as Slurm job steps equal a local run with the same seeds" {
  kernels
  recorder
  run wf local -j2
  assert_success
  run wf slurm -j2 LAUNCH="srun --ntasks=1 $TMP/record.sh"
  assert_success
  assert_line --regexp '^workflow: deopt-vector_add_fp32: 1\.[0-9]+x \(modeled, not measured, emu\) after 12 candidates'
  # Every step that runs a kernel ran as a job step of our cluster: per kernel the baseline and
  # the profile (kernel-time) and the search (asmevo-agent), each its own srun job.
  cat steps.log
  [ "$(wc -l < steps.log)" -eq 6 ]
  [ "$(grep -c ' kernel-time ' steps.log)" -eq 4 ]
  [ "$(grep -c ' asmevo-agent ' steps.log)" -eq 2 ]
  for k in deopt-vector_add_fp32 gfx942-layernorm_fwd_fp16; do
    [ "$(grep -c "/slurm/$k/search" steps.log)" -eq 1 ]
  done
  [ "$(awk '{print $2}' steps.log | sort -u | wc -l)" -eq 6 ]
  for step in $(awk '{print $2}' steps.log); do
    [[ $step =~ ^[0-9]+\.0$ ]] || fail "not a job step: $step"
    # (allocated at once, or after a wait for a free CPU: "sched: Allocate JobId=N NodeList=...")
    grep -Eq "JobId=${step%.0} .*localhost" "$CLUSTER_DIR/log/slurmctld.log" ||
      fail "job ${step%.0} is not in slurmctld's log"
  done
  # The same result: per kernel the candidates, the committed nodes and K*'s bytes.
  signature local > local.sig
  signature slurm > slurm.sig
  cat slurm.sig
  [ "$(wc -l < local.sig)" -eq 2 ]
  diff local.sig slurm.sig
  # and a search that did something: a commit besides the root on the de-optimized kernel (the
  # layer norm's 12 rules candidates find none since the model prices a CU's vector-memory
  # issue rate, vmem_issue_clk)
  grep -q '^deopt-vector_add_fp32 12 n000000,n0000' slurm.sig
}

@test "scancel of the search's job step mid-search, then the same make: it resumes, no verified commit is lost" {
  deopt
  mkdir -p deopt
  cp deopt.hsaco deopt/vector_add_fp32.hsaco
  KERNELS=$TMP/deopt/vector_add_fp32.hsaco
  # No candidate cap: the search runs until it converges (about 170 candidates).
  kw() { wf kill MAX_CANDIDATES=0 LAUNCH='srun --ntasks=1'; }
  kw > make.out 2>&1 &
  pid=$!
  search=kill/deopt-vector_add_fp32/search
  # Wait for a verified commit besides the root (K0, n000000), then cancel the search's job.
  committed() {
    local f
    for f in "$search"/nodes/n*/node.json; do
      [ "$f" != "$search/nodes/n000000/node.json" ] && grep -q '"committed": true' "$f" && return 0
    done
    return 1
  }
  for _ in $(seq 600); do
    committed && break
    sleep 0.05
  done
  job=$(squeue -h -n asmevo-agent -o %A)
  [ -n "$job" ] || fail "no asmevo-agent job in squeue: $(squeue; cat make.out)"
  scancel "$job"
  rc=0
  wait "$pid" || rc=$?
  [ "$rc" -ne 0 ]
  # The search stopped: its job is gone, make failed on it, it left no summary, and its run
  # directory does not change any more.
  for _ in $(seq 100); do
    [ -z "$(squeue -h -j "$job" 2> /dev/null)" ] && break
    sleep 0.1
  done
  [ -z "$(squeue -h -j "$job" 2> /dev/null)" ]
  cat make.out
  grep -q "STEP $job.0 ON localhost CANCELLED" make.out
  grep -q "kill/deopt-vector_add_fp32/summary.json\] Error" make.out
  [ ! -e kill/deopt-vector_add_fp32/summary.json ]
  [ ! -e kill/summary.json ]
  before=$(wc -c < $search/journal.jsonl)
  sleep 1
  [ "$(wc -c < $search/journal.jsonl)" -eq "$before" ]
  [ "$(grep -c '"event":"resume"' $search/journal.jsonl)" -eq 0 ]
  python3 - $search > committed.before <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/nodes/*/node.json")):
    n = json.load(open(f))
    if n["committed"] and n["id"] != "n000000":
        print(n["id"], n["object_sha256"])
PY
  cat committed.before
  [ -s committed.before ]
  # The same make again: the search resumes and finishes.
  run kw
  assert_success
  assert_line --regexp '^workflow: deopt-vector_add_fp32: 1\.[0-9]+x \(modeled, not measured, emu\)'
  grep -q '"event":"resume"' $search/journal.jsonl
  python3 - $search <<'PY'
import glob, json, os, sys
d = sys.argv[1]
nodes = {json.load(open(f))["id"]: json.load(open(f)) for f in glob.glob(d + "/nodes/*/node.json")}
for line in open("committed.before"):
    i, sha = line.split()
    assert nodes[i]["committed"] and nodes[i]["object_sha256"] == sha, (i, nodes[i])
    assert os.path.exists("%s/nodes/%s/cand.hsaco" % (d, i)), i
s = json.load(open(os.path.dirname(d) + "/summary.json"))["body"]
assert s["stopped_by"].startswith("converged"), s["stopped_by"]
assert s["candidates"] > len(open("committed.before").readlines()), s
PY
}

@test "bad input: a Slurm step that cannot start fails the make with srun's error and loses nothing" {
  deopt
  mkdir -p deopt
  cp deopt.hsaco deopt/vector_add_fp32.hsaco
  KERNELS=$TMP/deopt/vector_add_fp32.hsaco
  k=bad/deopt-vector_add_fp32
  # A GPU on a cluster without any, then a partition that does not exist: srun refuses at once.
  run --separate-stderr wf bad LAUNCH='srun --ntasks=1 --gpus-per-task=1'
  assert_failure
  [[ $stderr == *"srun: error: Invalid generic resource (gres) specification"* ]] || fail "$stderr"
  [[ $stderr == *"$k/baseline.json] Error 1"* ]] || fail "$stderr"
  for f in k0.hsaco k0.s gate.json spec.json; do
    [ -s "$k/$f" ] || fail "$f is missing"
  done
  stat -c '%n %y %s' $k/k0.hsaco $k/k0.s $k/gate.json $k/spec.json > done.before
  python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' $k/gate.json $k/spec.json
  run --separate-stderr wf bad LAUNCH='srun --ntasks=1 --partition=nosuch'
  assert_failure
  [[ $stderr == *"srun: error: invalid partition specified: nosuch"* ]] || fail "$stderr"
  # Nothing half-written: no .tmp file, no step after the failed one, no summary.
  find bad -name '*.tmp' > tmpfiles
  [ ! -s tmpfiles ] || fail "left behind: $(cat tmpfiles)"
  for f in $k/baseline.json $k/profile.json $k/search $k/summary.json bad/summary.json; do
    [ ! -e "$f" ] || fail "$f exists"
  done
  # A working LAUNCH completes the run from the steps already done, which stay as they were.
  run wf bad LAUNCH='srun --ntasks=1'
  assert_success
  assert_line --regexp '^workflow: deopt-vector_add_fp32: 1\.[0-9]+x \(modeled, not measured, emu\) after 12 candidates'
  refute_output --partial 'inferred'
  stat -c '%n %y %s' $k/k0.hsaco $k/k0.s $k/gate.json $k/spec.json > done.after
  diff done.before done.after
  [ -f bad/summary.json ]
}

@test "share/asmevo/slurm-array.sbatch: two kernels as two array tasks, then the summary job" {
  kernels
  recorder
  # shellcheck disable=SC2086
  printf '# two kernels\n%s\n\n%s\n' $KERNELS > kernels.txt
  sb() {
    (cd "$ASMEVO_SOURCE_DIR" && sbatch "$@")
  }
  # The array (one kernel per task), then the summary job once the whole array succeeded.
  array=$(sb --parsable --array=0-1 --nodes=1 --output="$TMP/array-%A_%a.out" \
    share/asmevo/slurm-array.sbatch "$TMP/kernels.txt" RUN="$TMP/arr" TOOLS="$ASMEVO_TOOLS" \
    MAX_CANDIDATES=12 BUDGET=600 LAUNCH="srun --ntasks=1 --exact $TMP/record.sh")
  [[ $array =~ ^[0-9]+$ ]] || fail "sbatch: $array"
  run sb --wait --dependency="afterok:$array" --output="$TMP/summary.out" \
    share/asmevo/slurm-array.sbatch "$TMP/kernels.txt" RUN="$TMP/arr" TOOLS="$ASMEVO_TOOLS"
  cat array-*.out summary.out || true
  assert_success
  grep -q "slurm-array.sbatch: task 0 of 2 on .*: $TMP/deopt/vector_add_fp32.hsaco\$" "array-${array}_0.out"
  grep -q "slurm-array.sbatch: task 1 of 2 on .*: test/corpus/triton/gfx942/layernorm_fwd_fp16.hsaco\$" \
    "array-${array}_1.out"
  grep -q '^workflow: deopt-vector_add_fp32: 1\.[0-9]*x (modeled, not measured, emu) after 12 candidates' summary.out
  grep -q '^workflow: gfx942-layernorm_fwd_fp16: 1\.[0-9]*x (modeled, not measured, emu) after 12 candidates' summary.out
  # Only the summary job wrote RUN/summary.json.
  [ "$(cat array-*.out | grep -c '^workflow: run directory')" -eq 0 ] || fail "an array task wrote the summary"
  grep -q "^workflow: run directory $TMP/arr (summary $TMP/arr/summary.json)" summary.out
  # Each kernel's steps ran as job steps of its own array task.
  cat steps.log
  [ "$(wc -l < steps.log)" -eq 6 ]
  [ "$(grep -c "^${array}_0 [0-9]*\.[0-9]* .*/deopt-vector_add_fp32/" steps.log)" -eq 3 ]
  [ "$(grep -c "^${array}_1 [0-9]*\.[0-9]* .*/gfx942-layernorm_fwd_fp16/" steps.log)" -eq 3 ]
  # Index 1 again on its own (as after a failure), told the task count: the same kernel, done.
  export ASMEVO_TASKS=2
  run sb --wait --array=1 --output="$TMP/again-%A_%a.out" \
    share/asmevo/slurm-array.sbatch "$TMP/kernels.txt" RUN="$TMP/arr" TOOLS="$ASMEVO_TOOLS"
  assert_success
  cat again-*_1.out
  grep -q "task 1 of 2 on .*: test/corpus/triton/gfx942/layernorm_fwd_fp16.hsaco\$" again-*_1.out
  [ "$(wc -l < steps.log)" -eq 6 ]
  python3 - <<'PY'
import json
s = json.load(open("arr/summary.json"))
assert [k["name"] for k in s["kernels"]] == ["deopt-vector_add_fp32", "gfx942-layernorm_fwd_fp16"], s
for k in s["kernels"]:
    assert k["candidates"] == 12 and k["speedup"] >= 1.0, k
# the de-optimized kernel's waits are found; the layer norm may have nothing to commit
assert s["kernels"][0]["commits"] >= 1 and s["kernels"][0]["speedup"] > 1.0, s["kernels"][0]
PY
}

@test "WORKERS=2 evaluates each candidate as a job step; TEAM=2 runs its members as job steps and merges them" {
  deopt
  mkdir -p deopt
  cp deopt.hsaco deopt/vector_add_fp32.hsaco
  KERNELS=$TMP/deopt/vector_add_fp32.hsaco
  recorder
  run wf local WORKERS=2 TEAM=2 -j2
  assert_success
  run wf team WORKERS=2 TEAM=2 -j2 LAUNCH="srun --ntasks=1 $TMP/record.sh"
  assert_success
  assert_line --regexp '^workflow: deopt-vector_add_fp32: 1\.[0-9]+x \(modeled, not measured, emu\)'
  cat steps.log
  # The search's controller ran here; each of its candidates was a worker step; each team member
  # a step of its own; every one a distinct job step of the cluster.
  k=team/deopt-vector_add_fp32
  workers=$(grep -c " asmevo-agent .* --worker $TMP/$k/search/nodes/n0" steps.log)
  [ "$workers" -eq "$(python3 -c 'import json; print(json.load(open("'$k'/search.json"))["body"]["candidates"])')" ]
  [ "$(grep -c ' asmevo-agent .*--team-member [01]' steps.log)" -eq 2 ]
  [ "$(grep -c ' kernel-time ' steps.log)" -eq 2 ]
  [ "$(awk '{print $2}' steps.log | sort -u | wc -l)" -eq "$(wc -l < steps.log)" ]
  # The same result as the local run, and every member's commit is in the kernel's lineage.
  signature local > local.sig
  signature team > team.sig
  cat team.sig
  diff local.sig team.sig
  python3 - "$k" <<'PY'
import glob, json, sys
d = sys.argv[1]
def nodes(p):
    return [json.load(open(f)) for f in glob.glob(p + "/nodes/*/node.json")]
lineage = {n["candidate_sha256"]: n for n in nodes(d + "/search")}
starts = set()
for m in ("m0", "m1"):
    ns = nodes(d + "/team/" + m)
    starts.add(next(n["origin"] for n in ns if n["driver"] == "team-start"))
    for n in ns:
        if n["committed"]:
            assert lineage[n["candidate_sha256"]]["committed"], (m, n["id"])
assert len(starts) == 2, starts
s = json.load(open(d + "/summary.json"))["body"]
assert s["driver"] == "team" and len(s["members"]) == 2, s
PY
}
