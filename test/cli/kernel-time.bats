#!/usr/bin/env bats
# kernel-time: the modeled backend labels every figure "modeled, not measured", is
# deterministic, and moves the right way for edits whose effect is known (each edit also passes
# kernel-diffcheck); bad input fails with the suite's exit codes and exact messages.
load test_helper


# vector add (gfx942): K0, its recovered text k.s and a complete spec va.json (n = 3000).
vadd() {
  VADD=$TRITON/gfx942/vector_add_fp32.hsaco
  hsaco-recover "$VADD" -o k.s
  kernel-diffcheck --infer "$VADD" --spec "$ASMEVO_SOURCE_DIR/test/specs/vector_add_fp32.json" \
    -o va.json 2>/dev/null
}

# cycles ROLE_INDEX: the modeled cycles of kernel I in report.json.
cycles() {
  python3 -c 'import json,sys; print(json.load(open("report.json"))["body"]["kernels"][int(sys.argv[1])]["cycles"])' "$1"
}

# time_pair K0 K1 SPEC: kernel-time --json of the pair into report.json; asserts ok.
time_pair() {
  run --separate-stderr kernel-time "$1" "$2" --spec "$3" --json
  assert_report kernel-time ok 0
}

# rebuild_checked S: k1.hsaco from S with K0's ABI, and kernel-diffcheck says it is ok.
rebuild_checked() {
  hsaco-rebuild "$1" -o k1.hsaco --abi-of "$VADD"
  run kernel-diffcheck "$VADD" k1.hsaco --spec va.json
  assert_success
}

@test "kernel-time --help matches its man page" {
  assert_help_matches_man kernel-time
}

@test "the model labels its figures, and the same inputs give the same number" {
  vadd
  run kernel-time "$VADD" --spec va.json
  assert_success
  assert_line --index 0 --regexp '^kernel-time: K0 [0-9.]+ us \([0-9]+ cycles at 2100 MHz\) on AMD Instinct MI300X, modeled, not measured$'
  first=${lines[0]}
  run kernel-time "$VADD" --spec va.json --threads 1
  [ "${lines[0]}" = "$first" ]
  run --separate-stderr kernel-time "$VADD" --spec va.json --json --profile
  assert_report kernel-time ok 0
  python3 - <<'PY'
import json
d = json.load(open("report.json"))
b = d["body"]
assert d["backend"] == "emu", d["backend"]
assert b["kind"] == "modeled" and b["label"] == "modeled, not measured", b
k = b["kernels"][0]
assert k["spread"] == 0 and k["cycles"] > 0, k
assert k["sampling"] == {"workgroups": 3, "simulated_workgroups": 3, "cus_used": 3, "cus_simulated": 3}, k["sampling"]
# every wave-cycle is accounted for under one reason
wc = k["wave_cycles"]
parts = sum(wc[x] for x in ("issue", "dependency", "unit_busy", "wait_vmcnt", "wait_lgkmcnt", "wait_expcnt", "barrier", "arbitration"))
assert abs(parts - wc["total"]) < 1e-6, wc
# the profile: every executed instruction, and windows over them
assert sum(1 for i in k["instructions"] if i["text"].startswith("buffer_load_dword")) == 8
w = k["hot_windows"][0]
assert "vmcnt" in w["waits_on"] and w["share"] > 0.5, w
PY
}

@test "K0 against itself: ratio 1, a point interval, said to be deterministic" {
  vadd
  run kernel-time "$VADD" "$VADD" --spec va.json
  assert_success
  assert_line --index 0 --regexp 't\(K1\)/t\(K0\) = 1\.0000 \(modeled; spread 0: the model is deterministic\)$'
}

@test "modeled time rises for added s_nops" {
  vadd
  sed 's/^\tbuffer_load_dword v4, v0/\ts_nop 7\n\ts_nop 7\n\ts_nop 7\n&/' k.s > k1.s
  rebuild_checked k1.s
  time_pair "$VADD" k1.hsaco va.json
  [ "$(cycles 1 | cut -d. -f1)" -gt "$(cycles 0 | cut -d. -f1)" ]
}

