#!/usr/bin/env bats
# CLI tests for asmevo-install on a real workflow run (Makefile.workflow over the de-optimized
# vector add, which the search improves, and the bundled softmax, which it does not): Triton's
# override layout from a dump tree holding K0's bytes, an AITer tree with nested relative
# paths (beside the original and in place), a HIP directory; idempotence, refusals with their
# exact messages, and uninstall restoring byte-identical originals.

load test_helper

setup_file() {
  : "${ASMEVO_SOURCE_DIR:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
  : "${ASMEVO_TOOLS:=$ASMEVO_SOURCE_DIR/build/bin}"
  PATH="$ASMEVO_TOOLS:$PATH"
  local d=$BATS_FILE_TMPDIR
  hsaco-recover "$ASMEVO_SOURCE_DIR/test/corpus/triton/gfx942/vector_add_fp32.hsaco" -o "$d/k.s"
  awk '{print} /^\tbuffer_load_dword/ {print "\ts_waitcnt vmcnt(0)"}' "$d/k.s" > "$d/slow.s"
  mkdir -p "$d/deopt"
  hsaco-rebuild "$d/slow.s" -o "$d/deopt/vector_add_fp32.hsaco" -q
  make -s -f "$ASMEVO_SOURCE_DIR/Makefile.workflow" -C "$ASMEVO_SOURCE_DIR" RUN="$d/wf" \
    TOOLS="$ASMEVO_TOOLS" MAX_CANDIDATES=12 BUDGET=600 AGENT_FLAGS='--seed 7 --seeds 1,2,3' \
    KERNELS="$d/deopt/vector_add_fp32.hsaco test/corpus/triton/gfx942/softmax_fp32.hsaco" \
    > "$d/wf.log" 2>&1
}

# The run, K0 and K* of the improved kernel, and a Triton dump of K0's compile:
# dump/<hash>/add_kernel.{hsaco,json,amdgcn} (and another kernel's stages beside it).
run_dump() {
  WF=$BATS_FILE_TMPDIR/wf
  K0=$WF/deopt-vector_add_fp32/k0.hsaco
  KS=$WF/deopt-vector_add_fp32/search/best.hsaco
  SM=$WF/gfx942-softmax_fp32/k0.hsaco
  H=XR6UAHBR2VQFNB2UGQX5NAO2QP6Z2QN3ZQMD4DIBQ4PSBKXTUQNA
  mkdir -p dump/$H dump/OTHERHASH
  cp "$K0" dump/$H/add_kernel.hsaco
  echo '{"name": "add_kernel", "shared": 0}' > dump/$H/add_kernel.json
  echo '; add_kernel' > dump/$H/add_kernel.amdgcn
  cp "$TRITON/gfx942/matmul_fp16.hsaco" dump/OTHERHASH/matmul_kernel.hsaco
}

# tree DIR: every file and link under DIR with its SHA-256 or link target, for comparisons.
tree() {
  (cd "$1" && find . \( -type f -o -type l \) | sort | while read -r f; do
    if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"; else echo "$f $(sha256sum < "$f")"; fi
  done)
}

@test "asmevo-install --help matches its man page, --version names LLVM" {
  assert_help_matches_man asmevo-install
  run asmevo-install --version
  assert_success
  assert_output --regexp '^asmevo-install \(AsmEvo\) 0\.1\.0, LLVM [0-9]+\.'
}

@test "the workflow run improved one kernel (K* differs from K0) and not the other" {
  run_dump
  ! cmp -s "$K0" "$KS"
  grep -q 'deopt-vector_add_fp32: 1\.[0-9]*x' "$BATS_FILE_TMPDIR/wf.log"
}

