#!/usr/bin/env bats
# The house rules' checks (test/lint/): they pass on the tree and fail on a scratch copy with a
# deliberate violation, naming the file and line; and the tests' own tree assertion can fail.
load test_helper

scratch_copy() {
  mkdir src
  cp -r "$ASMEVO_SOURCE_DIR/libcommon" "$ASMEVO_SOURCE_DIR/.clang-format" src/
  git -C src init -q
  git -C src add -A
}

@test "check-includes: the tree follows the arrows" {
  run bash "$ASMEVO_SOURCE_DIR/test/lint/check-includes.sh" "$ASMEVO_SOURCE_DIR"
  assert_success
  assert_output --regexp "^check-includes: [0-9]+ files follow the arrows$"
}

@test "check-includes: codeobj including asm fails, naming file, line and header" {
  scratch_copy
  sed -i '0,/^#include "codeobj\/CodeObject.h"/s//#include "codeobj\/CodeObject.h"\n#include "asm\/Recover.h"/' \
    src/libcommon/codeobj/CodeObject.cpp
  run bash "$ASMEVO_SOURCE_DIR/test/lint/check-includes.sh" "$PWD/src"
  assert_failure 1
  assert_output --regexp "^libcommon/codeobj/CodeObject.cpp:[0-9]+: codeobj may not include asm/Recover.h \(codeobj uses: support codeobj\)$"
}

@test "check-includes: emu including device fails" {
  scratch_copy
  echo '#include "device/Device.h"' >> src/libcommon/emu/Wave.h
  run bash "$ASMEVO_SOURCE_DIR/test/lint/check-includes.sh" "$PWD/src"
  assert_failure 1
  assert_output --partial "libcommon/emu/Wave.h:"
  assert_output --partial ": emu may not include device/Device.h"
}

@test "check-format: the tree is clean; a long line and a misformatted one fail" {
  run bash "$ASMEVO_SOURCE_DIR/test/lint/check-format.sh" "$ASMEVO_SOURCE_DIR"
  assert_success
  scratch_copy
  printf 'int f() { return  1; }\n' >> src/libcommon/support/Error.cpp
  printf '// %0120d\n' 0 >> src/libcommon/support/Error.h
  git -C src add -A
  run bash "$ASMEVO_SOURCE_DIR/test/lint/check-format.sh" "$PWD/src"
  assert_failure 1
  assert_line "  libcommon/support/Error.cpp:$(wc -l < src/libcommon/support/Error.cpp)"
  assert_line --partial "  libcommon/support/Error.h:$(wc -l < src/libcommon/support/Error.h): 123 columns"
}

@test "check-includes: the emulator including LLVM's MC layer fails" {
  scratch_copy
  echo '#include "llvm/MC/MCInst.h"' >> src/libcommon/emu/Inst.h
  run bash "$ASMEVO_SOURCE_DIR/test/lint/check-includes.sh" "$PWD/src"
  assert_failure 1
  assert_output --regexp "^libcommon/emu/Inst.h:[0-9]+: emu may not include llvm/MC/MCInst.h \(only asm uses LLVM's MC layer and lld\)$"
}

@test "assert_tree_unchanged: passes on an untouched tree, names what changed, honours outputs" {
  mkdir -p a/b
  echo x > a/b/f
  echo y > g
  ln -s g l
  snapshot_tree
  assert_tree_unchanged
  echo z > out.html
  run assert_tree_unchanged
  assert_failure
  assert_output --partial './out.html'
  assert_tree_unchanged out.html
  echo w > a/b/f
  run assert_tree_unchanged out.html
  assert_failure
  assert_output --partial './a/b/f'
  assert_tree_unchanged out.html a
  rm g
  run assert_tree_unchanged out.html a
  assert_failure
  assert_output --partial './g'
  ln -sf a/b/f l
  run assert_tree_unchanged out.html a ./g
  assert_failure
  assert_output --partial './l -> a/b/f'
}
