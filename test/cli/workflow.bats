#!/usr/bin/env bats
# Makefile.workflow under bad variables and signals, and share/run-example.sh's build: a value
# that cannot work (RUN empty or /, two kernels of one name, a number out of range, a path with a
# space, a missing object, spec or tool, install without INSTALL=) stops make before any step,
# with a "workflow: ..." line, exit 2 and nothing written; a kernel in '.' gets its directory's
# name; the search step shows asmevo-agent's progress; an interrupted search says so and resumes;
# the main job builds every tool and library README.md says it builds. Every make runs in the
# test's directory (never with -C into the repository), and a value that would write outside it
# on a makefile without the checks (RUN=/, RUN=..) is only tried with make -n.
load test_helper

# wf ARGS...: Makefile.workflow in the test's directory with the build's tools and the bundled
# partial specs, and a search that stops after two candidates.
wf() {
  make -s -f "$ASMEVO_SOURCE_DIR/Makefile.workflow" TOOLS="$ASMEVO_TOOLS" \
    SPECS="$ASMEVO_SOURCE_DIR/test/specs" BUDGET=5 MAX_CANDIDATES=2 "$@"
}

# k/vector_add_fp32.hsaco: Triton's vector add (gfx942), whose partial spec is in test/specs.
kernel() {
  mkdir -p k
  cp "$TRITON/gfx942/vector_add_fp32.hsaco" k/
}

# base/: k/ and the steps of its kernel before the search (runs/k-vector_add_fp32/k0.hsaco ...
# profile.json), made once; prepared (in a test) copies them into the test's directory, times
# kept, so that make runs the search only.
setup_file() {
  : "${ASMEVO_SOURCE_DIR:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
  : "${ASMEVO_TOOLS:=$ASMEVO_SOURCE_DIR/build/bin}"
  mkdir -p "$BATS_FILE_TMPDIR/base/k"
  cd "$BATS_FILE_TMPDIR/base"
  cp "$ASMEVO_SOURCE_DIR/test/corpus/triton/gfx942/vector_add_fp32.hsaco" k/
  make -s -f "$ASMEVO_SOURCE_DIR/Makefile.workflow" TOOLS="$ASMEVO_TOOLS" \
    SPECS="$ASMEVO_SOURCE_DIR/test/specs" OBJ=k/vector_add_fp32.hsaco \
    runs/k-vector_add_fp32/k0.s runs/k-vector_add_fp32/profile.json \
    runs/k-vector_add_fp32/baseline.json > /dev/null 2>&1
}

prepared() {
  cp -a "$BATS_FILE_TMPDIR/base/." .
}

# refused LINE: the last run stopped before any step: make's exit 2, the problem's line (exact)
# and make's own line after it.
refused() {
  assert_failure 2
  assert_line "workflow: $1"
  assert_line --regexp '^.*Makefile\.workflow:[0-9]+: \*\*\* workflow: stopped before any step \(see above\)\.  Stop\.$'
}

# signal_make SIGNAL group|make ARGS...: wf ARGS in a session of its own (SIGINT not ignored, as
# in a terminal), sent SIGNAL once its search has run a second (to make's whole process group,
# as a Ctrl-C does, or to make alone); make's output in make.out, its status in make.rc.
signal_make() {
  local sig=$1 to=$2
  shift 2
  python3 - "$sig" "$to" make -s -f "$ASMEVO_SOURCE_DIR/Makefile.workflow" TOOLS="$ASMEVO_TOOLS" \
    SPECS="$ASMEVO_SOURCE_DIR/test/specs" "$@" <<'PY'
import glob, os, signal, subprocess, sys, time
sig, to, cmd = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3:]
with open("make.out", "w") as out:
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    for _ in range(600):
        if glob.glob("runs/*/search/journal.jsonl"):
            break
        time.sleep(0.05)
    time.sleep(1)
    (os.killpg if to == "group" else os.kill)(p.pid, sig)
    open("make.rc", "w").write("%d\n" % p.wait())
PY
}

