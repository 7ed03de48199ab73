#!/usr/bin/env bats
# kernel-diffcheck: K0 against itself is ok for every Triton kernel (gfx942, gfx90a); hand-broken
# candidates are divergent, runtime errors or abi_invalid; bad specs fail with exact messages.
load test_helper


spec() { echo "$ASMEVO_SOURCE_DIR/test/specs/$1.json"; }

# recover K0 into k.s (vector add, gfx942).
recover_vadd() {
  hsaco-recover "$TRITON/gfx942/vector_add_fp32.hsaco" -o k.s
}

@test "kernel-diffcheck --help matches its man page" {
  assert_help_matches_man kernel-diffcheck
}

@test "every Triton kernel of gfx942 and gfx90a checked against itself is ok" {
  for arch in gfx942 gfx90a; do
    for s in "$ASMEVO_SOURCE_DIR"/test/specs/*.json; do
      n=$(basename "$s" .json)
      # the fnuz fp8 GEMM exists for gfx942 only
      [ -f "$TRITON/$arch/$n.hsaco" ] || { [ "$arch" = gfx90a ] && continue; fail "no $arch/$n.hsaco"; }
      run kernel-diffcheck "$TRITON/$arch/$n.hsaco" "$TRITON/$arch/$n.hsaco" --spec "$s" -q
      [ "$status" -eq 0 ] || fail "$arch $n: $output"
      assert_line --index 0 --regexp "^kernel-diffcheck: ok: [a-z0-9_]+, [0-9]+ output buffers? equal on seeds 1,2,3 and on edge shapes? (tail-1, tail-2, tail-3, )?one-workgroup \(seed 3\), strict checks( clean|: K0 itself unsafe) \(backend emu, CPU emulator \($arch, wave64\)\)$"
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
  run --separate-stderr kernel-diffcheck "$TRITON/gfx942/vector_add_fp32.hsaco" k1.hsaco --spec "$(spec vector_add_fp32)" --json
  assert_report kernel-diffcheck divergent 1
  python3 -c '
import json, sys
e = json.load(open("report.json"))
j = e["body"]
assert e["backend"] == "emu" and e["seeds"] == [1, 2, 3], e
assert [i["role"] for i in e["inputs"]] == ["k0", "k1", "spec"], e["inputs"]
b = [x for x in j["buffers"] if x["arg"] == "#2"][0]
s = b["seeds"][0]
assert s["ok"] is False and s["cosine"] < 0.9999 and s["first_diff"]["index"] >= 0, s
assert [x["role"] for x in j["buffers"]] == ["in", "in", "out"]
assert j["spec"]["args"][0]["elements"] == 3000'
}

@test "a candidate that reads a register it no longer writes is divergent, not ok (exit 1)" {
  # Triton's layer norm zeroes v4 (v_mov_b32 v4, 0) and copies it to v5 and v6. Without that
  # move v4 is whatever the wave's registers held: zero on an emulator that clears them, not
  # on hardware. K0 and K1 start from the same non-zero registers, so K1 diverges.
  LN=$TRITON/gfx942/layernorm_fwd_fp16.hsaco
  hsaco-recover "$LN" -o k.s
  sed '0,/^\tv_mov_b32_e32 v4, 0$/{//d}' k.s > k1.s
  [ "$(diff k.s k1.s | grep -c '^<')" -eq 1 ]
  hsaco-rebuild k1.s -o k1.hsaco --abi-of "$LN" -q
  kernel-diffcheck --infer "$LN" --spec "$(spec layernorm_fwd_fp16)" -o ln.json -q
  run kernel-diffcheck "$LN" k1.hsaco --spec ln.json
  assert_failure 1
  assert_line --index 0 --regexp "^kernel-diffcheck: divergent: buffer '#1' \(f16\) on seed 1: nan_mismatches [0-9]+ at index 0 "
  # K0 against itself, from the same non-zero registers: ok.
  run kernel-diffcheck "$LN" "$LN" --spec ln.json
  assert_success
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

@test "a missing s_nop on a path the launches never take is unsafe by the static scan, before any run (exit 1)" {
  k0="$TRITON/gfx942/matmul_fp16_ns2.hsaco"
  hsaco-recover "$k0" -o k.s
  # The s_nop between the pipelined loop's v_cmp (writes vcc) and v_cndmask (reads it): that
  # loop does not run at the spec's small K, so no run of the check executes the hazard.
  n=$(awk '/v_cmp_gt_i32_e32 vcc, s10, v2/ {c=NR} /s_setprio 1/ && c==NR-1 {p=NR} /s_nop 0/ && p==NR-1 {print NR}' k.s)
  [ -n "$n" ]
  sed "${n}d" k.s > k1.s
  hsaco-rebuild k1.s -o k1.hsaco --abi-of "$k0"
  run --separate-stderr kernel-diffcheck "$k0" k1.hsaco --spec "$(spec matmul_fp16_ns2)" -q --json
  assert_report kernel-diffcheck unsafe 1
  assert_failure 1
  python3 -c '
import json
r = json.load(open("report.json"))
assert r["message"].startswith("unsafe: matmul_kernel+0x"), r["message"]
assert "wait-state hazard valu-sgpr-then-valu: v_cmp_gt_i32_e32 at pc 0x" in r["message"], r["message"]
assert "reads it after 1 wait state, needs 2 (static scan of K1" in r["message"], r["message"]
b = r["body"]
assert b["static_hazards"] == {"k0": 0, "k1_new": 1}, b["static_hazards"]
u = b["unsafe"][0]
assert u["rule"] == "valu-sgpr-then-valu" and u["at"] == "static scan", u
assert u["instructions"] == ["v_cndmask_b32_e32", "v_cmp_gt_i32_e32"], u
assert "buffers" not in b  # refused before any launch'
  # Outputs alone agree: no launch reaches that loop.
  run kernel-diffcheck "$k0" k1.hsaco --spec "$(spec matmul_fp16_ns2)" -q --no-strict
  assert_success
}

@test "a wait moved past a barrier is an LDS race; --schedules runs several interleavings" {
  k0="$TRITON/gfx942/matmul_fp16.hsaco"
  hsaco-recover "$k0" -o k.s
  # Delete the lgkmcnt(0) that completes the LDS stores before the loop's barrier.
  n=$(awk '/s_waitcnt lgkmcnt\(0\)/ {w=NR} /s_barrier/ && w==NR-1 {print w}' k.s | sed -n 2p)
  [ -n "$n" ]
  sed "${n}d" k.s > k1.s
  hsaco-rebuild k1.s -o k1.hsaco --abi-of "$k0"
  run --separate-stderr kernel-diffcheck "$k0" k1.hsaco --spec "$(spec matmul_fp16)" -q --schedules 3 --json
  assert_report kernel-diffcheck unsafe 1
  assert_failure 1
  echo "$output" | python3 -c '
import json, sys
j = json.load(open("report.json"))["body"]
assert j["strict"] is True and j["schedules"] == 3
assert j["unsafe"][0]["rule"] == "lds-race", j["unsafe"][0]
assert j["k0_unsafe"] == []
assert all(len([s for s in b["seeds"] if "shape" not in s]) == 9 for b in j["buffers"] if b["role"] != "in")'
}

@test "edge shapes: a lane's bounds check that reuses the previous lane's passes n = 3000 and fails the tail where that lane is the first past n" {
  recover_vadd
  k0="$TRITON/gfx942/vector_add_fp32.hsaco"
  # Each thread adds a vector of 4 elements (v0, v0|1, v0|2, v0|3), each masked by its own
  # compare with n (s8). Deleting lane k's compare leaves it lane k-1's: wrong only when n is
  # k past a multiple of 4, which n = 3000 is not and n - (4 - k) is.
  for k in 1 2 3; do
    n=$(grep -nFx $'\tv_cmp_gt_i32_e32 vcc, s8, v'"$k" k.s | cut -d: -f1)
    [ -n "$n" ]
    sed "${n}d" k.s > k$k.s
    hsaco-rebuild k$k.s -o k$k.hsaco --abi-of "$k0"
    run kernel-diffcheck "$k0" k$k.hsaco --spec "$(spec vector_add_fp32)" --no-edge-shapes -q
    assert_success
    run kernel-diffcheck "$k0" k$k.hsaco --spec "$(spec vector_add_fp32)" -q
    assert_failure 1
    less=$((4 - k)) m=$((3000 - 4 + k))
    assert_output --regexp "^kernel-diffcheck: divergent: buffer '#2' \(f32\) on edge shape 'tail-$less' \('#3' 3000 -> $m\), seed 3: nan_mismatches 1 at index $m \(K0 nan, K1 [-0-9.e+]+\)$"
  done
  # K0 against itself: ok on every shape, which the report lists.
  run --separate-stderr kernel-diffcheck "$k0" "$k0" --spec "$(spec vector_add_fp32)" --json
  assert_report kernel-diffcheck ok 0
  python3 - <<'PY'
import json
d = json.load(open("report.json"))
assert d["message"].startswith("ok: add_kernel, 1 output buffer equal on seeds 1,2,3 and on edge shapes tail-1, tail-2, tail-3, one-workgroup (seed 3), strict checks clean"), d["message"]
assert [(e["name"], e["change"], e["checked"]) for e in d["body"]["edge_shapes"]] == [
    ("tail-1", "'#3' 3000 -> 2999", True), ("tail-2", "'#3' 3000 -> 2998", True),
    ("tail-3", "'#3' 3000 -> 2997", True), ("one-workgroup", "grid 3x1x1 -> 1x1x1", True)]
PY
  # --no-edge-shapes does not apply to a capture.
  run kernel-diffcheck "$k0" "$k0" --capture none.bundle --no-edge-shapes
  assert_failure 2
  assert_output --partial "--no-edge-shapes does not apply to --capture (one recorded state)"
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
  assert_output "kernel-diffcheck: error: 'type.json': args[0]: unknown type \"f8\" (f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 f8e4m3fn f8e5m2 f8e4m3fnuz f8e5m2fnuz e8m0 f4e2m1x2 bytes)"
  run kernel-diffcheck "$K" "$K" --spec name.json
  assert_failure 2
  assert_output --partial "kernel-diffcheck: error: 'name.json': args[1]: kernel 'add_kernel' has no argument 'nope': its metadata names none of its 6 explicit arguments"
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

hw_spec() {
  cat > hw.json <<'JSON'
{"kernel": "hw_copy", "grid": [2], "block": [64],
 "args": [{"arg": "out", "type": "f32", "elements": 128, "role": "out"},
          {"arg": "in", "type": "f32", "elements": 128},
          {"arg": "n", "value": 100}]}
JSON
}

@test "hand-written K0: a candidate with registers beyond its allocation is never ok" {
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  hw_spec
  run kernel-diffcheck hw.hsaco hw.hsaco --spec hw.json -q
  assert_success
  assert_line --index 0 --regexp "^kernel-diffcheck: ok: hw_copy, 1 output buffer equal on seeds 1,2,3( and on edge shapes? [a-z0-9, -]+ \(seed 3\))?, strict checks clean "
  # v40 with 8 VGPRs allocated: the static check sees it.
  handwritten v40 > k1.s
  assemble k1.s k1.hsaco gfx942
  run kernel-diffcheck hw.hsaco k1.hsaco --spec hw.json -q
  assert_failure 1
  assert_output "kernel-diffcheck: abi_invalid: kernel hw_copy: compute_pgm_rsrc1.granulated_workitem_vgpr_count: the code uses v40; the descriptor allocates 8 VGPRs with accum_offset 8: v0-v7"
  # s40 through M0, which no scan sees: the emulator faults on it.
  handwritten m0-40 > k2.s
  assemble k2.s k2.hsaco gfx942
  run kernel-diffcheck hw.hsaco k2.hsaco --spec hw.json -q
  assert_failure 3
  assert_output --regexp "^kernel-diffcheck: runtime_error: K1: register s40 is beyond the registers the kernel's descriptor allocates \(s0-s33\) at pc 0x[0-9a-f]+ \(hw_copy\+0x1c, workgroup [0-9],0,0\) \(seed 1\)$"
}

@test "a candidate a 1024-work-item workgroup cannot launch is abi_invalid" {
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  handwritten vgpr208 > k1.s
  assemble k1.s k1.hsaco gfx942
  hw_spec
  run kernel-diffcheck hw.hsaco k1.hsaco --spec hw.json -q
  assert_failure 1
  assert_output "kernel-diffcheck: abi_invalid: kernel hw_copy: compute_pgm_rsrc1.granulated_workitem_vgpr_count: allocates 208 VGPRs per wave; a 1024-work-item workgroup (.max_flat_workgroup_size) puts 4 waves on each SIMD, which leaves 128 VGPRs per wave on gfx942"
}

@test "a grid past 2^32-1 work-items in a spec is refused (exit 2)" {
  k0="$TRITON/gfx942/vector_add_fp32.hsaco"
  sed 's/"grid": \[3, 1, 1\]/"grid": [16777217, 1, 1]/' "$(spec vector_add_fp32)" > s.json
  run kernel-diffcheck "$k0" "$k0" --spec s.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 's.json': grid x of 16777217 workgroups of 256 is 4294967552 work-items; a dispatch has at most 2^32-1 (4294967295) per dimension"
}

@test "a launch in which K0 writes nothing checks nothing: an error, never ok" {
  k0="$TRITON/gfx942/vector_add_fp32.hsaco"
  # n = 0 and n = -5 with 64-element buffers; n = 0 with 0-element buffers.
  for case in "0 64" "-5 64" "0 0"; do
    read -r n e <<< "$case"
    sed "s/\"value\": 3000/\"value\": $n/; s/{\"arg\": \"#0\", \"type\": \"f32\"}/{\"arg\": \"#0\", \"type\": \"f32\", \"elements\": $e}/; s/{\"arg\": \"#1\", \"type\": \"f32\"}/{\"arg\": \"#1\", \"type\": \"f32\", \"elements\": $e}/; s/{\"arg\": \"#2\", \"type\": \"f32\"}/{\"arg\": \"#2\", \"type\": \"f32\", \"elements\": $e, \"role\": \"out\"}/" \
      "$(spec vector_add_fp32)" > s.json
    run kernel-diffcheck "$k0" "$k0" --spec s.json -q
    assert_failure 2
    assert_output "kernel-diffcheck: error: this launch checks nothing: K0 writes no byte of its output buffers on seeds 1,2,3 (is a size argument 0 or negative, or an output's \"elements\" 0?), so any K1 that also writes nothing would agree with it"
  done
  # A spec in which every buffer is an input.
  sed 's/{"arg": "#2", "type": "f32"}/{"arg": "#2", "type": "f32", "elements": 3000, "role": "in"}/' "$(spec vector_add_fp32)" > s.json
  run kernel-diffcheck "$k0" "$k0" --spec s.json -q
  assert_failure 2
  assert_output "kernel-diffcheck: error: this launch checks nothing: kernel add_kernel has no output buffer in this spec (every buffer is an input), so any K1 would agree with K0"
}

@test "a launch whose K0 outputs are all NaN checks nothing: an error, never ok; mostly NaN is a note" {
  k0="$TRITON/gfx942/vector_add_fp32.hsaco"
  # x all quiet NaN (a file of 3000 floats), y random: out = x + y is NaN everywhere.
  python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex("0000c07f") * 3000)' > nan.bin
  sed 's|{"arg": "#0", "type": "f32"}|{"arg": "#0", "type": "f32", "elements": 3000, "file": "nan.bin"}|' "$(spec vector_add_fp32)" > s.json
  run kernel-diffcheck "$k0" "$k0" --spec s.json -q
  assert_failure 2
  assert_output "kernel-diffcheck: error: this launch checks nothing: K0's float outputs hold no finite value on seeds 1,2,3 (every element is NaN or infinite), so any K1 whose outputs are NaN too would agree with it; are the inputs valid values of the kernel's element types (fp8 data read as f32, say)? Give each buffer its element type in the spec (f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 f8e4m3fn f8e5m2 f8e4m3fnuz f8e5m2fnuz e8m0 f4e2m1x2 bytes)"
  # 2000 of the 3000 NaN: still a verdict, with a note on how much of the output was compared
  # (6002: seed 3's random y also holds one infinity and one NaN among the last 1000).
  python3 -c 'import sys, struct; sys.stdout.buffer.write(bytes.fromhex("0000c07f") * 2000 + struct.pack("<1000f", *range(1000)))' > nan.bin
  run kernel-diffcheck "$k0" "$k0" --spec s.json
  assert_success
  assert_line --partial "kernel-diffcheck: ok: add_kernel, 1 output buffer equal on seeds 1,2,3"
  assert_line "  '#2': 6002 of 9000 K0 values over the seeds are NaN or infinite; K1 only has to match them there, so the values compared are the rest"
}

@test "sizes are bounded before anything is allocated: 1e15 elements is exit 2 naming the argument" {
  k0="$TRITON/gfx942/vector_add_fp32.hsaco"
  sed 's/{"arg": "#1", "type": "f32"}/{"arg": "#1", "type": "f32", "elements": 1000000000000000}/' "$(spec vector_add_fp32)" > s.json
  run kernel-diffcheck "$k0" "$k0" --spec s.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 's.json': argument '#1': 1000000000000000 f32 elements are more than the 4 GiB a launch spec's buffers may hold"
}

@test "a candidate that loops forever stops at 64x K0's instructions with a clear message" {
  k0="$TRITON/gfx942/vector_add_fp32.hsaco"
  recover_vadd
  # an endless loop at the start of the kernel body (after the kernarg-preload prologue)
  awk '{print} /^\t\.endif$/ && !d {print ".Lspin:"; print "\ts_branch .Lspin"; d = 1}' k.s > k1.s
  hsaco-rebuild k1.s -o k1.hsaco --abi-of "$k0" -q
  run kernel-diffcheck "$k0" k1.hsaco --spec "$(spec vector_add_fp32)" -q -v
  assert_failure 3
  k0n=$(echo "$output" | sed -n 's/^kernel-diffcheck: seed 1: K0 ran \([0-9]*\) wave-instructions .*/\1/p')
  [ "$k0n" -gt 0 ]
  assert_line "kernel-diffcheck: seed 1: K0 ran $k0n wave-instructions in $(echo "$output" | sed -n 's/^kernel-diffcheck: seed 1: K0 ran [0-9]* wave-instructions in \([0-9.]*\) s.*/\1/p') s; K1 may run $((64 * k0n))"
  assert_line --regexp "^kernel-diffcheck: runtime_error: K1: K1 ran 64x K0's instructions: endless loop\? \(stopped past $((64 * k0n)) wave-instructions; K0 ran $k0n\) \(seed 1\)$"
  # --max-instructions sets the bound itself.
  run kernel-diffcheck "$k0" k1.hsaco --spec "$(spec vector_add_fp32)" -q --max-instructions 5000
  assert_failure 3
  assert_output "kernel-diffcheck: runtime_error: K1: K1 ran more than 5000 wave-instructions (--max-instructions): endless loop? (seed 1)"
  # --timeout bounds a run in host seconds instead.
  run kernel-diffcheck "$k0" k1.hsaco --spec "$(spec vector_add_fp32)" -q --max-instructions 1000000000000 --timeout 0.5
  assert_failure 3
  assert_output --regexp "^kernel-diffcheck: runtime_error: K1: K1 ran longer than 0.5 s \(--timeout\): endless loop\? \(the dispatch stopped after 0.5 s of emulation \(its time limit\), [0-9]+ wave-instructions executed\) \(seed 1\)$"
}