@test "modeled time rises when each load waits for the one before (no overlap), falls back when relaxed" {
  vadd
  sed 's/^\t\(buffer_load_dword .*\)$/\t\1\n\ts_waitcnt vmcnt(0)/' k.s > k1.s
  rebuild_checked k1.s
  time_pair "$VADD" k1.hsaco va.json
  [ "$(cycles 1 | cut -d. -f1)" -gt "$(cycles 0 | cut -d. -f1)" ]
  cp k1.hsaco serial.hsaco
  grep -v '"k0_sha256"' va.json > any.json
  time_pair serial.hsaco "$VADD" any.json
  [ "$(cycles 1 | cut -d. -f1)" -lt "$(cycles 0 | cut -d. -f1)" ]
}

@test "modeled time rises for a serial dependency chain (each load's address depends on the one before)" {
  vadd
  python3 - <<'PY'
s = open("k.s").read()
for prev, reg in (("v4", "v1"), ("v5", "v2"), ("v6", "v3")):
    load = "\tbuffer_load_dword v%d, %s, s[12:15], 0 offen\n" % (int(prev[1:]) + 1, reg)
    assert load in s, load
    # reg + prev * 0: the same address, known only once the previous load has returned
    s = s.replace(load, "\ts_waitcnt vmcnt(0)\n\tv_mul_lo_u32 v12, %s, 0\n"
                        "\tv_add_u32_e32 %s, %s, v12\n" % (prev, reg, reg) + load)
open("k1.s", "w").write(s)
PY
  rebuild_checked k1.s
  time_pair "$VADD" k1.hsaco va.json
  [ "$(cycles 1 | cut -d. -f1)" -gt "$(cycles 0 | cut -d. -f1)" ]
}

@test "modeled time falls when four dword loads become one dwordx4 load" {
  vadd
  python3 - <<'PY'
s = open("k.s").read()
loads = "".join("\tbuffer_load_dword v%d, v%d, s[%s], 0 offen\n" % (d, d % 4, r)
                for r, base in (("12:15", 4), ("4:7", 8)) for d in range(base, base + 4))
loads = "".join("\tbuffer_load_dword v%d, v%d, s[%s], 0 offen\n" % (base + i, i, r)
                for r, base in (("12:15", 4), ("4:7", 8)) for i in range(4))
assert loads in s, "the eight loads"
s = s.replace(loads, "\tbuffer_load_dwordx4 v[4:7], v0, s[12:15], 0 offen\n"
                     "\tbuffer_load_dwordx4 v[8:11], v0, s[4:7], 0 offen\n")
for n in (3, 2, 1):
    s = s.replace("\ts_waitcnt vmcnt(%d)\n" % n, "\ts_waitcnt vmcnt(0)\n", 1)
open("k1.s", "w").write(s)
PY
  rebuild_checked k1.s
  time_pair "$VADD" k1.hsaco va.json
  [ "$(cycles 1 | cut -d. -f1)" -lt "$(cycles 0 | cut -d. -f1)" ]
}

@test "modeled time falls when a redundant instruction is removed" {
  vadd
  sed 's/^\tv_or_b32_e32 v1, 1, v0$/&\n&\n&/' k.s > k0.s
  hsaco-rebuild k0.s -o k0.hsaco --abi-of "$VADD"
  run kernel-diffcheck "$VADD" k0.hsaco --spec va.json
  assert_success
  grep -v '"k0_sha256"' va.json > any.json
  time_pair k0.hsaco "$VADD" any.json
  [ "$(cycles 1 | cut -d. -f1)" -lt "$(cycles 0 | cut -d. -f1)" ]
}