@test "RUN empty, / or anything that resolves to it, the directory make runs in or above it: refused before any step" {
  kernel
  ln -s / rootlink
  echo data > afile
  snapshot_tree
  run wf -n OBJ=k/vector_add_fp32.hsaco RUN=
  refused "RUN is empty: give the run directory (RUN=runs, the default); the run would write under /"
  run wf -n OBJ=k/vector_add_fp32.hsaco RUN='  '
  refused "RUN is empty: give the run directory (RUN=runs, the default); the run would write under /"
  for r in / // /.. /tmp/.. rootlink rootlink/ "$(printf '../%.0s' {1..40})"; do
    run wf -n OBJ=k/vector_add_fp32.hsaco RUN="$r"
    refused "RUN='$r' is the root directory: give a directory of its own (RUN=runs)"
  done
  for r in . .. ./ k/.. "$TMP"; do
    run wf -n OBJ=k/vector_add_fp32.hsaco RUN="$r"
    refused "RUN='$r' is the directory make runs in ($TMP) or one above it: the run's files would mix with yours; give a directory of its own (RUN=runs)"
  done
  run wf -n OBJ=k/vector_add_fp32.hsaco RUN=afile
  refused "RUN='afile' is not a directory"
  run wf -n OBJ=k/vector_add_fp32.hsaco RUN='my runs'
  refused "RUN='my runs' cannot be used: make splits paths at spaces; choose another directory"
  run wf -n OBJ=k/vector_add_fp32.hsaco RUN='a;b'
  refused "RUN='a;b' cannot be used: make or the shell reads ';' in it as syntax; choose another directory"
  # clean-run and report read RUN too.
  run wf -n RUN=/ clean-run
  refused "RUN='/' is the root directory: give a directory of its own (RUN=runs)"
  run wf -n OBJ=k/vector_add_fp32.hsaco RUN= report
  refused "RUN is empty: give the run directory (RUN=runs, the default); the run would write under /"
  assert_tree_unchanged
}

@test "RUN that is not a workflow run: its summary.json is not overwritten, and clean-run removes nothing of it" {
  kernel
  mkdir mine
  echo '{"mine": true}' > mine/summary.json
  echo notes > mine/notes.txt
  snapshot_tree
  run wf OBJ=k/vector_add_fp32.hsaco RUN=mine
  refused "RUN='mine' holds a summary.json that is not a workflow summary: it is not a workflow run directory (give a new one)"
  rm mine/summary.json
  snapshot_tree
  run wf RUN=mine clean-run
  refused "clean-run: RUN='mine' holds 'mine/notes.txt', which the workflow did not write: not removing it (remove the directory yourself if it is yours to remove)"
  assert_tree_unchanged
  # A run directory with a file of the user's inside a kernel's directory: the same.
  rm mine/notes.txt
  mkdir -p runs/k-vector_add_fp32
  touch runs/k-vector_add_fp32/k0.hsaco runs/k-vector_add_fp32/mine.txt
  echo '{"format": "asmevo-workflow-summary"}' > runs/summary.json
  snapshot_tree
  run wf clean-run
  refused "clean-run: RUN='runs' holds 'runs/k-vector_add_fp32/mine.txt', which the workflow did not write: not removing it (remove the directory yourself if it is yours to remove)"
  assert_tree_unchanged
  # Only the workflow's own files: removed.
  rm runs/k-vector_add_fp32/mine.txt
  snapshot_tree
  run wf clean-run
  assert_success
  [ ! -e runs ]
  assert_tree_unchanged runs
}