@test "fp8 and MX kernels: typed inputs (f8*, e8m0, f4e2m1x2) check K0 against itself, and wrong scales are divergent" {
  # Triton's fp8 GEMMs (OCP and FNUZ) and tl.dot_scaled GEMMs, with specs in test/specs/lowp.
  for k in gfx942/matmul_fp8e4m3_f32 gfx942/matmul_fp8e5m2_bf16 gfx942/matmul_fp8e4m3fnuz_f32 \
           gfx942/matmul_fp8e5m2fnuz_bf16 gfx950/matmul_fp8e4m3_f32 gfx950/matmul_fp8e5m2_bf16 \
           gfx950/mx_matmul_mxfp4 gfx950/mx_matmul_mxfp8 gfx950/mx_matmul_mxfp8_mxfp4; do
    run kernel-diffcheck "$TRITON/$k.hsaco" "$TRITON/$k.hsaco" --spec "$(spec lowp/${k#*/})" -q
    assert_success
    assert_output --partial "kernel-diffcheck: ok: "
  done
  k0="$TRITON/gfx950/mx_matmul_mxfp4.hsaco"
  run kernel-diffcheck "$k0" "$k0" --spec "$(spec lowp/mx_matmul_mxfp4)"
  assert_line "  spec: '#0': 10240 f4e2m1x2 elements (inferred), role in (inferred)"
  assert_line "  spec: '#1': 640 e8m0 elements (inferred), role in (inferred)"
  hsaco-recover "$k0" -o k.s -q
  # The first scaled MFMA with A's and B's scale registers swapped; the second without op_sel
  # (it reads the scales of the first K half again).
  awk '/v_mfma_scale_f32_32x32x64_f8f6f4/ && !d {sub(/v33, v32/, "v32, v33"); d = 1} {print}' k.s > k1.s
  awk '/v_mfma_scale_f32_32x32x64_f8f6f4/ && /op_sel:\[1,1,0\]/ {sub(/op_sel:\[1,1,0\] /, "")} {print}' k.s > k2.s
  for m in k1 k2; do
    hsaco-rebuild $m.s -o $m.hsaco --abi-of "$k0" -q
    run kernel-diffcheck "$k0" $m.hsaco --spec "$(spec lowp/mx_matmul_mxfp4)" -q
    assert_failure 1
    assert_output --partial "kernel-diffcheck: divergent: buffer '#4' (f32) on seed 1: max_abs_diff"
  done
}

