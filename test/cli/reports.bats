#!/usr/bin/env bats
# The one report envelope: every tool's --json output, for every outcome it gives, is one JSON
# document that share/asmevo/report.schema.json accepts, with the outcome's exit code; errors
# under --json are envelopes too (stdout), with the message also on stderr.
load test_helper

VADD=
vadd_inputs() {
  VADD="$TRITON/gfx942/vector_add_fp32.hsaco"
  python3 -c '
import struct
open("x.bin", "wb").write(struct.pack("<3000f", *[i * 0.5 for i in range(3000)]))
open("y.bin", "wb").write(struct.pack("<3000f", *[1000.0 - i for i in range(3000)]))'
}
vadd_args() { echo --block 256 --grid 3 --arg @x.bin --arg @y.bin --arg zeros:12288 --arg 3000 --arg null --arg null; }
spec() { echo "$ASMEVO_SOURCE_DIR/test/specs/$1.json"; }
body() { python3 -c "import json; print(json.load(open('report.json'))$1)"; }

@test "hsaco-recover: ok (recover, check, list), roundtrip_differs, input_error" {
  run --separate-stderr hsaco-recover "$TRITON/gfx942/vector_add_fp32.hsaco" -o k.s --json
  assert_report hsaco-recover ok 0
  [ "$(body '["body"]["output"]')" = k.s ] && [ -s k.s ]
  [ "$(body '["inputs"][0]["sha256"]')" = "$(sha256sum "$TRITON/gfx942/vector_add_fp32.hsaco" | cut -d' ' -f1)" ]
  run --separate-stderr hsaco-recover --check --json "$TRITON/gfx942/vector_add_fp32.hsaco"
  assert_report hsaco-recover ok 0
  run --separate-stderr hsaco-recover --list --json "$TRITON/gfx942/vector_add_fp32.hsaco"
  assert_report hsaco-recover ok 0
  sed -i '0,/v_add_f32_e32/s/v_add_f32_e32/v_sub_f32_e32/' k.s
  assemble k.s k.hsaco gfx942
  run --separate-stderr hsaco-recover --check --json --against k.hsaco "$TRITON/gfx942/vector_add_fp32.hsaco"
  assert_report hsaco-recover roundtrip_differs 1
  head -c 100 /dev/zero > zero.bin
  run --separate-stderr hsaco-recover --check --json zero.bin
  assert_report hsaco-recover input_error 2
  [ "$stderr" = "hsaco-recover: error: 'zero.bin'@0x0: no AMDGPU code object found (not an AMDGPU ELF file, and no offload bundle or embedded code object inside)" ]
  run --separate-stderr hsaco-recover --json --no-such-option
  assert_report hsaco-recover input_error 2
}

@test "hsaco-recover --keep-going --json names every input it could not read" {
  head -c 100 /dev/zero > zero.bin
  run --separate-stderr hsaco-recover --check --json --keep-going zero.bin "$TRITON/gfx90a/vector_add_fp32.hsaco"
  assert_report hsaco-recover input_error 2
  [ "$(body '["body"]["failed_inputs"][0]["input"]')" = zero.bin ]
  [ "$(body '["body"]["kernels_passed"]')" = 1 ]
}

@test "hsaco-rebuild: ok, abi_invalid, input_error" {
  hsaco-recover "$TRITON/gfx942/vector_add_fp32.hsaco" -o k.s
  run --separate-stderr hsaco-rebuild k.s -o k.hsaco --abi-of "$TRITON/gfx942/vector_add_fp32.hsaco" --json
  assert_report hsaco-rebuild ok 0
  [ "$(body '["inputs"][1]["role"]')" = assembly ]
  sed 's/\.amdhsa_kernarg_size \([0-9]*\)/.amdhsa_kernarg_size 128/' k.s > e.s
  run --separate-stderr hsaco-rebuild e.s -o e.hsaco --abi-of "$TRITON/gfx942/vector_add_fp32.hsaco" --json
  assert_report hsaco-rebuild abi_invalid 1
  [ ! -e e.hsaco ]
  run --separate-stderr hsaco-rebuild --check-abi "$TRITON/gfx942/vector_add_fp32.hsaco" k.hsaco --json
  assert_report hsaco-rebuild ok 0
  run --separate-stderr hsaco-rebuild --resources "$TRITON/gfx942/vector_add_fp32.hsaco" --json
  assert_report hsaco-rebuild ok 0
  run --separate-stderr hsaco-rebuild missing.s -o m.hsaco --json
  assert_report hsaco-rebuild input_error 2
}