@test "two kernels of one name (the same file twice, or a/k.hsaco and ../x/a/k.hsaco): refused, naming both" {
  kernel
  mkdir -p a other/a
  cp k/vector_add_fp32.hsaco a/k.hsaco
  cp k/vector_add_fp32.hsaco other/a/k.hsaco
  snapshot_tree
  run wf KERNELS="k/vector_add_fp32.hsaco k/vector_add_fp32.hsaco"
  refused "kernel object 'k/vector_add_fp32.hsaco' is given twice ('k/vector_add_fp32.hsaco' and 'k/vector_add_fp32.hsaco')"
  run wf KERNELS="k/vector_add_fp32.hsaco ./k/../k/vector_add_fp32.hsaco"
  refused "kernel object './k/../k/vector_add_fp32.hsaco' is given twice ('k/vector_add_fp32.hsaco' and './k/../k/vector_add_fp32.hsaco')"
  run wf KERNELS="a/k.hsaco ../${TMP##*/}/other/a/k.hsaco" SPEC="$ASMEVO_SOURCE_DIR/test/specs/vector_add_fp32.json"
  refused "kernel objects 'a/k.hsaco' and '../${TMP##*/}/other/a/k.hsaco' have the same name, a-k (the run directory RUN/a-k): give one of them from a directory of another name (a copy or a link)"
  assert_tree_unchanged
}

@test "a kernel in the directory make runs in is named after that directory, never the hidden .-name" {
  kernel
  mkdir 'my dir:1'
  cp k/vector_add_fp32.hsaco 'my dir:1/'
  snapshot_tree
  cd k
  # Only the copy and the recovery (the steps whose files name the kernel).
  run wf OBJ=vector_add_fp32.hsaco RUN=../runs ../runs/k-vector_add_fp32/k0.s
  assert_success
  [ -s ../runs/k-vector_add_fp32/k0.s ]
  run wf OBJ=./vector_add_fp32.hsaco RUN=../runs -n ../runs/k-vector_add_fp32/k0.s
  assert_success
  cd "$TMP"
  [ "$(ls -A runs)" = k-vector_add_fp32 ]
  # From above, through '..' and '.': the same name.
  run wf OBJ=k/../k/./vector_add_fp32.hsaco -n runs/k-vector_add_fp32/k0.s
  assert_success
  assert_output ''
  # The name is one make can take: a directory with a space or a colon becomes '_'.
  cd 'my dir:1'
  run wf OBJ=vector_add_fp32.hsaco RUN=../runs -n ../runs/my_dir_1-vector_add_fp32/k0.s
  assert_success
  cd "$TMP"
  assert_tree_unchanged runs
}

@test "the search step shows asmevo-agent's progress, each line prefixed with the kernel's name" {
  prepared
  snapshot_tree
  # The stochastic driver: the rules driver has nothing to propose on the vector add (its only
  # candidates were cache-bit toggles, which the search no longer makes).
  run --separate-stderr wf OBJ=k/vector_add_fp32.hsaco BUDGET=30 DRIVER=stochastic MAX_CANDIDATES=2
  assert_success
  [[ $stderr == *"workflow: k-vector_add_fp32: the search (asmevo-agent, at most 30 s, run directory runs/k-vector_add_fp32/search)"* ]] ||
    fail "no search line: $stderr"
  grep -Eq '^k-vector_add_fp32: asmevo-agent: n000001 [a-z_]+ .*\| 1 candidates, ' <<< "$stderr" ||
    fail "no progress line: $stderr"
  assert_line --regexp '^workflow: k-vector_add_fp32: [0-9.]+x \(modeled, not measured, emu\) after 2 candidates'
  assert_tree_unchanged runs
}

