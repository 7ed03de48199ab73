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
  assert_line --index 4 "  deopt-vector_add_fp32: verified on deopt-vector_add_fp32/spec.json (grid 3x1x1, block 256x1x1) seeds 1,2,3 and edge shapes tail-1, tail-2, tail-3, one-workgroup (seed 3) only; other launches of the kernel were not verified (a Triton cache key does not include the problem size: every size loads K*)"
  assert_line --index 3 "  Triton loads it with TRITON_KERNEL_OVERRIDE=1 TRITON_OVERRIDE_DIR=$TMP/ovr (and TRITON_ALWAYS_COMPILE=1 or a fresh TRITON_CACHE_DIR: a cache hit skips the override); set it only on gfx942 GPUs: the override directory is keyed by the kernel's source hash, not by the GPU, so a compile for any other target would load this gfx942 code object too"
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
             "action": "added", "backup": None, "target": "gfx942",
             "verified_on": [{"spec": "deopt-vector_add_fp32/spec.json", "grid": [3, 1, 1],
                              "block": [256, 1, 1], "seeds": [1, 2, 3],
                              "edge_shapes": {"seed": 3, "shapes": [
                                  {"name": "tail-1", "change": "'#3' 3000 -> 2999"},
                                  {"name": "tail-2", "change": "'#3' 3000 -> 2998"},
                                  {"name": "tail-3", "change": "'#3' 3000 -> 2997"},
                                  {"name": "one-workgroup", "change": "grid 3x1x1 -> 1x1x1"}]}}]}, e
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

# gfx90a_run DIR: a workflow run of one kernel for gfx90a (the bundled vector add as K0, K* that
# same object with one instruction byte changed: K0's symbols and target), and dump90/B/ its
# Triton dump.
gfx90a_run() {
  python3 - "$1" "$TRITON/gfx90a/vector_add_fp32.hsaco" <<'PY'
import json, os, struct, sys
run, k0 = sys.argv[1], open(sys.argv[2], "rb").read()
shoff, = struct.unpack_from("<Q", k0, 0x28)
shnum, shstrndx = struct.unpack_from("<HH", k0, 0x3C)
names = struct.unpack_from("<Q", k0, shoff + shstrndx * 64 + 24)[0]
for i in range(shnum):
    name, _, _, _, off = struct.unpack_from("<IIQQQ", k0, shoff + i * 64)
    if k0[names + name:names + name + 6] == b".text\0":
        text = off
ks = bytearray(k0)
ks[text + 4] ^= 1
os.makedirs(run + "/k90-add/search")
open(run + "/k90-add/k0.hsaco", "wb").write(k0)
open(run + "/k90-add/search/best.hsaco", "wb").write(ks)
json.dump({"format": "asmevo-workflow-summary", "format_version": 1,
           "kernels": [{"name": "k90-add", "speedup": 1.5, "kind": "modeled"}]},
          open(run + "/summary.json", "w"))
os.makedirs("dump90/B")
open("dump90/B/add_kernel.hsaco", "wb").write(k0)
PY
}

@test "in place over a tree that holds the workflow run and other installs' backups: those are left alone" {
  run_dump
  # src/ holds K0 where Triton's dump puts it, the workflow run itself (whose k0.hsaco is K0),
  # another install's backup of K0, and a copy of a search run directory.
  mkdir -p src/sub/.asmevo-backup/$H src/$H
  cp "$K0" src/$H/add_kernel.hsaco
  cp -r "$WF" src/runs
  cp "$K0" src/sub/.asmevo-backup/$H/add_kernel.hsaco
  cp -r "$WF/deopt-vector_add_fp32/search" src/agent-run
  cp "$K0" src/agent-run/k0-copy.hsaco
  snapshot_tree
  run asmevo-install src/runs --triton src --to src
  assert_success
  assert_line --index 0 "asmevo-install: installed 1 K* (0 unchanged, 1 skipped) into src (triton, in place); manifest src/asmevo-install.json"
  assert_line --index 1 --regexp "^  deopt-vector_add_fp32: installed $H/add_kernel.hsaco \(1\.[0-9]{4}x\)$"
  assert_line --index 3 "  not searched: agent-run/ (a search run directory (asmevo-agent); nothing in it is replaced)"
  assert_line --index 4 "  not searched: runs/ (a workflow run directory; nothing in it is replaced)"
  assert_line --index 5 "  not searched: sub/.asmevo-backup/ (another install's backups; nothing in it is replaced)"
  cmp src/$H/add_kernel.hsaco "$KS"
  cmp src/.asmevo-backup/$H/add_kernel.hsaco "$K0"
  cmp src/runs/deopt-vector_add_fp32/k0.hsaco "$K0"
  assert_tree_unchanged src/$H/add_kernel.hsaco src/.asmevo-backup src/asmevo-install.json
  # A target under a symbolic link to the source is inside the source.
  ln -s src linked
  snapshot_tree
  run asmevo-install "$WF" --triton src --to linked/new
  assert_failure 2
  assert_output "asmevo-install: error: 'linked/new': the target and the source ('src') are inside one another: give another directory, or the source itself to install in place"
  # And the run's own directory is never a target.
  run asmevo-install "$WF" --triton dump --to "$WF/deopt-vector_add_fp32"
  assert_failure 2
  assert_output "asmevo-install: error: '$WF/deopt-vector_add_fp32': the target is inside the run directory ('$WF'), whose files are the run's own: give another directory"
  assert_tree_unchanged
}

