# Bats helper: every test runs in its own temporary directory with the build's tools first on
# PATH. ASMEVO_TOOLS (build/bin), ASMEVO_LLVM_BINDIR and ASMEVO_SOURCE_DIR come from CTest.
bats_require_minimum_version 1.5.0 # run --separate-stderr

setup() {
  load '/usr/lib/bats/bats-support/load'
  load '/usr/lib/bats/bats-assert/load'
  : "${ASMEVO_SOURCE_DIR:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
  : "${ASMEVO_TOOLS:=$ASMEVO_SOURCE_DIR/build/bin}"
  : "${ASMEVO_LLVM_BINDIR:=/usr/lib/llvm-22/bin}"
  PATH="$ASMEVO_TOOLS:$PATH"
  export PATH
  TMP=$(mktemp -d)
  cd "$TMP"
  TRITON=$ASMEVO_SOURCE_DIR/test/corpus/triton
  FIXTURES=$ASMEVO_SOURCE_DIR/test/cli/fixtures
}

# build_hip_programs (from setup_file): test/hip's programs for gfx942 into $PROGS, with
# $HIPLIB the folder of libasmevo-hip.so (ASMEVO_LIB_DIR, from CTest; else build/lib).
build_hip_programs() {
  : "${ASMEVO_SOURCE_DIR:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
  : "${ASMEVO_TOOLS:=$ASMEVO_SOURCE_DIR/build/bin}"
  export HIPLIB=${ASMEVO_LIB_DIR:-$ASMEVO_TOOLS/../lib}
  export PROGS=$BATS_FILE_TMPDIR/progs
  ASMEVO_LIB_DIR=$HIPLIB bash "$ASMEVO_SOURCE_DIR/test/hip/build.sh" "$PROGS" gfx942 >&3 2>&1
}

teardown() {
  rm -rf "$TMP"
}