@test "variables checked before any step: TEAM, WORKERS, BUDGET, MAX_CANDIDATES, BACKEND, DRIVER" {
  kernel
  snapshot_tree
  for t in 0 abc 2x -1 1025 ''; do
    run wf OBJ=k/vector_add_fp32.hsaco TEAM="$t"
    refused "TEAM must be a whole number of team members from 1 to 1024, not '$t'"
  done
  for w in 0 257 1.5; do
    run wf OBJ=k/vector_add_fp32.hsaco WORKERS="$w"
    refused "WORKERS must be a whole number of workers from 1 to 256, not '$w'"
  done
  for b in 0 0.0 -5 abc 1e3 ''; do
    run wf OBJ=k/vector_add_fp32.hsaco BUDGET="$b"
    refused "BUDGET must be a number of seconds above 0 (as 60 or 2.5), not '$b'"
  done
  run wf OBJ=k/vector_add_fp32.hsaco TEAM=2 TEAM_BUDGET=x
  refused "TEAM_BUDGET must be a number of seconds above 0 (as 60 or 2.5), not 'x'"
  for m in -1 1.5 many; do
    run wf OBJ=k/vector_add_fp32.hsaco MAX_CANDIDATES="$m"
    refused "MAX_CANDIDATES must be a whole number of candidates (0: no limit), not '$m'"
  done
  run wf OBJ=k/vector_add_fp32.hsaco BACKEND=gpu
  refused "BACKEND must be emu or hip, not 'gpu'"
  run wf OBJ=k/vector_add_fp32.hsaco DRIVER=rule
  refused "DRIVER must be rules, stochastic, exec:COMMAND or llm, not 'rule'"
  run wf OBJ=k/vector_add_fp32.hsaco DRIVER=exec:
  refused "DRIVER must be rules, stochastic, exec:COMMAND or llm, not 'exec:'"
  run wf OBJ=k/vector_add_fp32.hsaco DRIVER=llm
  refused "DRIVER=llm needs LLM_URL=... (see README.md: The llm driver)"
  assert_line "workflow: DRIVER=llm needs LLM_MODEL=... (see README.md: The llm driver)"
  # A key given where the name of its variable goes is never echoed.
  run wf OBJ=k/vector_add_fp32.hsaco DRIVER=llm LLM_URL=http://127.0.0.1:9 LLM_MODEL=m \
    LLM_KEY_ENV=sk-ant-secret-42
  refused "LLM_KEY_ENV must be the name of the variable that holds the key (as ANTHROPIC_API_KEY), not the key itself; its value is not shown"
  refute_output --partial secret
  run wf OBJ=k/vector_add_fp32.hsaco DRIVER="exec:echo 'x'"
  assert_failure 2
  assert_output --partial "*** workflow: DRIVER: a value with a single quote (') cannot be passed on by the workflow.  Stop."
  # Every problem at once, one line each.
  run wf OBJ=k/vector_add_fp32.hsaco TEAM=0 WORKERS=0
  refused "TEAM must be a whole number of team members from 1 to 1024, not '0'"
  assert_line "workflow: WORKERS must be a whole number of workers from 1 to 256, not '0'"
  # TEAM=01 is one member, as TEAM=1: no team step.
  run wf OBJ=k/vector_add_fp32.hsaco TEAM=01 -n
  assert_success
  refute_output --partial team-member
  assert_tree_unchanged
}