# pointer_table OUT.hsaco: a gfx942 kernel that loads its row addresses from a buffer,
# gather(float **rows, float *out, int n): out[i] = rows[i / 16][i % 16] (clang, at test time),
# and pt.json, its partial spec.
pointer_table() {
  cat > pt.c <<'SRC'
__attribute__((amdgpu_kernel)) void gather(float **rows, float *out, int n) {
  int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 64;
  if (i < n) out[i] = rows[i / 16][i % 16];
}
SRC
  "$ASMEVO_LLVM_BINDIR/clang" -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -O2 -c pt.c -o pt.o
  "$ASMEVO_LLVM_BINDIR/ld.lld" -shared pt.o -o "$1"
  rm pt.c pt.o
  echo '{"grid": [1], "block": [64], "args": [{"arg": "#0", "type": "u64"},
    {"arg": "#1", "type": "f32"}, {"arg": "#2", "value": 64}]}' > pt.json
}

@test "--infer -o elsewhere: relative \"file\" entries are rewritten relative to the output, and it reads back" {
  K=$TRITON/gfx942/vector_add_fp32.hsaco
  mkdir specs out
  python3 - "$(spec vector_add_fp32)" <<'PY'
import json, struct, sys
s = json.load(open(sys.argv[1]))
s["args"][0]["file"] = "x.bin"
json.dump(s, open("specs/partial.json", "w"))
open("specs/x.bin", "wb").write(struct.pack("<3000f", *[i / 8 for i in range(3000)]))
PY
  snapshot_tree
  run --separate-stderr kernel-diffcheck --infer "$K" --spec specs/partial.json -o out/full.json
  assert_success
  assert_tree_unchanged out/full.json
  run python3 -c 'import json; print(json.load(open("out/full.json"))["args"][0]["file"])'
  assert_output "../specs/x.bin"
  # What Makefile.workflow does next: the written spec is the baseline's.
  run kernel-diffcheck "$K" "$K" --spec out/full.json -q
  assert_success
  assert_line --index 0 --partial "kernel-diffcheck: ok: add_kernel"
  # On stdout the reader's folder is unknown: the path is absolute.
  run --separate-stderr kernel-diffcheck --infer "$K" --spec specs/partial.json -o - -q
  assert_success
  run python3 -c 'import json, sys; print(json.loads(sys.argv[1])["args"][0]["file"])' "$output"
  assert_output "$(cd specs && pwd -P)/x.bin"
  # In place, the entry stays as it was.
  cp specs/partial.json specs/copy.json
  run kernel-diffcheck --infer "$K" --spec specs/copy.json -o specs/copy.json -q
  assert_success
  run python3 -c 'import json; print(json.load(open("specs/copy.json"))["args"][0]["file"])'
  assert_output "x.bin"
  # A spec whose "file" is not where it says: the error names the spec, the entry and the path.
  cp out/full.json full.json
  snapshot_tree
  run kernel-diffcheck "$K" "$K" --spec full.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'full.json': args[0]: \"file\" '../specs/x.bin': './../specs/x.bin': cannot read: No such file or directory"
  assert_tree_unchanged
}

