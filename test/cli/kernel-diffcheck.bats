#!/usr/bin/env bats
# kernel-diffcheck: K0 against itself is ok for every Triton kernel (gfx942, gfx90a); hand-broken
# candidates are divergent, runtime errors or abi_invalid; bad specs fail with exact messages.
load test_helper


spec() { echo "$ASMEVO_SOURCE_DIR/test/check/specs/$1.json"; }

# recover K0 into k.s (vector add, gfx942).
recover_vadd() {
  hsaco-recover "$TRITON/gfx942/vector_add_fp32.hsaco" -o k.s
}

@test "kernel-diffcheck --help matches its man page" {
  assert_help_matches_man kernel-diffcheck
}

@test "every Triton kernel of gfx942 and gfx90a checked against itself is ok" {
  for arch in gfx942 gfx90a; do
    for s in "$ASMEVO_SOURCE_DIR"/test/check/specs/*.json; do
      n=$(basename "$s" .json)
      run kernel-diffcheck "$TRITON/$arch/$n.hsaco" "$TRITON/$arch/$n.hsaco" --spec "$s" -q
      [ "$status" -eq 0 ] || fail "$arch $n: $output"
      assert_line --index 0 --regexp "^kernel-diffcheck: ok: [a-z_]+, [0-9]+ output buffers? equal on seeds 1,2,3, strict checks( clean|: K0 itself unsafe) \(backend emu, CPU emulator \($arch, wave64\)\)$"
    done
  done
}

@test "a one-instruction edit (v_add -> v_sub) is divergent, naming the output buffer (exit 1)" {
  recover_vadd
  sed '0,/v_add_f32_e32 v5/s//v_sub_f32_e32 v5/' k.s > k1.s
  ! cmp -s k.s k1.s
  hsaco-rebuild k1.s -o k1.hsaco --abi-of "$TRITON/gfx942/vector_add_fp32.hsaco"
  run kernel-diffcheck "$TRITON/gfx942/vector_add_fp32.hsaco" k1.hsaco --spec "$(spec vector_add_fp32)"
  assert_failure 1
  assert_line --index 0 --regexp "^kernel-diffcheck: divergent: buffer '#2' \(f32\) on seed 1: max_abs_diff [0-9.e+-]+ > tau 0.001 at index [0-9]+ \(K0 [-0-9.e+]+, K1 [-0-9.e+]+\)$"
  run kernel-diffcheck "$TRITON/gfx942/vector_add_fp32.hsaco" k1.hsaco --spec "$(spec vector_add_fp32)" --json
  assert_failure 1
  echo "$output" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["verdict"] == "divergent" and j["backend"] == "emu", j["verdict"]
b = [x for x in j["buffers"] if x["arg"] == "#2"][0]
s = b["seeds"][0]
assert s["ok"] is False and s["cosine"] < 0.9999 and s["first_diff"]["index"] >= 0, s
assert [x["role"] for x in j["buffers"]] == ["in", "in", "out"]
assert j["spec"]["args"][0]["elements"] == 3000'
}

@test "a deleted s_waitcnt is unsafe, naming the read, the load and the wait it needed (exit 1)" {
  k0="$TRITON/gfx942/matmul_fp16.hsaco"
  hsaco-recover "$k0" -o k.s
  # The first vmcnt wait of the main loop: the LDS store after it reads the loaded registers.
  n=$(grep -n 's_waitcnt vmcnt(1)' k.s | head -1 | cut -d: -f1)
  [ -n "$n" ]
  sed "${n}d" k.s > k1.s
  hsaco-rebuild k1.s -o k1.hsaco --abi-of "$k0"
  run kernel-diffcheck "$k0" k1.hsaco --spec "$(spec matmul_fp16)" -q
  assert_failure 1
  assert_line --index 0 --regexp "^kernel-diffcheck: unsafe: matmul_kernel\+0x[0-9a-f]+: pending-read: ds_write_b64 at pc 0x[0-9a-f]+ reads v[0-9]+ before buffer_load_dwordx4 at pc 0x[0-9a-f]+ has returned it \(needs s_waitcnt vmcnt\(1\) first\) \(seed 1\)$"
  # The same candidate compared on outputs only passes: its results are right by luck.
  run kernel-diffcheck "$k0" k1.hsaco --spec "$(spec matmul_fp16)" -q --no-strict
  assert_success
  assert_line --index 0 --partial ", no strict checks ("
}

@test "a wait moved past a barrier is an LDS race; --schedules runs several interleavings" {
  k0="$TRITON/gfx942/matmul_fp16.hsaco"
  hsaco-recover "$k0" -o k.s
  # Delete the lgkmcnt(0) that completes the LDS stores before the loop's barrier.
  n=$(awk '/s_waitcnt lgkmcnt\(0\)/ {w=NR} /s_barrier/ && w==NR-1 {print w}' k.s | sed -n 2p)
  [ -n "$n" ]
  sed "${n}d" k.s > k1.s
  hsaco-rebuild k1.s -o k1.hsaco --abi-of "$k0"
  run kernel-diffcheck "$k0" k1.hsaco --spec "$(spec matmul_fp16)" -q --schedules 3 --json
  assert_failure 1
  echo "$output" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["verdict"] == "unsafe", j["verdict"]
assert j["strict"] is True and j["schedules"] == 3
assert j["unsafe"][0]["rule"] == "lds-race", j["unsafe"][0]
assert j["k0_unsafe"] == []
assert all(len(b["seeds"]) == 9 for b in j["buffers"] if b["role"] != "in")'
}

@test "a candidate that traps is a runtime_error of K1 (exit 3)" {
  recover_vadd
  sed '0,/v_add_f32_e32 v5, v5, v9/s//s_trap 2/' k.s > k1.s
  hsaco-rebuild k1.s -o k1.hsaco --abi-of "$TRITON/gfx942/vector_add_fp32.hsaco"
  run kernel-diffcheck "$TRITON/gfx942/vector_add_fp32.hsaco" k1.hsaco --spec "$(spec vector_add_fp32)" -q
  assert_failure 3
  assert_line --index 0 --partial "kernel-diffcheck: runtime_error: K1: "
}

@test "a candidate with a different kernarg size is abi_invalid (exit 1)" {
  recover_vadd
  sed "s/kernarg_segment_size': 48/kernarg_segment_size': 56/; s/amdhsa_kernarg_size 48/amdhsa_kernarg_size 56/" k.s > k2.s
  hsaco-rebuild k2.s -o k2.hsaco
  run kernel-diffcheck "$TRITON/gfx942/vector_add_fp32.hsaco" k2.hsaco --spec "$(spec vector_add_fp32)" -q
  assert_failure 1
  assert_output "kernel-diffcheck: abi_invalid: kernel add_kernel: kernarg_size: 48 in K0, 56 here"
}

@test "bad specs are refused with exact messages (exit 2)" {
  K=$TRITON/gfx942/vector_add_fp32.hsaco
  python3 - "$(spec vector_add_fp32)" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
m = json.loads(json.dumps(s)); del m["args"][3]; json.dump(m, open("missing.json", "w"))
m = json.loads(json.dumps(s)); m["args"][0]["type"] = "f8"; json.dump(m, open("type.json", "w"))
m = json.loads(json.dumps(s)); m["args"][1]["arg"] = "nope"; json.dump(m, open("name.json", "w"))
m = json.loads(json.dumps(s)); del m["grid"]; json.dump(m, open("grid.json", "w"))
open("broken.json", "w").write("{\"kernel\": ")
PY
  run kernel-diffcheck "$K" "$K" --spec missing.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'missing.json': argument #3 (by_value, offset 24, 4 bytes) is not in the spec: add {\"arg\": \"#3\", ...}"
  run kernel-diffcheck "$K" "$K" --spec type.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'type.json': args[0]: unknown type \"f8\" (f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 bytes)"
  run kernel-diffcheck "$K" "$K" --spec name.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'name.json': args[1]: kernel 'add_kernel' has no argument 'nope' (it has 6 explicit arguments, #0 to #5)"
  run kernel-diffcheck "$K" "$K" --spec grid.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'grid.json': no grid: give \"grid\" (workgroups) or \"grid_items\" (work-items)"
  run kernel-diffcheck "$K" "$K" --spec broken.json
  assert_failure 2
  assert_output --partial "kernel-diffcheck: error: 'broken.json': not valid JSON: "
  run kernel-diffcheck "$K" missing.hsaco --spec "$(spec vector_add_fp32)"
  assert_failure 2
  assert_output --partial "missing.hsaco"
}

@test "a spec whose buffer is too small for K0 is a bad input (exit 2)" {
  K=$TRITON/gfx942/vector_add_fp32.hsaco
  python3 - "$(spec vector_add_fp32)" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["args"][2].update({"elements": 2000, "role": "out"}); json.dump(s, open("small.json", "w"))
PY
  run kernel-diffcheck "$K" "$K" --spec small.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: launch inference: K0 writes past the end of buffer '#2' (2000 f32 elements; byte offset 8000): the spec gives it too few elements"
}

@test "--infer completes the spec (elements and roles) and writes it atomically" {
  run kernel-diffcheck "$TRITON/gfx90a/softmax_fp32.hsaco" --infer --spec "$(spec softmax_fp32)" -o full.json
  assert_success
  assert_line --index 0 "kernel-diffcheck: inferred: softmax_kernel, 2 buffers completed in 5 emulator runs of K0; wrote full.json"
  run python3 -c 'import json; j=json.load(open("full.json")); print([(a.get("elements"), a.get("role")) for a in j["args"][:2]])'
  assert_output "[(324, 'out'), (324, 'in')]"
  # The completed spec runs without inference and is ok.
  run kernel-diffcheck "$TRITON/gfx90a/softmax_fp32.hsaco" "$TRITON/gfx90a/softmax_fp32.hsaco" --spec full.json --seeds 4 --dump-inputs dump
  assert_success
  assert_line --index 0 --partial "ok: softmax_kernel, 1 output buffer equal on seeds 4"
  [ "$(stat -c %s dump/seed4/1__1.in.bin)" -eq 1296 ]
  cmp dump/seed4/0__0.k0.bin dump/seed4/0__0.k1.bin
}