@test "paths checked before any step: a space, a missing object, spec or tool, the default SPECS outside the repository" {
  kernel
  cp k/vector_add_fp32.hsaco 'my k.hsaco'
  cp k/vector_add_fp32.hsaco 'k/a:b.hsaco'
  snapshot_tree
  run wf OBJ='my k.hsaco'
  refused "OBJ='my k.hsaco' has a space: make splits paths at spaces, so it cannot take this path; give the object by a path without spaces (a copy or a link: ln -s 'my k.hsaco' k.hsaco)"
  run wf KERNELS='my k.hsaco'
  refused "no kernel object 'my' (in $TMP; KERNELS is split at spaces, so a path with spaces cannot be given)"
  assert_line "workflow: no kernel object 'k.hsaco' (in $TMP; KERNELS is split at spaces, so a path with spaces cannot be given)"
  run wf OBJ=k/nope.hsaco
  refused "no kernel object 'k/nope.hsaco' (in $TMP)"
  run wf OBJ='k/a:b.hsaco'
  refused "kernel object 'k/a:b.hsaco' cannot be used: make or the shell reads ':' in it as syntax; give it by a path without such characters (a copy or a link)"
  run wf OBJ=k/vector_add_fp32.hsaco SPEC=nope.json
  refused "no launch spec SPEC='nope.json' (in $TMP)"
  run wf OBJ=k/vector_add_fp32.hsaco SPECS=k
  refused "no launch spec for 'k/vector_add_fp32.hsaco': no 'k/vector_add_fp32.json'; write a partial spec (README.md: Writing a launch spec) and give it as SPEC=FILE, or put it there"
  # The default SPECS is the repository's test/specs: here it is not.
  run make -s -f "$ASMEVO_SOURCE_DIR/Makefile.workflow" TOOLS="$ASMEVO_TOOLS" OBJ=k/vector_add_fp32.hsaco
  refused "no launch spec for 'k/vector_add_fp32.hsaco': SPECS='test/specs' is not a directory in $TMP (the default, test/specs, is the repository's: run make in the repository root, make -C REPO); give SPEC=partial.json for the kernel or SPECS=DIR"
  run wf OBJ=k/vector_add_fp32.hsaco TOOLS="$TMP/k"
  refused "TOOLS='$TMP/k' lacks hsaco-recover kernel-diffcheck kernel-time asmevo-agent (build them: ninja -C build hsaco-recover kernel-diffcheck kernel-time asmevo-agent)"
  run wf OBJ=k/vector_add_fp32.hsaco TOOLS="$TMP/none"
  refused "TOOLS='$TMP/none' is not a directory (give the folder of the built tools, as build/bin)"
  run env PATH=/usr/bin:/bin make -s -f "$ASMEVO_SOURCE_DIR/Makefile.workflow" \
    OBJ=k/vector_add_fp32.hsaco SPECS="$ASMEVO_SOURCE_DIR/test/specs"
  refused "hsaco-recover kernel-diffcheck kernel-time asmevo-agent not on PATH: put the tools' folder on PATH (in the repository: export PATH=\"\$PWD/build/bin:\$PATH\") or give TOOLS=DIR"
  run wf
  refused 'give a kernel object: make -f Makefile.workflow OBJ=K.hsaco (or KERNELS="a.hsaco b.hsaco")'
  assert_tree_unchanged
  # The makefile away from its checks (a copy elsewhere): said so, nothing run.
  cp "$ASMEVO_SOURCE_DIR/Makefile.workflow" mk
  snapshot_tree
  run make -s -f mk TOOLS="$ASMEVO_TOOLS" OBJ=k/vector_add_fp32.hsaco
  assert_failure 2
  assert_output "mk:$(grep -n '^\$(error workflow: no ' mk | cut -d: -f1): *** workflow: no ./share/asmevo/workflow-check.sh: use the repository's Makefile.workflow where it is (make -f REPO/Makefile.workflow).  Stop."
  assert_tree_unchanged
}

@test "install without INSTALL= or INSTALL_DIR=, uninstall without INSTALL_DIR=: refused before the workflow runs" {
  kernel
  snapshot_tree
  run wf OBJ=k/vector_add_fp32.hsaco install INSTALL_DIR=ovr
  refused "install needs INSTALL=triton:DUMP_DIR, aiter:ASM_ROOT or hip[:APP_DIR]"
  run wf OBJ=k/vector_add_fp32.hsaco install INSTALL=rocm INSTALL_DIR=ovr
  refused "install needs INSTALL=triton:DUMP_DIR, aiter:ASM_ROOT or hip[:APP_DIR] (not 'rocm')"
  run wf OBJ=k/vector_add_fp32.hsaco install INSTALL=triton: INSTALL_DIR=ovr
  refused "install needs INSTALL=triton:DUMP_DIR, aiter:ASM_ROOT or hip[:APP_DIR] (not 'triton:')"
  run wf OBJ=k/vector_add_fp32.hsaco install INSTALL=hip
  refused "install needs INSTALL_DIR=DIR"
  run wf uninstall
  refused "uninstall needs INSTALL_DIR=DIR"
  assert_tree_unchanged
}