@test "--infer on a kernel that loads addresses from a buffer (a pointer table) says so and points to --capture (exit 2)" {
  pointer_table pt.hsaco
  snapshot_tree
  run --separate-stderr kernel-diffcheck --infer pt.hsaco --spec pt.json -o full.json
  assert_failure 2
  [ -z "$output" ]
  [[ $stderr =~ ^"kernel-diffcheck: error: 'pt.json': launch inference: K0 faults at an address it loaded from buffer '#0': global_load_dword at 0xa, 0 bytes past the value 0xa that inference wrote at byte 0 of it, and other contents move the fault (memory fault: global_load_dword of 4 bytes at 0xa ".*"). A kernel that loads addresses from a buffer (a pointer table) needs that buffer described as one: {\"arg\": \"#0\", \"table\": [{\"type\": ...}, ...]} in the spec, one entry per address; or record a real dispatch with dispatch-capture and check it with kernel-diffcheck --capture"$ ]] || fail "$stderr"
  assert_tree_unchanged
  run --separate-stderr kernel-diffcheck --infer pt.hsaco --spec pt.json -o full.json --json
  assert_report kernel-diffcheck input_error 2
  assert_tree_unchanged report.json
  # A check with the partial spec infers first: the same error.
  run kernel-diffcheck pt.hsaco pt.hsaco --spec pt.json
  assert_failure 2
  assert_output --partial "launch inference: K0 faults at an address it loaded from buffer '#0'"
  assert_tree_unchanged report.json
  # A complete spec (no inference): K0's run in the check says the same.
  echo '{"grid": [1], "block": [64], "args": [{"arg": "#0", "type": "u64", "elements": 4, "role": "in"},
    {"arg": "#1", "type": "f32", "elements": 64, "role": "out"}, {"arg": "#2", "value": 64}]}' > ptc.json
  snapshot_tree
  run --separate-stderr kernel-diffcheck pt.hsaco pt.hsaco --spec ptc.json --json
  assert_report kernel-diffcheck input_error 2
  [[ $stderr =~ ^"kernel-diffcheck: error: 'ptc.json': K0 faults at an address it loaded from buffer '#0': global_load_dword at 0x"[0-9a-f]+", "[0-9]+" bytes past the value 0x"[0-9a-f]+" at byte "[0-9]+" of its seed-1 values, and other values move the fault (memory fault: ".*"). A kernel that loads addresses from a buffer (a pointer table) needs that buffer described as one: {\"arg\": \"#0\", \"table\": [{\"type\": ...}, ...]} in the spec, one entry per address; or record a real dispatch with dispatch-capture and check it with kernel-diffcheck --capture (seed 1)"$ ]] || fail "$stderr"
  assert_tree_unchanged report.json
  # Row addresses from a real run, given as the table's "file": the same, naming the word.
  python3 -c 'import struct; open("rows.bin", "wb").write(struct.pack("<4Q", *[0x7f1234560000 + r * 0x10000 for r in range(4)]))'
  echo '{"grid": [1], "block": [64], "args": [{"arg": "#0", "type": "u64", "file": "rows.bin"},
    {"arg": "#1", "type": "f32"}, {"arg": "#2", "value": 64}]}' > ptf.json
  snapshot_tree
  run kernel-diffcheck --infer pt.hsaco --spec ptf.json -o full.json
  assert_failure 2
  assert_output --partial "kernel-diffcheck: error: 'ptf.json': launch inference: K0 faults at an address it loaded from buffer '#0': global_load_dword at 0x7f1234560000, 0 bytes past the value 0x7f1234560000 at byte 0 of its \"file\" (memory fault: "
  assert_tree_unchanged
}