@test "--uninstall refuses a manifest path that leads outside DIR, naming the entry; nothing changes" {
  run_dump
  asmevo-install -q "$WF" --triton dump --to ovr
  # A file outside the target with K*'s bytes: an uninstall that followed the path would take it
  # for the K* it installed and remove it.
  cp "$KS" victim.hsaco
  ln -s .. ovr/up
  cp ovr/asmevo-install.json good.json
  for bad in ../victim.hsaco up/victim.hsaco $H/../../victim.hsaco; do
    python3 - "$bad" <<'PY'
import json, sys
m = json.load(open("good.json"))
m["entries"].append(dict(m["entries"][0], path=sys.argv[1]))
json.dump(m, open("ovr/asmevo-install.json", "w"), indent=2)
PY
    snapshot_tree
    run --separate-stderr asmevo-install --uninstall ovr
    assert_failure 1
    assert_equal "$stderr" "asmevo-install: refused: 'ovr/asmevo-install.json': \"entries[1].path\" is \"$bad\", which leads outside 'ovr' (to '$TMP/victim.hsaco'): not uninstalled; nothing was changed"
    assert_tree_unchanged
  done
  run --separate-stderr asmevo-install --uninstall ovr --json
  assert_report asmevo-install refused 1
  assert_tree_unchanged report.json
  # A manifest that is not one is an input error, also for an install over it.
  printf '\xef\xbb\xbf' | cat - good.json > ovr/asmevo-install.json
  snapshot_tree
  run asmevo-install --uninstall ovr
  assert_failure 2
  assert_output "asmevo-install: error: 'ovr/asmevo-install.json'@0x0: starts with a UTF-8 byte-order mark (EF BB BF); the file is written without one (was it edited or replaced?)"
  sed 's/"kstar_sha256": "[0-9a-f]*"/"kstar_sha256": "12ab"/' good.json > ovr/asmevo-install.json
  run asmevo-install "$WF" --triton dump --to ovr
  assert_failure 2
  assert_output "asmevo-install: error: 'ovr/asmevo-install.json': a malformed install manifest: \"entries[0].kstar_sha256\" is \"12ab\", not a SHA-256 (64 hex digits)"
  assert_tree_unchanged ovr/asmevo-install.json
  # The good manifest still uninstalls.
  cp good.json ovr/asmevo-install.json
  rm ovr/up
  run asmevo-install --uninstall ovr
  assert_success
  [ ! -e ovr ] && cmp victim.hsaco "$KS"
}

@test "the hint lines quote paths with spaces and quotes, so that they can be pasted" {
  run_dump
  mkdir "it's here"
  cp -r dump "it's here/dump"
  run asmevo-install "$WF" --triton "it's here/dump" --to "it's here/my ovr"
  assert_success
  want="$TMP/it's here/my ovr"
  quoted="'$(printf '%s' "$want" | sed "s/'/'\\\\''/g")'"
  assert_line --index 3 --partial "TRITON_OVERRIDE_DIR=$quoted (and TRITON_ALWAYS_COMPILE=1"
  # Pasted into a shell, the line sets the variable to the directory.
  line=$(printf '%s\n' "${lines[3]}" | sed 's/^  Triton loads it with //; s/ (and TRITON_ALWAYS.*//')
  [ "$(env -i bash -c "$line bash -c 'printf %s \"\$TRITON_OVERRIDE_DIR\"'")" = "$want" ]
  mkdir -p "a b/hsa/gfx942"
  cp "$K0" "a b/hsa/gfx942/k.co"
  run asmevo-install "$WF" --aiter "a b/hsa" --to "a b/asm dir"
  assert_success
  assert_line --index 3 "  AITer loads it with AITER_ASM_DIR='$TMP/a b/asm dir/' (the original's relative paths; the rest links to the originals)"
  run asmevo-install "$WF" --hip --to "a b/cos"
  assert_success
  assert_line --index 3 "  how to load it: '$TMP/a b/cos/asmevo-install.txt'"
}

@test "Triton: the manifest records K*'s target; one override directory never mixes two targets" {
  run_dump
  asmevo-install -q "$WF" --triton dump --to ovr
  grep -q '"target": "gfx942"' ovr/asmevo-install.json
  gfx90a_run r90
  snapshot_tree
  run asmevo-install r90 --triton dump90 --to ovr
  assert_failure 1
  assert_output "asmevo-install: refused: 'ovr': it holds K* for gfx942 (deopt-vector_add_fp32, $H/add_kernel.hsaco), and K* for gfx90a (k90-add, B/add_kernel.hsaco) would join it: Triton's override directory is keyed by the kernel's source hash only, not by the GPU, so a compile for either target would load the other's code object; give each target its own directory (--to); nothing was changed"
  assert_tree_unchanged
  # A manifest from before the field: the target is read from the K* installed.
  python3 -c '
import json
m = json.load(open("ovr/asmevo-install.json"))
for e in m["entries"]: e.pop("target")
json.dump(m, open("ovr/asmevo-install.json", "w"))'
  snapshot_tree
  run --separate-stderr asmevo-install r90 --triton dump90 --to ovr --json
  assert_report asmevo-install refused 1
  assert_tree_unchanged report.json
  # Its own directory is fine, and says which GPUs it is for.
  run asmevo-install r90 --triton dump90 --to ovr90
  assert_success
  assert_line --index 2 --partial "set it only on gfx90a GPUs: the override directory is keyed by the kernel's source hash, not by the GPU, so a compile for any other target would load this gfx90a code object too"
  grep -q '"target": "gfx90a"' ovr90/asmevo-install.json
}