@test "Ctrl-C during a search: it says the search was interrupted, writes no summary, and the same make resumes it" {
  prepared
  snapshot_tree
  signal_make SIGINT group OBJ=k/vector_add_fp32.hsaco RUN="$TMP/runs" BUDGET=60 DRIVER=stochastic
  cat make.out
  [ "$(cat make.rc)" -ne 0 ]
  grep -qxF "workflow: k-vector_add_fp32: the search was interrupted (exit 130); its verified commits are kept in $TMP/runs/k-vector_add_fp32/search: run the same make command again to resume it" make.out
  # The search got the signal once: it stopped as asked (a second one ends it at once), and it
  # is gone with make.
  grep -q '"event":"stop",.*"why":"interrupted"' runs/k-vector_add_fp32/search/journal.jsonl
  [ -z "$(pgrep -f "asmevo-agent $TMP/runs/k-vector_add_fp32/k0.hsaco")" ]
  [ -f runs/k-vector_add_fp32/profile.json ]
  [ ! -e runs/k-vector_add_fp32/summary.json ] && [ ! -e runs/k-vector_add_fp32/summary.json.tmp ]
  [ ! -e runs/summary.json ]
  run wf OBJ=k/vector_add_fp32.hsaco RUN="$TMP/runs" DRIVER=stochastic MAX_CANDIDATES=3
  assert_success
  assert_line --regexp '^workflow: k-vector_add_fp32: [0-9.]+x \(modeled, not measured, emu\) after [0-9]+ candidates'
  grep -q '"event":"resume"' runs/k-vector_add_fp32/search/journal.jsonl
  assert_tree_unchanged runs make.out make.rc
}

@test "SIGTERM to make alone during a search reaches the search once: interrupted, not a failure" {
  prepared
  snapshot_tree
  signal_make SIGTERM make OBJ=k/vector_add_fp32.hsaco RUN="$TMP/runs" BUDGET=60 DRIVER=stochastic
  cat make.out
  [ "$(cat make.rc)" -ne 0 ]
  grep -qxF "workflow: k-vector_add_fp32: the search was interrupted (exit 143); its verified commits are kept in $TMP/runs/k-vector_add_fp32/search: run the same make command again to resume it" make.out
  grep -q '"event":"stop",.*"why":"interrupted"' runs/k-vector_add_fp32/search/journal.jsonl
  [ -z "$(pgrep -f "asmevo-agent $TMP/runs/k-vector_add_fp32/k0.hsaco")" ]
  [ ! -e runs/k-vector_add_fp32/summary.json ] && [ ! -e runs/summary.json ]
  assert_tree_unchanged runs make.out make.rc
}

@test "RUN/summary.json is not written over a kernel whose search did not finish" {
  prepared
  # A kernel's summary.json (the search's report) whose outcome is not ok, newer than its steps.
  sleep 0.01
  echo '{"outcome": "interrupted"}' > runs/k-vector_add_fp32/summary.json
  snapshot_tree
  run wf OBJ=k/vector_add_fp32.hsaco
  assert_failure
  assert_line "workflow: k-vector_add_fp32: the search did not finish (interrupted): run the same make command again to resume it"
  [ ! -e runs/summary.json ] && [ ! -e runs/summary.json.tmp ]
  assert_tree_unchanged
}

@test "share/run-example.sh builds every tool and library README.md says the set-up builds" {
  # The script in a copy of the repository's layout whose set-up, cmake, ninja and make are
  # stand-ins: ninja notes the targets it is asked for and makes what the real targets make.
  mkdir -p src/share src/test/corpus/triton/gfx942 fake
  cp "$ASMEVO_SOURCE_DIR/share/run-example.sh" src/share/
  cp "$TRITON/gfx942/vector_add_fp32.hsaco" src/test/corpus/triton/gfx942/
  echo 'exit 0' > src/test/setup-debian.sh
  touch src/Makefile.workflow
  printf '#!/bin/sh\nexit 0\n' > fake/cmake
  cat > fake/tool <<'SH'
#!/bin/sh
# a stand-in tool: --version, or an output after -o
case "$1" in --version) echo "$(basename "$0") (stand-in)"; exit 0 ;; esac
while [ $# -gt 0 ]; do [ "$1" = -o ] && { echo x > "$2"; }; shift; done
SH
  cat > fake/ninja <<SH
#!/bin/bash
# ninja -C BUILD TARGET...: notes the targets; tools into bin/, asmevo-hip and asmevo-capture
# into lib/ (asmevo-hip with hip-compat/, as its POST_BUILD step).
b=\$2; shift 2
echo "\$@" > "$TMP/ninja.args"
mkdir -p "\$b/bin" "\$b/lib"
for t in "\$@"; do
  case \$t in
  asmevo-hip) touch "\$b/lib/libasmevo-hip.so"; mkdir -p "\$b/lib/hip-compat"
    ln -sf ../libasmevo-hip.so "\$b/lib/hip-compat/libamdhip64.so.5"
    ln -sf ../libasmevo-hip.so "\$b/lib/hip-compat/libamdhip64.so" ;;
  asmevo-capture) touch "\$b/lib/libasmevo-capture.so" ;;
  *) cp "$TMP/fake/tool" "\$b/bin/\$t" ;;
  esac