@test "-q with --infer: a success prints nothing on stderr, an error still prints" {
  K=$TRITON/gfx942/vector_add_fp32.hsaco
  snapshot_tree
  run --separate-stderr kernel-diffcheck --infer "$K" --spec "$(spec vector_add_fp32)" -o full.json -q
  assert_success
  [ -z "$output" ] && [ -z "$stderr" ] || fail "stdout: $output; stderr: $stderr"
  assert_tree_unchanged full.json
  [ "$(python3 -c 'import json; print(json.load(open("full.json"))["args"][2]["role"])')" = out ]
  # Without -q, the summary line.
  run --separate-stderr kernel-diffcheck --infer "$K" --spec "$(spec vector_add_fp32)" -o full.json
  assert_success
  [[ $stderr == "kernel-diffcheck: inferred: add_kernel, 3 buffers completed in 5 emulator runs of K0; wrote full.json"* ]] || fail "$stderr"
  # Errors print under -q: an input error and K0's runtime error.
  pointer_table pt.hsaco
  python3 -c 'import json; s = json.load(open("pt.json")); s["args"][0] = {"arg": "#0", "value": "null"}; json.dump(s, open("null.json", "w"))'
  snapshot_tree
  run --separate-stderr kernel-diffcheck --infer pt.hsaco --spec pt.json -o full2.json -q
  assert_failure 2
  [[ $stderr == "kernel-diffcheck: error: 'pt.json': launch inference: K0 faults at an address it loaded from buffer '#0'"* ]] || fail "$stderr"
  run --separate-stderr kernel-diffcheck --infer pt.hsaco --spec null.json -o full2.json -q
  assert_failure 3
  [[ $stderr == "kernel-diffcheck: runtime_error: K0: during launch inference: memory fault: "* ]] || fail "$stderr"
  assert_tree_unchanged
}