@test "modeled time rises for VGPR use past an occupancy boundary (a grid that fills the GPU)" {
  # A Triton GEMM, 2048 x 2048 x 256 in 1024 workgroups: 8 resident per CU with its 56 VGPRs,
  # 2 with 256 (2 waves per SIMD), so fewer workgroups hide each other's loads and barriers.
  # (A streaming kernel would not do: its loads saturate HBM even at 2 waves per SIMD.)
  MM=$TRITON/gfx942/matmul_fp16.hsaco
  kernel-diffcheck --infer "$MM" --spec "$ASMEVO_SOURCE_DIR/test/specs/matmul_fp16.json" -o mm.json 2>/dev/null
  python3 - <<'PY'
import json
d = json.load(open("mm.json"))
M, N, K = 2048, 2048, 256
d["grid"] = [(M // 64) * (N // 64), 1, 1]
values = {"#3": M, "#4": N, "#5": K, "#6": K, "#7": N, "#8": N}
elements = {"#0": M * K, "#1": K * N, "#2": M * N}
for a in d["args"]:
    if a["arg"] in values:
        a["value"] = values[a["arg"]]
    if a["arg"] in elements:
        a["elements"] = elements[a["arg"]]
json.dump(d, open("big.json", "w"))
PY
  hsaco-recover "$MM" -o mm.s
  sed 's/\.amdhsa_next_free_vgpr [0-9]*/.amdhsa_next_free_vgpr 256/' mm.s > mm1.s
  hsaco-rebuild mm1.s -o mm1.hsaco --abi-of "$MM"
  run kernel-diffcheck "$MM" mm1.hsaco --spec mm.json
  assert_success
  time_pair "$MM" mm1.hsaco big.json
  python3 - <<'PY'
import json
k0, k1 = json.load(open("report.json"))["body"]["kernels"]
assert k0["occupancy"]["waves_per_simd"] == 8 and k1["occupancy"]["waves_per_simd"] == 2, (k0, k1)
assert k0["occupancy"]["vgpr_headroom"] == 8 and k1["occupancy"]["vgpr_headroom"] == 0, (k0, k1)
assert k1["cycles"] > 1.1 * k0["cycles"], (k0["cycles"], k1["cycles"])
assert k0["sampling"]["cus_simulated"] < k0["sampling"]["cus_used"] == 304, k0["sampling"]
PY
}

@test "bad input: a spec for another kernel, a bad parameter file, no GPU, an incomplete spec" {
  vadd
  run kernel-time "$VADD" --spec va.json --kernel nosuch
  assert_failure 2
  assert_output --partial "no kernel named 'nosuch'"
  python3 -c 'import json; d=json.load(open("'"$ASMEVO_SOURCE_DIR"'/share/asmevo/timing/gfx942.json")); del d["figures"]["l2_bytes"]; json.dump(d, open("p.json","w"))'
  run kernel-time "$VADD" --spec va.json --params p.json
  assert_failure 2
  assert_output "kernel-time: error: 'p.json': figure 'l2_bytes' is missing"
  run kernel-time "$VADD" --spec va.json --params "$ASMEVO_SOURCE_DIR/share/asmevo/timing/gfx90a.json"
  assert_failure 2
  assert_output --partial "is for gfx942, the timing parameters"
  ASMEVO_HIP_LIBRARY=/nonexistent/libamdhip64.so run kernel-time "$VADD" --spec va.json --backend hip
  assert_failure 2
  assert_output --partial "no ROCm runtime found"
  run kernel-time "$VADD" --spec "$ASMEVO_SOURCE_DIR/test/specs/vector_add_fp32.json"
  assert_failure 2
  assert_output --partial "leaves buffer sizes or roles open; complete it first with kernel-diffcheck --infer"
  run kernel-time "$VADD" --spec va.json --flush-cache
  assert_failure 2
  assert_output --partial "has no caches to flush"
}

@test "an instruction the emulator stops on is a runtime error naming kernel+offset (exit 3)" {
  vadd
  sed '0,/^\tv_add_f32_e32 v4, v4, v8$/s//\tv_cvt_sr_fp8_f32 v4, v4, v8\n&/' k.s > k1.s
  hsaco-rebuild k1.s -o k1.hsaco --abi-of "$VADD"
  run kernel-time "$VADD" k1.hsaco --spec va.json
  assert_failure 3
  assert_output --regexp "^kernel-time: error: K1: unsupported instruction v_cvt_sr_fp8_f32 .* at pc 0x[0-9a-f]+ \(add_kernel\+0x[0-9a-f]+, workgroup 0,0,0\)$"
}

@test "--att imports a rocprofv3 thread trace: K0's hot windows, measured, nothing run" {
  vadd
  kernel-time "$VADD" --spec va.json --profile --json > prof.json
  entry=$("$ASMEVO_LLVM_BINDIR/llvm-nm" "$VADD" | awk '$3 == "add_kernel" {print $1}')
  mkdir att
  # Columns in another order than rocprofv3 writes them, quoted text, and a second code object
  # (load id 7) whose rows are not this kernel's.
  python3 - "$entry" <<'PY'
import json, sys
entry = int(sys.argv[1], 16)
ins = json.load(open("prof.json"))["body"]["kernels"][0]["instructions"]
with open("att/stats_ui_output_agent_1_dispatch_3.csv", "w") as f:
    f.write("Idle,Codeobj,Instruction,Vaddr,Hitcount,Latency,Stall,Source\n")
    for i in ins:
        lat = 900 if i["text"] == "s_waitcnt vmcnt(0)" else 8
        f.write('1,2,"%s",%d,4,%d,2,\n' % (i["text"].replace('"', '""'), entry + i["offset"], lat))
    f.write('0,7,"s_nop 0",256,1,4,0,\n')
PY
  run kernel-time "$VADD" --att att
  assert_success
  n=$(python3 -c 'import json; print(len(json.load(open("prof.json"))["body"]["kernels"][0]["instructions"]))')
  assert_line --index 0 "kernel-time: K0 'add_kernel': $n instructions profiled from $n thread-trace rows (measured, rocprofv3, imported)"
  run --separate-stderr kernel-time "$VADD" --att att --json
  assert_report kernel-time ok 0
  python3 - <<'PY'
import json
b = json.load(open("report.json"))["body"]
assert b["kind"] == "measured" and b["codeobj"] == "2", b
w = b["kernels"][0]["hot_windows"][0]
assert any(c["text"] == "s_waitcnt vmcnt(0)" for c in w["code"]), w
assert w["cycles"]["issue"] >= 898 and w["executions"] == 4, w
PY
  mkdir empty
  run kernel-time "$VADD" --att empty
  assert_failure 2
  assert_output "kernel-time: error: 'empty': no rocprofv3 thread-trace statistics (stats_*.csv) in it"
  sed -i '1s/,Stall//' att/stats_ui_output_agent_1_dispatch_3.csv
  run kernel-time "$VADD" --att att
  assert_failure 2
  assert_output "kernel-time: error: 'att/stats_ui_output_agent_1_dispatch_3.csv':1: no column 'Stall' in the header"
}

@test "--annotate writes K0's recovered .s with modeled figures on every executed line; it rebuilds the same" {
  vadd
  run kernel-time "$VADD" --spec va.json --annotate a.s
  assert_success
  n=$(kernel-time "$VADD" --spec va.json --profile --json |
      python3 -c 'import json,sys; print(len(json.load(sys.stdin)["body"]["kernels"][0]["instructions"]))')
  [ "$(grep -c ' ; modeled: [0-9]* executions, [0-9]* wave-cycles' a.s)" -eq "$n" ]
  grep -q '^	s_waitcnt vmcnt(3) ; modeled: 12 executions, [0-9]* wave-cycles ([0-9]*% vmcnt)$' a.s
  hsaco-rebuild a.s -o a.hsaco
  hsaco-rebuild k.s -o plain.hsaco
  cmp a.hsaco plain.hsaco
  run kernel-time "$VADD" --spec va.json --annotate "$VADD"
  assert_failure 2
}

@test "--profile finds a GEMM's K loop, and its hottest window is the loop body" {
  MM=$TRITON/gfx942/matmul_fp16.hsaco
  kernel-diffcheck --infer "$MM" --spec "$ASMEVO_SOURCE_DIR/test/specs/matmul_fp16.json" -o mm.json 2>/dev/null
  run --separate-stderr kernel-time "$MM" --spec mm.json --profile --json
  assert_report kernel-time ok 0
  python3 - <<'PY'
import json
k = json.load(open("report.json"))["body"]["kernels"][0]
loops = k["loops"]
assert len(loops) == 1 and loops[0]["depth"] == 1, loops
# K = 48 in BLOCK_K = 32 steps: 2 iterations per wave, 4 waves, 2 workgroups
assert loops[0]["iterations"] == 16, loops
w = k["hot_windows"][0]
assert w["loop_depth"] == 1 and w["loop"] == {"begin": loops[0]["begin"], "end": loops[0]["end"]}, w
assert any(c["text"].startswith("v_mfma") for c in w["code"]), w
assert "a0" in w["live_in"] and "a0" in w["live_out"], w  # the accumulators carry around the loop
PY
}