done
SH
  cat > fake/make <<'SH'
#!/bin/bash
# make ... RUN=DIR ...: a finished workflow run of one kernel.
for a; do case $a in RUN=*) run=${a#RUN=} ;; esac; done
mkdir -p "$run/gfx942-layernorm_fwd_fp16"
echo '{"kernels": [{"name": "gfx942-layernorm_fwd_fp16", "speedup": 1.5, "kind": "modeled", "backend": "emu", "candidates": 3, "commits": 1, "kstar": "K*"}]}' > "$run/summary.json"
SH
  chmod +x fake/*
  run env PATH="$TMP/fake:$PATH" bash src/share/run-example.sh
  assert_success
  # Every tool and library README.md's "Running the tools" names: asked for, and there.
  read -ra asked < ninja.args
  sed -n '/^The set-up builds/,/into `build\/lib`/p' "$ASMEVO_SOURCE_DIR/README.md" |
    grep -o '`[^`]*`' | tr -d '`' > promised
  grep -qx dispatch-capture promised && grep -qx libasmevo-capture.so promised &&
    grep -qx hip-compat/ promised || fail "README.md: $(cat promised)"
  b=$TMP/src/build
  while read -r p; do
    case $p in
    build/bin | build/lib) ;;
    lib*.so*) [ -e "$b/lib/$p" ] || [ -e "$b/lib/hip-compat/$p" ] || fail "no $p in $b/lib" ;;
    */) [ -d "$b/lib/$p" ] || fail "no $p in $b/lib" ;;
    *)
      [[ " ${asked[*]} " == *" $p "* ]] || fail "README.md names $p, run-example.sh does not build it"
      [ -x "$b/bin/$p" ] || fail "no $b/bin/$p"
      ;;
    esac
  done < promised
  # It says where everything is, last.
  assert_line "the tools: $b/bin; put them on PATH with:"
  assert_line "the libraries: $b/lib/libasmevo-hip.so (LD_LIBRARY_PATH=$b/lib/hip-compat runs a"
  assert_line "the run directory: $b/examples/workflow (the kernel's steps in $b/examples/workflow/gfx942-layernorm_fwd_fp16/, its search in"
  assert_line "the report: $b/examples/workflow/report.html"
  assert_line "dispatch-capture (stand-in)"
  # The targets are the build's own, with the outputs the stand-in gave them (hip-compat/ is
  # asmevo-hip's POST_BUILD step).
  ninja -C "$ASMEVO_TOOLS/.." -t targets all > targets
  for t in "${asked[@]}"; do
    grep -q "^$t: phony" targets || fail "the build has no target $t"
  done
  grep -q '^lib/libasmevo-hip.so: ' targets && grep -q '^lib/libasmevo-capture.so: ' targets
  grep -q 'hip-compat/libamdhip64.so.5' "$ASMEVO_SOURCE_DIR/runtime/hip/CMakeLists.txt"
}

@test "share/run-example.sh stops when the build did not make a library it promises" {
  mkdir -p src/share fake
  cp "$ASMEVO_SOURCE_DIR/share/run-example.sh" src/share/
  mkdir -p src/test
  echo 'exit 0' > src/test/setup-debian.sh
  printf '#!/bin/sh\nexit 0\n' > fake/cmake
  printf '#!/bin/sh\nexit 0\n' > fake/ninja
  chmod +x fake/*
  run env PATH="$TMP/fake:$PATH" bash src/share/run-example.sh
  assert_failure 3
  assert_output "run-example.sh: error: the build made no $TMP/src/build/lib/libasmevo-hip.so"
}