@test "named arguments on a kernel whose metadata names none (Triton's) list #0 to #N, marking Triton's scratch pointers" {
  K=$TRITON/gfx942/vector_add_fp32.hsaco
  python3 - "$(spec vector_add_fp32)" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["args"][0]["arg"] = "x_ptr"
json.dump(s, open("named.json", "w"))
PY
  snapshot_tree
  for mode in check infer; do
    if [ $mode = check ]; then run kernel-diffcheck "$K" "$K" --spec named.json
    else run kernel-diffcheck --infer "$K" --spec named.json -o full.json; fi
    assert_failure 2
    assert_output "kernel-diffcheck: error: 'named.json': args[0]: kernel 'add_kernel' has no argument 'x_ptr': its metadata names none of its 6 explicit arguments (a Triton kernel's never does), so name them by index: #0 global_buffer (8 bytes), #1 global_buffer (8 bytes), #2 global_buffer (8 bytes), #3 by_value (4 bytes), #4 global_buffer (8 bytes; Triton's global_scratch pointer), #5 global_buffer (8 bytes; Triton's profile_scratch pointer)"
  done
  assert_tree_unchanged
  # A kernel clang compiled from C names none either, and is not Triton's: no scratch pointers.
  pointer_table pt.hsaco
  sed 's/"#1"/"out"/' pt.json > ptn.json
  snapshot_tree
  run kernel-diffcheck --infer pt.hsaco --spec ptn.json -o full.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'ptn.json': args[1]: kernel 'gather' has no argument 'out': its metadata names none of its 3 explicit arguments, so name them by index: #0 global_buffer (8 bytes), #1 global_buffer (8 bytes), #2 by_value (4 bytes)"
  assert_tree_unchanged
  # A kernel whose metadata names its arguments: the names.
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  hw_spec
  sed 's/"in"/"input"/' hw.json > hwn.json
  snapshot_tree
  run kernel-diffcheck hw.hsaco hw.hsaco --spec hwn.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'hwn.json': args[1]: kernel 'hw_copy' has no argument 'input' (its explicit arguments: #0 'out', #1 'in', #2 'n')"
  assert_tree_unchanged
}

@test "a launch spec's text: a UTF-8 byte order mark is skipped; UTF-16 and bytes that are not UTF-8 are refused by line (exit 2)" {
  K=$TRITON/gfx942/vector_add_fp32.hsaco
  { printf '\xef\xbb\xbf'; cat "$(spec vector_add_fp32)"; } > bom.json
  { printf '\xff\xfe'; cat "$(spec vector_add_fp32)"; } > utf16.json
  sed 's/"comment": "out = x/"comment": "out = \xff x/' "$(spec vector_add_fp32)" > bytes.json
  sed 's/"dynamic_lds"/"dyn\xc3amic_lds"/' "$(spec vector_add_fp32)" > key.json
  snapshot_tree
  run kernel-diffcheck "$K" "$K" --spec bom.json -q
  assert_success
  assert_line --index 0 --partial "kernel-diffcheck: ok: add_kernel"
  run kernel-diffcheck --infer "$K" --spec bom.json -o full.json -q
  assert_success
  [ "$(head -c 1 full.json)" = "{" ]
  assert_tree_unchanged full.json
  snapshot_tree
  run kernel-diffcheck "$K" "$K" --spec utf16.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'utf16.json': begins with a UTF-16 or UTF-32 byte order mark: a launch spec is UTF-8 JSON"
  run kernel-diffcheck "$K" "$K" --spec bytes.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'bytes.json':2: not valid UTF-8: byte 0xff at column 21 (a launch spec is UTF-8 JSON)"
  run kernel-diffcheck --infer "$K" --spec key.json -o full.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'key.json':6: not valid UTF-8: byte 0xc3 at column 7 (a launch spec is UTF-8 JSON)"
  # The report envelope quotes nothing that is not UTF-8 (this ended in SIGABRT).
  run --separate-stderr kernel-diffcheck "$K" "$K" --spec bytes.json --json
  assert_report kernel-diffcheck input_error 2
  assert_tree_unchanged report.json
}

@test "--infer on a kernel whose name is not UTF-8: exit 2 naming K0, no spec written, no crash" {
  python3 - "$TRITON/gfx942/vector_add_fp32.hsaco" "$(spec vector_add_fp32)" <<'PY'
import json, sys
open("bad.hsaco", "wb").write(open(sys.argv[1], "rb").read().replace(b"add_kernel", b"add_k\xffrnel"))
s = json.load(open(sys.argv[2])); del s["kernel"]; json.dump(s, open("s.json", "w"))
PY
  snapshot_tree
  run kernel-diffcheck --infer bad.hsaco --spec s.json -o full.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'bad.hsaco': the kernel's name 'add_k\\FFrnel' is not valid UTF-8, which a JSON launch spec cannot hold"
  run --separate-stderr kernel-diffcheck --infer bad.hsaco --spec s.json -o full.json --json
  assert_report kernel-diffcheck input_error 2
  assert_tree_unchanged report.json
}

@test "pointer tables: a spec's \"table\" launches, infers, checks and times a kernel that loads its buffers' addresses from memory" {
  build_table_kernel k.hsaco
  build_table_kernel minus.hsaco 'a * x[g][i] - y[g][i]'
  cat > part.json <<'JSON'
{"kernel": "grouped_axpy", "grid": [16, 2, 1], "block": [64, 1, 1],
 "args": [{"arg": "#0", "table": [{"type": "f32"}, {"type": "f32"}]},
          {"arg": "#1", "table": [{"type": "f32"}, {"type": "f32", "comment": "group 1"}]},
          {"arg": "#2", "value": 1000}, {"arg": "#3", "value": 600},
          {"arg": "#4", "type": "f32", "value": 1.5}, {"arg": "#5", "value": 2}]}
JSON
  run kernel-diffcheck --infer k.hsaco --spec part.json -o full.json
  assert_success
  assert_line --index 0 "kernel-diffcheck: inferred: grouped_axpy, 6 buffers completed in 4 emulator runs of K0; wrote full.json"
  assert_line "  spec: '#0[1]': 600 f32 elements (inferred), role in (inferred)"
  assert_line "  spec: '#1[0]': 1000 f32 elements (inferred), role inout (inferred)"
  # The completed spec keeps the tables nested, with what inference found (n_0 = 1000, n_1 = 600:
  # the kernel's bounds, worked out from its source above).
  run python3 -c 'import json; a = json.load(open("full.json"))["args"]; print(json.dumps(a[:2], sort_keys=True))'
  assert_output '[{"arg": "#0", "table": [{"elements": 1000, "role": "in", "type": "f32"}, {"elements": 600, "role": "in", "type": "f32"}]}, {"arg": "#1", "table": [{"elements": 1000, "role": "inout", "type": "f32"}, {"elements": 600, "role": "inout", "type": "f32"}]}]'
  # K0 against itself: equal, though each run places the buffers (and so the tables) elsewhere.
  run kernel-diffcheck k.hsaco k.hsaco --spec full.json
  assert_success
  assert_line --index 0 "kernel-diffcheck: ok: grouped_axpy, 2 output buffers equal on seeds 1,2,3 and on edge shapes tail-1, tail-2, tail-3, one-workgroup (seed 3), strict checks clean (backend emu, CPU emulator (gfx942, wave64))"
  assert_line "  '#1[1]' inout f32 x600: min cosine 1, max |diff| 0"
  # A candidate computing a x - y: divergent, named by the table entry.
  run kernel-diffcheck k.hsaco minus.hsaco --spec full.json --seeds 1
  assert_failure 1
  assert_line --index 0 --regexp "^kernel-diffcheck: divergent: buffer '#1\[0\]' \(f32\) on seed 1: "
  # kernel-time places the tables too.
  run kernel-time k.hsaco --spec full.json
  assert_success
  assert_line --index 0 --regexp '^kernel-time: K0 [0-9.]+ us .* modeled, not measured$'
}

@test "pointer tables: a table on a by-value argument, beside buffer keys, or with an entry lacking its type or naming an argument is an input error" {
  build_table_kernel k.hsaco
  spec() {
    printf '{"kernel": "grouped_axpy", "grid": [16, 2, 1], "block": [64, 1, 1], "args": [%s,
      {"arg": "#1", "table": [{"type": "f32"}]}, {"arg": "#2", "value": 10}, {"arg": "#3", "value": 6},
      {"arg": "#4", "type": "f32", "value": 1.5}, {"arg": "#5", "value": %s}]}' "$1" "${2:-2}" > bad.json
  }
  spec '{"arg": "#0", "table": [{"elements": 4}]}'
  run kernel-diffcheck --infer k.hsaco --spec bad.json -o out.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'bad.json': args[0].table[0]: needs \"type\" (f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 f8e4m3fn f8e5m2 f8e4m3fnuz f8e5m2fnuz e8m0 f4e2m1x2 bytes)"
  spec '{"arg": "#0", "type": "f32", "table": [{"type": "f32"}]}'
  run kernel-diffcheck --infer k.hsaco --spec bad.json -o out.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'bad.json': args[0]: a pointer table has only \"arg\" and \"table\" (its entries say what each address points to), not 'type'"
  spec '{"arg": "#0", "table": [{"arg": "#3", "type": "f32"}]}'
  run kernel-diffcheck --infer k.hsaco --spec bad.json -o out.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'bad.json': args[0].table[0]: unknown key 'arg' (type, elements, role, range, file, fill, comment)"
  spec '{"arg": "#0", "table": []}'
  run kernel-diffcheck --infer k.hsaco --spec bad.json -o out.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'bad.json': args[0]: \"table\" must be a non-empty array of buffers ({\"type\": ..., \"elements\": ..., \"role\": ...}), one per address in the table"
  spec '{"arg": "#0", "table": [{"type": "f32"}]}' '2, "table": [{"type": "f32"}]'
  run kernel-diffcheck --infer k.hsaco --spec bad.json -o out.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'bad.json': args[5]: a pointer table has only \"arg\" and \"table\" (its entries say what each address points to), not 'value'"
  sed 's/{"arg": "#5", "value": 2, "table"/{"arg": "#5", "table"/' bad.json > byvalue.json
  run kernel-diffcheck --infer k.hsaco --spec byvalue.json -o out.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'byvalue.json': args[5]: '#5' is passed by value (by_value): only a buffer argument can be a pointer table"
  [ ! -e out.json ]
}