@test "Triton: K* becomes <override>/<hash>/<name>.hsaco, only that stage, with a manifest" {
  run_dump
  run asmevo-install "$WF" --triton dump --to ovr
  assert_success
  assert_line --index 0 "asmevo-install: installed 1 K* (0 unchanged, 1 skipped) into ovr (triton); manifest ovr/asmevo-install.json"
  assert_line --index 1 --regexp "^  deopt-vector_add_fp32: installed $H/add_kernel.hsaco \(1\.[0-9]{4}x\)$"
  assert_line --index 2 "  gfx942-softmax_fp32: skipped: no improvement (K* is K0)"
  assert_line --index 3 "  Triton loads it with TRITON_KERNEL_OVERRIDE=1 TRITON_OVERRIDE_DIR=$TMP/ovr (and TRITON_ALWAYS_COMPILE=1 or a fresh TRITON_CACHE_DIR: a cache hit skips the override)"
  cmp ovr/$H/add_kernel.hsaco "$KS"
  [ "$(cd ovr && find . -type f | sort | tr '\n' ' ')" = "./$H/add_kernel.hsaco ./asmevo-install.json " ]
  K0SHA=$(sha256sum < "$K0" | cut -d' ' -f1) KSSHA=$(sha256sum < "$KS" | cut -d' ' -f1) \
    WF=$WF H=$H TMP=$TMP python3 - <<'PY'
import json, os
m = json.load(open("ovr/asmevo-install.json"))
assert list(m)[:2] == ["format", "format_version"], list(m)
assert m["format"] == "asmevo-install-manifest" and m["format_version"] == 1 and m["layout"] == "triton", m
assert m["source"] == os.environ["TMP"] + "/dump", m["source"]
[e] = m["entries"]
assert e == {"kernel": "deopt-vector_add_fp32", "run": os.environ["WF"],
             "path": os.environ["H"] + "/add_kernel.hsaco",
             "source": os.environ["TMP"] + "/dump/" + os.environ["H"] + "/add_kernel.hsaco",
             "k0_sha256": os.environ["K0SHA"], "kstar_sha256": os.environ["KSSHA"],
             "action": "added", "backup": None}, e
assert m["links"] == [] and m["generated"] == [] and m["dirs"] == [".", os.environ["H"]], m
PY
  run --separate-stderr asmevo-install "$WF" --triton dump --to ovr2 --json
  assert_report asmevo-install ok 0
}

@test "installing twice changes nothing" {
  run_dump
  asmevo-install -q "$WF" --triton dump --to ovr
  tree ovr > before
  run asmevo-install "$WF" --triton dump --to ovr
  assert_success
  assert_line --index 0 "asmevo-install: installed 0 K* (1 unchanged, 1 skipped) into ovr (triton); manifest ovr/asmevo-install.json"
  assert_line --index 1 --regexp "^  deopt-vector_add_fp32: unchanged $H/add_kernel.hsaco "
  tree ovr > after
  diff before after
}

@test "an install target that is neither K0 nor a K* of the run is refused; nothing changes" {
  run_dump
  mkdir -p ovr/$H
  cp "$TRITON/gfx942/matmul_fp16.hsaco" ovr/$H/add_kernel.hsaco
  tree ovr > before
  sha=$(sha256sum < ovr/$H/add_kernel.hsaco | cut -d' ' -f1)
  k0=$(sha256sum < "$K0" | cut -c1-12)
  run asmevo-install "$WF" --triton dump --to ovr
  assert_failure 1
  assert_output "asmevo-install: refused: 'ovr/$H/add_kernel.hsaco': its SHA-256 $sha is neither K0 ($k0, deopt-vector_add_fp32) nor a K* of run '$WF': not overwritten; nothing was changed"
  tree ovr > after
  diff before after
  run --separate-stderr asmevo-install "$WF" --triton dump --to ovr --json
  assert_report asmevo-install refused 1
  tree ovr > after
  diff before after
}

@test "uninstall restores byte-identical originals and removes the override; it refuses a changed file" {
  run_dump
  # an override directory that already held K0 (the dump copied over) and another file
  mkdir -p ovr
  cp -rp dump/$H ovr/
  echo keep > ovr/README
  chmod 0640 ovr/$H/add_kernel.hsaco
  tree ovr > before
  run asmevo-install "$WF" --triton dump --to ovr
  assert_success
  cmp ovr/$H/add_kernel.hsaco "$KS"
  cmp ovr/.asmevo-backup/$H/add_kernel.hsaco "$K0"
  [ "$(stat -c %a ovr/$H/add_kernel.hsaco)" = 640 ]
  grep -q '"action": "replaced"' ovr/asmevo-install.json
  grep -q "\"backup\": \".asmevo-backup/$H/add_kernel.hsaco\"" ovr/asmevo-install.json
  # a K* changed by someone else: refused, nothing restored
  cp ovr/$H/add_kernel.hsaco kstar.keep
  printf 'x' >> ovr/$H/add_kernel.hsaco
  sha=$(sha256sum < ovr/$H/add_kernel.hsaco | cut -d' ' -f1)
  ks=$(sha256sum < "$KS" | cut -c1-12)
  run asmevo-install --uninstall ovr
  assert_failure 1
  assert_output "asmevo-install: refused: 'ovr/$H/add_kernel.hsaco': its SHA-256 $sha is not the K* installed here ($ks): it was changed since the install: not restored; nothing was changed"
  [ -f ovr/asmevo-install.json ]
  cp kstar.keep ovr/$H/add_kernel.hsaco
  run asmevo-install --uninstall ovr
  assert_success
  assert_output "asmevo-install: uninstalled ovr: 1 restored, 0 removed, 0 links removed"
  tree ovr > after
  diff before after
  [ "$(stat -c %a ovr/$H/add_kernel.hsaco)" = 640 ]
  # into a fresh directory: uninstall removes everything it made
  asmevo-install -q "$WF" --triton dump --to fresh/ovr
  run asmevo-install --uninstall fresh/ovr
  assert_success
  assert_output "asmevo-install: uninstalled fresh/ovr: 0 restored, 1 removed, 0 links removed"
  [ ! -e fresh/ovr ]
  [ -d fresh ]
}