# Every long option of TOOL --help is in its man page, and every option the man page names is
# in --help; and the man page has a FILES and an EXAMPLES section.
assert_help_matches_man() {
  local tool=$1 man="$ASMEVO_SOURCE_DIR/man/man1/$1.1" opt section
  [ -f "$man" ] || fail "no man page $man"
  for section in FILES EXAMPLES; do
    grep -Eq "^\.SH +\"?$section\"? *$" "$man" || fail "man page lacks a .SH $section section"
  done
  run "$tool" --help
  assert_success
  for opt in $(echo "$output" | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
    sed 's/\\//g' "$man" | grep -q -- "$opt" || fail "man page lacks $opt"
  done
  for opt in $(sed 's/\\f[BIRP]//g; s/\\//g' "$man" | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
    echo "$output" | grep -q -- "$opt" || fail "--help lacks $opt"
  done
}

# build_call_kernel OUT.hsaco: a gfx942 kernel that reads a constant table and calls a device
# function, both through s_getpc_b64-relative addresses (compiled with clang at test time).
build_call_kernel() {
  cat > k.c <<'SRC'
__attribute__((address_space(4))) const float tab[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__attribute__((noinline)) float helper(float x, int j) { return x * tab[j & 3] + 1.0f; }
__attribute__((amdgpu_kernel)) void add(float *a, const float *b, int n) {
  int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 64;
  if (i < n) a[i] += helper(b[i], i);
}
SRC
  "$ASMEVO_LLVM_BINDIR/clang" -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -O2 -c k.c -o k.o
  "$ASMEVO_LLVM_BINDIR/ld.lld" -shared k.o -o "$1"
}

# build_table_kernel OUT.hsaco [EXPR]: a gfx942 kernel with two pointer tables (grouped axpy:
# workgroup row g updates y[g][i] = EXPR for i < n_g, n_0 and n_1 by value), as grouped GEMM
# and MoE kernels load their buffers' addresses from memory (compiled with clang at test time).
build_table_kernel() {
  cat > "$1.c" <<SRC
__attribute__((amdgpu_kernel)) void grouped_axpy(const float *const *x, float *const *y, int n0,
                                                 int n1, float a, int groups) {
  int g = __builtin_amdgcn_workgroup_id_y();
  int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 64;
  int n = g ? n1 : n0;
  if (g < groups && i < n)
    y[g][i] = ${2:-a * x[g][i] + y[g][i]};
}
SRC
  "$ASMEVO_LLVM_BINDIR/clang" -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -O2 -c "$1.c" -o "$1.o"
  "$ASMEVO_LLVM_BINDIR/ld.lld" -shared "$1.o" -o "$1"
}

# patch FILE OFFSET HEXBYTES: overwrite bytes in place (a copy made by the test).
patch_bytes() {
  printf "$(echo "$3" | sed 's/\(..\)/\\x\1/g')" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none
}

# assemble IN.s OUT.hsaco MCPU: the stock llvm-mc and ld.lld, as a user would build a candidate.
assemble() {
  "$ASMEVO_LLVM_BINDIR/llvm-mc" -triple=amdgcn-amd-amdhsa -mcpu="$3" -filetype=obj "$1" -o "$2.o"
  "$ASMEVO_LLVM_BINDIR/ld.lld" -shared "$2.o" -o "$2"
}

# symbol_addr OBJ NAME: a symbol's value, in decimal, from the stock llvm-readelf.
symbol_addr() {
  echo $((0x$("$ASMEVO_LLVM_BINDIR/llvm-readelf" -s "$1" | awk -v n="$2" '$8 == n {print $2; exit}')))
}

# section_end OBJ NAME: the address one past a section's end, in decimal.
section_end() {
  local a s
  read -r a s < <("$ASMEVO_LLVM_BINDIR/llvm-readelf" -S -W "$1" |
    awk -v n="$2" '{for (i = 1; i <= NF; i++) if ($i == n) {print $(i+2), $(i+4); exit}}')
  echo $((0x$a + 0x$s))
}

# tiny_kernel TARGET NEXT_FREE_VGPR ACCUM_OFFSET < BODY > K.s: the source of a code object with
# one kernel `k` (no arguments, 64-item workgroups) whose code is BODY's lines.
tiny_kernel() {
  printf '\t.amdgcn_target "amdgcn-amd-amdhsa--%s"\n\t.amdhsa_code_object_version 5\n' "$1"
  printf '\t.text\n\t.globl k\n\t.p2align 8\n\t.type k,@function\nk:\n'
  cat
  printf '\t.rodata\n\t.p2align 6\n\t.amdhsa_kernel k\n\t.amdhsa_next_free_vgpr %s\n' "$2"
  printf '\t.amdhsa_next_free_sgpr 8\n\t.amdhsa_accum_offset %s\n\t.end_amdhsa_kernel\n' "$3"
  cat <<META
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args: []
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 0
    .max_flat_workgroup_size: 64
    .name: k
    .private_segment_fixed_size: 0
    .sgpr_count: 14
    .symbol: k.kd
    .vgpr_count: $2
    .wavefront_size: 64
amdhsa.target: amdgcn-amd-amdhsa--$1
amdhsa.version: [1, 2]
...
	.end_amdgpu_metadata
META
}

# handwritten VARIANT > K.s: the hand-written fixture (fixtures/handwritten_gfx942.s) changed:
# "v40" uses v40 with 8 VGPRs allocated; "m0-40" reads s40 through M0
# (s_movrels_b32); "vgpr208" allocates 208 VGPRs to hw_copy (.max_flat_workgroup_size 1024);
# "kernarg" gives hw_copy's descriptor a kernarg_size of 0xFFFFFFF0 (the metadata says 24).
handwritten() {
  local f="$FIXTURES/handwritten_gfx942.s"
  case $1 in
  v40) sed 's/v_add_f32_e32 v2, s9, v2/v_add_f32_e32 v2, s9, v40/; s/amdhsa_next_free_vgpr 64/amdhsa_next_free_vgpr 8/; s/amdhsa_accum_offset 64/amdhsa_accum_offset 8/' "$f" ;;
  m0-40) sed 's/s_mov_b32 m0, 8/s_mov_b32 m0, 40/' "$f" ;;
  vgpr208) sed '0,/\.amdhsa_next_free_vgpr 64/s//.amdhsa_next_free_vgpr 208/; 0,/\.amdhsa_accum_offset 64/s//.amdhsa_accum_offset 204/' "$f" ;;
  kernarg) sed '0,/\.amdhsa_kernarg_size 24/s//.amdhsa_kernarg_size 4294967280/' "$f" ;;
  esac
}

