#!/usr/bin/env bats
# Output safety in every tool: an output that is one of the tool's inputs (the same file, also
# through a symlink, another spelling or a file:// URI) is refused with exit 2 before any work and
# the input is left byte for byte as it was; the documented in-place idioms still work;
# directories, missing directories and unwritable places are named as what they are; two outputs
# to one file are refused; a symlinked output is replaced, its target untouched.
load test_helper

setup_file() {
  export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

K() { echo "$TRITON/gfx942/vector_add_fp32.hsaco"; }
WINDOW=add_kernel:0x1cc-0x1ec

# vadd_inputs: x.bin and y.bin for the gfx942 vector add over 3000 elements.
vadd_inputs() {
  python3 -c 'import struct; n = 3000
open("x.bin", "wb").write(struct.pack("<%df" % n, *[i * 0.25 for i in range(n)]))
open("y.bin", "wb").write(struct.pack("<%df" % n, *[7.0 - i for i in range(n)]))'
}
VADD_ARGS=(--block 256 --grid 3 --arg @x.bin --arg @y.bin --arg zeros:12288 --arg 3000
  --arg null --arg null)

# refused FILE CMD...: CMD exits 2 naming FILE as an input it would destroy, and FILE is unchanged.
refused() {
  local file=$1
  shift
  local before
  before=$(sha256sum "$file" | cut -d' ' -f1)
  run --separate-stderr "$@"
  [ "$status" -eq 2 ] || fail "exit $status, expected 2: $* (stderr: $stderr)"
  [[ "$stderr" == *"is the input '"*"'; writing it would destroy the input (choose another output)"* ]] ||
    fail "unexpected message for $*: $stderr"
  [ "$(sha256sum "$file" | cut -d' ' -f1)" = "$before" ] || fail "$file changed: $*"
}

@test "every output of every tool, set to each of its inputs, is refused and the input kept" {
  cp "$(K)" K.hsaco
  hsaco-recover K.hsaco -o k.s
  hsaco-recover K.hsaco -o r.s
  hsaco-rebuild r.s -o R.hsaco
  hsaco-patch K.hsaco --window "$WINDOW" --extract -o w.s
  vadd_inputs
  cp "$ASMEVO_SOURCE_DIR/test/specs/vector_add_fp32.json" s.json

  refused K.hsaco hsaco-recover K.hsaco -o K.hsaco
  refused K.hsaco hsaco-recover --check K.hsaco -o K.hsaco
  refused K.hsaco hsaco-recover --list K.hsaco -o K.hsaco
  refused R.hsaco hsaco-recover --check K.hsaco --against R.hsaco -o R.hsaco
  refused k.s hsaco-rebuild k.s -o k.s
  refused K.hsaco hsaco-rebuild k.s -o K.hsaco --abi-of K.hsaco
  refused K.hsaco hsaco-patch K.hsaco --window "$WINDOW" --extract -o K.hsaco
  refused K.hsaco hsaco-patch K.hsaco --window "$WINDOW" --with w.s -o K.hsaco
  refused w.s hsaco-patch K.hsaco --window "$WINDOW" --with w.s -o w.s
  refused K.hsaco kernel-run K.hsaco "${VADD_ARGS[@]}" --out '#2=K.hsaco'
  refused x.bin kernel-run K.hsaco "${VADD_ARGS[@]}" --out '#2=x.bin'
  refused y.bin kernel-run K.hsaco "${VADD_ARGS[@]}" --out '#2=out.bin' --sync-profile y.bin
  refused K.hsaco kernel-diffcheck K.hsaco --infer --spec s.json -o K.hsaco
  # The same file under another name: a symlink, a path with dots, a file:// URI.
  ln -s K.hsaco link.hsaco
  refused K.hsaco hsaco-recover K.hsaco -o link.hsaco
  refused K.hsaco hsaco-recover ./K.hsaco -o "$PWD/../$(basename "$PWD")/K.hsaco"
  refused K.hsaco hsaco-recover "file://$PWD/K.hsaco" -o K.hsaco
  [ ! -e out.bin ]
  run ls -A
  refute_output --partial ".tmp"
}

@test "the in-place idioms still work: --infer -o over the partial spec, hsaco-patch --in-place" {
  cp "$(K)" K.hsaco
  cp "$ASMEVO_SOURCE_DIR/test/specs/vector_add_fp32.json" s.json
  run kernel-diffcheck K.hsaco --infer --spec s.json -o s.json
  assert_success
  python3 -c 'import json; s = json.load(open("s.json")); assert s["format"] == "asmevo-launch-spec" and all("elements" in a for a in s["args"] if a.get("type") == "f32")'
  hsaco-patch K.hsaco --window "$WINDOW" --extract -o w.s
  cp K.hsaco before.hsaco
  run hsaco-patch K.hsaco --window "$WINDOW" --with w.s --in-place
  assert_success
  cmp K.hsaco before.hsaco
}

@test "-o naming a directory, a missing directory or a place that takes no file says so (exit 2)" {
  mkdir d
  run hsaco-recover "$(K)" -o d
  assert_failure 2
  assert_output "hsaco-recover: error: 'd': is a directory; give a file name for the output"
  run hsaco-recover "$(K)" -o d/
  assert_failure 2
  assert_output "hsaco-recover: error: 'd/': is a directory; give a file name for the output"
  run hsaco-recover "$(K)" -o nodir/k.s
  assert_failure 2
  assert_output "hsaco-recover: error: 'nodir/k.s': its directory 'nodir' does not exist"
  run hsaco-recover "$(K)" -o nodir/
  assert_failure 2
  assert_output "hsaco-recover: error: 'nodir/': ends in '/', a directory name; give a file name for the output"
  touch plain
  run hsaco-rebuild k.s -o plain/k.hsaco
  assert_failure 2
  assert_output "hsaco-rebuild: error: 'plain/k.hsaco': 'plain' is not a directory"
  run hsaco-recover "$(K)" -o /proc/version
  assert_failure 2
  assert_output --regexp "^hsaco-recover: error: '/proc/version': cannot create a file in directory '/proc' \(.+\); outputs are written through a temporary file beside the target, then renamed$"
  # A device is written in place.
  run hsaco-recover "$(K)" -o /dev/null
  assert_success
  [ -c /dev/null ]
}

@test "the checks come before the work: a bad -o fails at once, even for a long --check" {
  run hsaco-recover --check "$TRITON"/gfx9*/*.hsaco -o nodir/report.txt
  assert_failure 2
  assert_output "hsaco-recover: error: 'nodir/report.txt': its directory 'nodir' does not exist"
}

@test "two outputs to one file are refused, naming both (exit 2)" {
  vadd_inputs
  run kernel-run "$(K)" "${VADD_ARGS[@]}" --out '#2=o.bin' --out '#0=./o.bin'
  assert_failure 2
  assert_line --index 0 "kernel-run: error: './o.bin': is given twice as an output (--out '#2=o.bin' and --out '#0=./o.bin'); the second would overwrite the first"
  run kernel-run "$(K)" "${VADD_ARGS[@]}" --out '#2=o.bin' --sync-profile o.bin
  assert_failure 2
  assert_line --index 0 --partial "(--out '#2=o.bin' and --sync-profile 'o.bin')"
  [ ! -e o.bin ]
}

@test "a symlinked output is replaced by a regular file; the link's target is left as it was" {
  echo "precious" > target.txt
  ln -s target.txt out.s
  hsaco-recover "$(K)" -o out.s
  [ ! -L out.s ]
  [ "$(cat target.txt)" = "precious" ]
  grep -q '^; asmevo-recovered-asm v1$' out.s
}

@test "the recovered header reassembles with the suite's own LLVM into K.rebuilt.hsaco, never over the source" {
  cp "$(K)" vadd.hsaco
  hsaco-recover vadd.hsaco -o vadd.s
  line=$(grep '^; reassemble: ' vadd.s)
  [ "$line" = "; reassemble: $ASMEVO_LLVM_BINDIR/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj vadd.s -o vadd.rebuilt.hsaco.o && $ASMEVO_LLVM_BINDIR/ld.lld -shared vadd.rebuilt.hsaco.o -o vadd.rebuilt.hsaco" ] ||
    fail "$line"
  cp vadd.hsaco before.hsaco
  # Run it exactly as written: it rebuilds beside the source, which stays as it was.
  bash -c "${line#; reassemble: }"
  cmp vadd.hsaco before.hsaco
  run hsaco-recover --check vadd.hsaco --against vadd.rebuilt.hsaco
  assert_success
  # To stdout the header names K.s.
  hsaco-recover vadd.hsaco | grep -q ' K.s -o K.rebuilt.hsaco.o && '
}