@test "AITer: a drop-in tree with nested relative paths, beside the original and in place" {
  run_dump
  mkdir -p hsa/gfx942/fmoe/bf16 hsa/gfx950/fmoe
  cp "$K0" hsa/gfx942/fmoe/bf16/fmoe_add.co
  cp "$TRITON/gfx942/matmul_fp16.hsaco" hsa/gfx942/fmoe/other.co
  echo 'kernel,co' > hsa/gfx942/fmoe/table.csv
  cp "$TRITON/gfx950/matmul_fp16.hsaco" hsa/gfx950/fmoe/x.co
  tree hsa > original
  run asmevo-install "$WF" --aiter hsa --to asm
  assert_success
  assert_line --index 1 --regexp '^  deopt-vector_add_fp32: installed gfx942/fmoe/bf16/fmoe_add\.co '
  assert_line --index 3 "  AITer loads it with AITER_ASM_DIR=$TMP/asm/ (the original's relative paths; the rest links to the originals)"
  cmp asm/gfx942/fmoe/bf16/fmoe_add.co "$KS"
  [ ! -L asm/gfx942/fmoe/bf16/fmoe_add.co ]
  [ "$(readlink asm/gfx942/fmoe/other.co)" = "$TMP/hsa/gfx942/fmoe/other.co" ]
  [ "$(readlink asm/gfx942/fmoe/table.csv)" = "$TMP/hsa/gfx942/fmoe/table.csv" ]
  [ "$(readlink asm/gfx950/fmoe/x.co)" = "$TMP/hsa/gfx950/fmoe/x.co" ]
  tree hsa | diff original -
  tree asm > before
  asmevo-install -q "$WF" --aiter hsa --to asm
  tree asm | diff before -
  run asmevo-install --uninstall asm
  assert_success
  assert_output "asmevo-install: uninstalled asm: 0 restored, 1 removed, 3 links removed"
  [ ! -e asm ]
  # in place: the original root itself, with a backup
  run asmevo-install "$WF" --aiter hsa --to hsa
  assert_success
  assert_line --index 0 "asmevo-install: installed 1 K* (0 unchanged, 1 skipped) into hsa (aiter, in place); manifest hsa/asmevo-install.json"
  cmp hsa/gfx942/fmoe/bf16/fmoe_add.co "$KS"
  cmp hsa/.asmevo-backup/gfx942/fmoe/bf16/fmoe_add.co "$K0"
  run asmevo-install "$WF" --aiter hsa --to hsa
  assert_line --index 0 --partial "installed 0 K* (1 unchanged, 1 skipped)"
  asmevo-install -q --uninstall hsa
  tree hsa | diff original -
  # a target inside the root
  run asmevo-install "$WF" --aiter hsa --to hsa/new
  assert_failure 2
  assert_output "asmevo-install: error: 'hsa/new': the target and the source ('hsa') are inside one another: give another directory, or the source itself to install in place"
}

@test "HIP: a code-object directory with a note; --from names K* after the application's file" {
  run_dump
  run asmevo-install "$WF" --hip --to cos
  assert_success
  assert_line --index 1 --regexp '^  deopt-vector_add_fp32: installed deopt-vector_add_fp32\.hsaco '
  assert_line --index 3 "  how to load it: $TMP/cos/asmevo-install.txt"
  cmp cos/deopt-vector_add_fp32.hsaco "$KS"
  head -1 cos/asmevo-install.txt | grep -qx 'asmevo-install note v1: code objects for a HIP application'
  grep -qF "hipModuleLoad(&module, \"$TMP/cos/deopt-vector_add_fp32.hsaco\");" cos/asmevo-install.txt
  grep -qF 'hipModuleGetFunction(&function, module, "add_kernel");' cos/asmevo-install.txt
  grep -qF "replaces K0, SHA-256 $(sha256sum < "$K0" | cut -d' ' -f1)" cos/asmevo-install.txt
  asmevo-install -q --uninstall cos
  [ ! -e cos ]
  # the application's own directory, in place: K* keeps the file's name
  mkdir -p app/kernels
  cp "$K0" app/kernels/vadd.co
  cp "$SM" app/kernels/softmax.co
  tree app > original
  run asmevo-install "$WF" --hip --from app --to app
  assert_success
  assert_line --index 1 --regexp '^  deopt-vector_add_fp32: installed kernels/vadd\.co '
  cmp app/kernels/vadd.co "$KS"
  cmp app/kernels/softmax.co "$SM"
  asmevo-install -q --uninstall app
  tree app | diff original -
}