# assert_report TOOL OUTCOME EXIT: $output (the last `run`, with stderr apart: run it as
# `run --separate-stderr`) is one report envelope that share/asmevo/report.schema.json accepts,
# from TOOL, with that outcome and exit code; and the command exited with EXIT.
assert_report() {
  [ "$status" -eq "$3" ] || fail "exit status $status, expected $3 (stderr: $stderr)"
  printf '%s' "$output" > report.json
  python3 "$BATS_TEST_DIRNAME/validate_report.py" \
    "$ASMEVO_SOURCE_DIR/share/asmevo/report.schema.json" report.json "$1" "$2" "$3" ||
    fail "not a valid $1 report with outcome $2: $(cat report.json | head -c 400)"
}

# The Triton vector add (gfx942), de-optimized: an s_waitcnt vmcnt(0) after every load, so no
# load overlaps another. deopt.hsaco, deopt.s (its recovered text) and its complete spec.
deopt() {
  VADD=$TRITON/gfx942/vector_add_fp32.hsaco
  hsaco-recover "$VADD" -o k.s
  awk '{print} /^\tbuffer_load_dword/ {print "\ts_waitcnt vmcnt(0)"}' k.s > slow.s
  hsaco-rebuild slow.s -o deopt.hsaco -q
  hsaco-recover deopt.hsaco -o deopt.s
  kernel-diffcheck --infer deopt.hsaco --spec "$ASMEVO_SOURCE_DIR/test/specs/vector_add_fp32.json" \
    -o deopt.json -q
}

# tree_state DIR: one sorted line per entry under DIR (directories, links with their target,
# files with their SHA-256), so that two states compare with diff.
tree_state() {
  # One python3 process (not a sha256sum per file): a run directory has thousands of files.
  python3 - "$1" <<'PY'
import hashlib, os, sys
try:
    os.chdir(sys.argv[1])
except OSError as e:
    sys.exit("tree_state: %s" % e)
lines, stack = [], [b"."]
while stack:
    d = stack.pop()
    for e in os.scandir(d):
        p = os.path.join(d, e.name)
        if e.is_symlink():
            lines.append((p, b"l " + p + b" -> " + os.readlink(p)))
        elif e.is_dir():
            lines.append((p, b"d " + p))
            stack.append(p)
        else:
            try:
                with open(p, "rb") as f:
                    h = hashlib.sha256(f.read()).hexdigest().encode()
            except OSError:
                h = b""
            lines.append((p, b"f " + p + b" " + h))
lines.sort()  # by path, bytewise, as LC_ALL=C sort
sys.stdout.buffer.write(b"".join(l + b"\n" for _, l in lines))
PY
}

# snapshot_tree [DIR]: remember DIR's state (default: the test's directory, $TMP), for
# assert_tree_unchanged.
snapshot_tree() {
  TREE_DIR=$(cd "${1:-$TMP}" && pwd)
  tree_state "$TREE_DIR" > "$BATS_TEST_TMPDIR/tree.before"
}

# assert_tree_unchanged [PATH...]: nothing under the snapshot's directory was created, changed
# or removed since snapshot_tree, except the given paths (relative to that directory, as
# `./out.html`; a directory's path covers everything below it): the tool's declared outputs.
assert_tree_unchanged() {
  local p pat=''
  for p in "$@"; do
    p=./${p#./}
    pat="$pat|^[dlf] $(printf '%s' "${p%/}" | sed 's/[][\.*^$/]/\\&/g')( |/|$)"
  done
  tree_state "$TREE_DIR" > "$BATS_TEST_TMPDIR/tree.after"
  local d
  d=$(diff "$BATS_TEST_TMPDIR/tree.before" "$BATS_TEST_TMPDIR/tree.after" | grep '^[<>]' |
    cut -c3- | { if [ -n "$pat" ]; then grep -Ev "${pat#|}"; else cat; fi; } || true)
  [ -z "$d" ] || fail "files outside the declared outputs changed under $TREE_DIR:
$d"
}