@test "hsaco-patch: ok, refused, input_error" {
  cp "$TRITON/gfx942/softmax_fp32.hsaco" k.hsaco
  run --separate-stderr hsaco-patch k.hsaco --window softmax_kernel:0x100-0x108 --extract -o w.s --json
  assert_report hsaco-patch ok 0
  run --separate-stderr hsaco-patch k.hsaco --window softmax_kernel:0x100-0x108 --with w.s -o k1.hsaco --json
  assert_report hsaco-patch ok 0
  [ "$(body '["body"]["nops"]')" = 0 ]
  cmp k.hsaco k1.hsaco
  printf '\tv_lshlrev_b32_e32 v4, 2, v0\n\ts_mul_i32 s9, s6, s14\n\ts_nop 0\n' > edit.s
  run --separate-stderr hsaco-patch k.hsaco --window softmax_kernel:0x100-0x108 --with edit.s -o k2.hsaco --json
  assert_report hsaco-patch refused 1
  [ "$stderr" = "hsaco-patch: refused: 'k.hsaco'@0x800: replacement is 12 bytes, the window is 8 bytes" ]
  [ ! -e k2.hsaco ]
  run --separate-stderr hsaco-patch k.hsaco --window softmax_kernel:0x100-0x108 --with missing.s -o k2.hsaco --json
  assert_report hsaco-patch input_error 2
}

@test "kernel-run: ok, unsafe, input_error, runtime_error; --coverage ok and not_covered" {
  vadd_inputs
  run --separate-stderr kernel-run "$VADD" $(vadd_args) --json
  assert_report kernel-run ok 0
  [ "$(body '["backend"]')" = emu ] && [ "$(body '["seeds"]')" = "[1]" ]
  hsaco-recover "$VADD" -o k.s
  n=$(grep -n 's_waitcnt vmcnt(0)' k.s | head -1 | cut -d: -f1)
  sed "${n}d" k.s > k1.s
  hsaco-rebuild k1.s -o k1.hsaco --abi-of "$VADD"
  run --separate-stderr kernel-run k1.hsaco $(vadd_args) --strict --json
  assert_report kernel-run unsafe 1
  run --separate-stderr kernel-run "$VADD" --block 256 --grid 3 --arg @x.bin --json
  assert_report kernel-run input_error 2
  run --separate-stderr kernel-run "$VADD" $(vadd_args) --max-instructions 10 --json
  assert_report kernel-run runtime_error 3
  run --separate-stderr kernel-run --coverage "$VADD" --json
  assert_report kernel-run ok 0
  # The hand-written fixture's sub-dword load into LDS is one the emulator does not run.
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  run --separate-stderr kernel-run --coverage hw.hsaco --json
  assert_report kernel-run not_covered 1
  python3 -c '
import json
b = json.load(open("report.json"))["body"]
assert b["implemented_instructions"] < b["instructions"], b
assert any(o["implemented"] < o["count"] for o in b["ops"]), b'
}

@test "kernel-time: ok (modeled), input_error, runtime_error" {
  vadd_inputs
  kernel-diffcheck "$VADD" --infer --spec "$(spec vector_add_fp32)" -o full.json -q
  run --separate-stderr kernel-time "$VADD" --spec full.json --json
  assert_report kernel-time ok 0
  run --separate-stderr kernel-time "$VADD" --spec "$(spec vector_add_fp32)" --json
  assert_report kernel-time input_error 2
  run --separate-stderr kernel-time "$VADD" --spec full.json --backend hip --json
  assert_report kernel-time input_error 2
  printf '.Lspin:\n\ts_branch .Lspin\n' > loop.s
  hsaco-patch "$VADD" --window add_kernel:0x100-0x108 --with loop.s -o loop.hsaco
  grep -v '"k0_sha256"' full.json > any.json
  run --separate-stderr kernel-time loop.hsaco --spec any.json --timeout 1 --json
  assert_report kernel-time runtime_error 3
}