@test "--all installs a K* whose speedup is at most 1, never a K* that is K0" {
  run_dump
  cp -r "$WF" wf
  python3 - <<'PY'
import json
s = json.load(open("wf/summary.json"))
s["kernels"][0]["speedup"] = 0.9876
json.dump(s, open("wf/summary.json", "w"))
PY
  run asmevo-install wf --triton dump --to ovr
  assert_success
  assert_line --index 0 "asmevo-install: installed 0 K* (0 unchanged, 2 skipped) into ovr (triton)"
  assert_line --index 1 "  deopt-vector_add_fp32: skipped: no improvement (speedup 0.9876x; --all installs it)"
  [ ! -e ovr ]
  run asmevo-install wf --triton dump --to ovr --all
  assert_success
  assert_line --index 1 "  deopt-vector_add_fp32: installed $H/add_kernel.hsaco (0.9876x)"
  assert_line --index 2 "  gfx942-softmax_fp32: skipped: no improvement (K* is K0)"
}

@test "a bad run directory, a missing manifest and bad usage exit 2" {
  run_dump
  run asmevo-install nope --triton dump --to ovr
  assert_failure 2
  assert_output "asmevo-install: error: 'nope': not a workflow run directory (make -f Makefile.workflow writes one)"
  mkdir half
  run asmevo-install half --triton dump --to ovr
  assert_failure 2
  assert_output "asmevo-install: error: 'half/summary.json': cannot read the run's summary (is the workflow run finished?)"
  run --separate-stderr asmevo-install half --triton dump --to ovr --json
  assert_report asmevo-install input_error 2
  echo '{"format": "something-else"}' > half/summary.json
  run asmevo-install half --triton dump --to ovr
  assert_failure 2
  assert_output "asmevo-install: error: 'half/summary.json': not a workflow summary (format asmevo-workflow-summary)"
  mkdir -p otherdump/HASH
  cp "$TRITON/gfx942/vector_add_fp32.hsaco" otherdump/HASH/add_kernel.hsaco
  run asmevo-install "$WF" --triton otherdump --to ovr
  assert_failure 2
  assert_output "asmevo-install: error: 'otherdump': no file has the SHA-256 of K0 of any kernel of run '$WF' to install (is it the dump of K0's compile?)"
  run asmevo-install "$WF" --triton nodump --to ovr
  assert_failure 2
  assert_output "asmevo-install: error: 'nodump': not a directory"
  run asmevo-install --uninstall half
  assert_failure 2
  assert_output "asmevo-install: error: 'half/asmevo-install.json': no install here (asmevo-install writes one)"
  [ ! -e ovr ]
  run asmevo-install "$WF" --to ovr
  assert_failure 2
  assert_line --index 0 "asmevo-install: error: give one of --triton DUMP_DIR, --aiter ASM_ROOT or --hip"
  run asmevo-install "$WF" --triton dump
  assert_failure 2
  assert_line --index 0 "asmevo-install: error: --to DIR is required"
}

@test "Makefile.workflow install and uninstall call asmevo-install on the run" {
  run_dump
  local wf=(make -s -f "$ASMEVO_SOURCE_DIR/Makefile.workflow" -C "$ASMEVO_SOURCE_DIR"
    RUN="$WF" TOOLS="$ASMEVO_TOOLS" MAX_CANDIDATES=12 BUDGET=600
    AGENT_FLAGS='--seed 7 --seeds 1,2,3'
    KERNELS="$BATS_FILE_TMPDIR/deopt/vector_add_fp32.hsaco test/corpus/triton/gfx942/softmax_fp32.hsaco")
  run "${wf[@]}" install INSTALL="triton:$TMP/dump" INSTALL_DIR="$TMP/ovr"
  assert_success
  assert_line --index 0 "asmevo-install: installed 1 K* (0 unchanged, 1 skipped) into $TMP/ovr (triton); manifest $TMP/ovr/asmevo-install.json"
  cmp ovr/$H/add_kernel.hsaco "$KS"
  run "${wf[@]}" install INSTALL=rocm INSTALL_DIR="$TMP/ovr"
  assert_failure
  assert_output --partial "workflow: install needs INSTALL=triton:DUMP_DIR, aiter:ASM_ROOT or hip[:APP_DIR]"
  run "${wf[@]}" uninstall INSTALL_DIR="$TMP/ovr"
  assert_success
  assert_output "asmevo-install: uninstalled $TMP/ovr: 0 restored, 1 removed, 0 links removed"
  [ ! -e ovr ]
}
