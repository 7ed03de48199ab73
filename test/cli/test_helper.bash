# Bats helper: every test runs in its own temporary directory with the build's tools first on
# PATH. ASMEVO_TOOLS (build/tools), ASMEVO_LLVM_BINDIR and ASMEVO_SOURCE_DIR come from CTest.
setup() {
  load '/usr/lib/bats/bats-support/load'
  load '/usr/lib/bats/bats-assert/load'
  : "${ASMEVO_SOURCE_DIR:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
  : "${ASMEVO_TOOLS:=$ASMEVO_SOURCE_DIR/build/tools}"
  : "${ASMEVO_LLVM_BINDIR:=/usr/lib/llvm-22/bin}"
  for t in "$ASMEVO_TOOLS"/*/; do PATH="$t:$PATH"; done
  export PATH
  TMP=$(mktemp -d)
  cd "$TMP"
  TRITON=$ASMEVO_SOURCE_DIR/test/corpus/triton
}

teardown() {
  rm -rf "$TMP"
}

# Every long option of TOOL --help is in its man page, and every option the man page names is
# in --help.
assert_help_matches_man() {
  local tool=$1 man="$ASMEVO_SOURCE_DIR/man/man1/$1.1" opt
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

# patch FILE OFFSET HEXBYTES: overwrite bytes in place (a copy made by the test).
patch_bytes() {
  printf "$(echo "$3" | sed 's/\(..\)/\\x\1/g')" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none
}