@test "asmevo-agent: ok, input_error, runtime_error, interrupted" {
  vadd_inputs
  kernel-diffcheck "$VADD" --infer --spec "$(spec vector_add_fp32)" -o full.json -q
  run --separate-stderr asmevo-agent "$VADD" --spec full.json --run-dir run --max-candidates 3 --json
  assert_report asmevo-agent ok 0
  run --separate-stderr asmevo-agent "$VADD" --spec full.json --run-dir run --json
  assert_report asmevo-agent input_error 2
  # K0 itself cannot run to the end: timing K0 fails.
  printf '.Lspin:\n\ts_branch .Lspin\n' > loop.s
  hsaco-patch "$VADD" --window add_kernel:0x100-0x108 --with loop.s -o loop.hsaco
  grep -v '"k0_sha256"' full.json > any.json
  run --separate-stderr asmevo-agent loop.hsaco --spec any.json --run-dir run2 --timeout 1 --json
  assert_report asmevo-agent runtime_error 3
  # SIGINT between candidates: what was done is on disk and the report says so. (The layer norm:
  # the rules driver has nothing to propose on the vector add, whose only candidates were
  # cache-bit toggles, which the search no longer makes.)
  local ln=$TRITON/gfx942/layernorm_fwd_fp16.hsaco
  kernel-diffcheck "$ln" --infer --spec "$(spec layernorm_fwd_fp16)" -o ln.json -q
  asmevo-agent "$ln" --spec ln.json --run-dir run3 --budget 60 --json > int.json 2> /dev/null &
  pid=$!
  for _ in $(seq 100); do [ -s run3/journal.jsonl ] && break; sleep 0.05; done
  kill -INT "$pid"
  status=0
  wait "$pid" || status=$?
  output=$(cat int.json)
  assert_report asmevo-agent interrupted 130
  # The candidate the signal cut short is forgotten (--resume evaluates it again), not recorded.
  for d in run3/nodes/*; do
    [ -f "$d/node.json" ] || fail "$d has no node.json"
    ! grep -q '"outcome": "interrupted"' "$d/node.json" || fail "$d recorded as interrupted"
  done
}

@test "kernel-diffcheck: ok, divergent, abi_invalid, input_error, runtime_error; --infer ok" {
  vadd_inputs
  run --separate-stderr kernel-diffcheck "$VADD" "$VADD" --spec "$(spec vector_add_fp32)" --json
  assert_report kernel-diffcheck ok 0
  hsaco-recover "$VADD" -o k.s
  sed '0,/v_add_f32_e32 v5/s//v_sub_f32_e32 v5/' k.s > d.s
  hsaco-rebuild d.s -o d.hsaco --abi-of "$VADD"
  run --separate-stderr kernel-diffcheck "$VADD" d.hsaco --spec "$(spec vector_add_fp32)" --json
  assert_report kernel-diffcheck divergent 1
  run --separate-stderr kernel-diffcheck "$VADD" "$TRITON/gfx942/softmax_fp32.hsaco" --spec "$(spec vector_add_fp32)" --json
  assert_report kernel-diffcheck abi_invalid 1
  run --separate-stderr kernel-diffcheck "$VADD" "$VADD" --json
  assert_report kernel-diffcheck input_error 2
  # K1 loops forever: the first instructions after the kernarg-preload prologue (entry+0x100,
  # where the emulator enters, as newer firmware does) become a branch to itself.
  printf '.Lspin:\n\ts_branch .Lspin\n' > loop.s
  hsaco-patch "$VADD" --window add_kernel:0x100-0x108 --with loop.s -o loop.hsaco
  run --separate-stderr kernel-diffcheck "$VADD" loop.hsaco --spec "$(spec vector_add_fp32)" --seeds 1 --json
  assert_report kernel-diffcheck runtime_error 3
  run --separate-stderr kernel-diffcheck "$VADD" --infer --spec "$(spec vector_add_fp32)" -o full.json --json
  assert_report kernel-diffcheck ok 0
  python3 -c '
import json
s = json.load(open("full.json"))
assert s["format"] == "asmevo-launch-spec" and s["format_version"] == 1, s
import hashlib
assert s["k0_sha256"] == hashlib.sha256(open("'"$VADD"'", "rb").read()).hexdigest()'
}

@test "a launch spec written for another K0 is refused, naming both hashes (exit 2)" {
  vadd_inputs
  kernel-diffcheck "$TRITON/gfx942/vector_add_fp32.hsaco" --infer --spec "$(spec vector_add_fp32)" -o full.json -q
  run kernel-diffcheck "$TRITON/gfx90a/vector_add_fp32.hsaco" "$TRITON/gfx90a/vector_add_fp32.hsaco" --spec full.json
  assert_failure 2
  h942=$(sha256sum "$TRITON/gfx942/vector_add_fp32.hsaco" | cut -d' ' -f1)
  h90a=$(sha256sum "$TRITON/gfx90a/vector_add_fp32.hsaco" | cut -d' ' -f1)
  assert_output "kernel-diffcheck: error: 'full.json': written for the K0 with SHA-256 $h942, not for '$TRITON/gfx90a/vector_add_fp32.hsaco' (SHA-256 $h90a): infer a spec for this K0, or remove \"k0_sha256\""
  run kernel-diffcheck "$TRITON/gfx942/vector_add_fp32.hsaco" "$TRITON/gfx942/vector_add_fp32.hsaco" --spec full.json -q
  assert_success
}
