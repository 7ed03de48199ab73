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
  assert_line --index 0 --regexp '^kernel-time: K0 [0-9.]+ us \(kernel [0-9.]+ us: [0-9]+ cycles at 2100 MHz and a fixed 3\.010 us; launch overhead 1\.030 us\) on AMD Instinct MI300X, modeled, not measured$'
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
# a modeled time is one back-to-back launch: the kernel (its cycles at its clock and the fixed
# GPU-side time), and the launch overhead; a kernel without MFMA work runs at the boost clock
assert k["clock_mhz"] == 2100 and k["mfma_load"] == 0, k
assert k["kernel_fixed_us"] == 3.01 and k["launch_overhead_us"] == 1.03, k
assert abs(k["kernel_us"] - k["cycles"] / 2100 - 3.01) < 1e-9, k
assert abs(k["microseconds"] - k["kernel_us"] - 1.03) < 1e-9, k
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

@test "every modeled report ends with the model's agreement with published kernels on its GPU; another parameter file has none" {
  vadd
  run --separate-stderr kernel-time "$VADD" --spec va.json
  assert_success
  # the shipped agreement (bench/validate_published.py): gfx942's two GPUs, both within target
  assert_line --index 3 --regexp '^  model agreement on MI300X: modeled/published geometric mean 1\.03 over 7 published whole-kernel times, 7 \(100%\) within \+-25% \(bench/validate_published\.py, [0-9-]+ [0-9:]+ UTC; by family: fmha_fwd 1\.03 \(7/7\)\); within the target \(0\.85 to 1\.15, 70% within\)$'
  assert_line --index 4 --regexp '^  model agreement on MI325X: modeled/published geometric mean 1\.11 over 32 published whole-kernel times, 23 \(72%\) within'
  run --separate-stderr kernel-time "$VADD" --spec va.json --json
  assert_report kernel-time ok 0
  python3 - <<'PY'
import json
a = json.load(open("report.json"))["body"]["model_agreement"]
assert a["status"] == "measured", a
assert [g["gpu"] for g in a["gpus"]] == ["MI300X", "MI325X"], a
assert all(g["target_met"] for g in a["gpus"]), a
PY
  # the same figures in an edited file (one source reworded): the agreement is not its own
  python3 - "$ASMEVO_SOURCE_DIR/share/asmevo/timing/gfx942.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["figures"]["clock_mhz"]["source"] += " (edited)"
json.dump(d, open("edited.json", "w"), indent=1)
PY
  run --separate-stderr kernel-time "$VADD" --spec va.json --params edited.json
  assert_success
  shipped=$(sha256sum "$ASMEVO_SOURCE_DIR/share/asmevo/timing/gfx942.json" | cut -c1-12)
  assert_line --index 3 --regexp "^  model agreement: none known for this parameter file \(edited\.json, sha256 [0-9a-f]{12}\): the published-kernel validation in .*/share/asmevo/timing/agreement\.json was measured with another file \(sha256 $shipped\)$"
  [ "${#lines[@]}" -eq 4 ]
  # gfx950's agreement, per family (a missed target's wording is model_agreement_test's)
  kernel-diffcheck --infer "$TRITON/gfx950/vector_add_fp32.hsaco" \
    --spec "$ASMEVO_SOURCE_DIR/test/specs/vector_add_fp32.json" -o va950.json 2>/dev/null
  run --separate-stderr kernel-time "$TRITON/gfx950/vector_add_fp32.hsaco" --spec va950.json
  assert_success
  assert_line --regexp '^  model agreement on MI355X: modeled/published geometric mean 1\.01 over 76 published whole-kernel times, 60 \(79%\) within \+-25% .*bf16gemm 1\.05 \(49/60\), f4gemm 0\.80 \(4/9\)\); within the target \(0\.85 to 1\.15, 70% within\)$'
  # a broken agreement file is an input error naming it
  mkdir -p tp && cp "$ASMEVO_SOURCE_DIR"/share/asmevo/timing/gfx942.json tp/ && echo '{"format": "asmevo-model-agreement", "format_version": 1, "targets": [' > tp/agreement.json
  ASMEVO_TIMING_PARAMS_DIR=$PWD/tp run --separate-stderr kernel-time "$VADD" --spec va.json
  [ "$status" -eq 2 ]
  [ "$stderr" = "kernel-time: error: '$PWD/tp/agreement.json':2: not valid JSON (at column 1)" ]
}

@test "K0 against itself: ratio 1 at the nominal figures, and --ensemble N gives its interval" {
  vadd
  run kernel-time "$VADD" "$VADD" --spec va.json
  assert_success
  assert_line --index 0 --regexp 't\(K1\)/t\(K0\) = 1\.0000 \(modeled at the nominal figures only; --ensemble N gives its interval\)$'
  run kernel-time "$VADD" "$VADD" --spec va.json --ensemble 5
  assert_success
  assert_line --index 0 --regexp 't\(K1\)/t\(K0\) = 1\.0000 \(modeled\); speedup 1\.0000 \[min 1\.0000, median 1\.0000, max 1\.0000\], K1 faster under 0 of 5 parameter sets$'
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
  assert_output "kernel-time: error: 'att/stats_ui_output_agent_1_dispatch_3.csv':1: no column 'Stall' in the header 'Idle,Codeobj,Instruction,Vaddr,Hitcount,Latency,Source'"
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

# params NAME.json EDIT [NAME.json EDIT ...]: copies of the shipped gfx942 parameter file, each
# with one Python statement applied to it (F is its "figures"); one python3 for all of them.
params() {
  python3 - "$ASMEVO_SOURCE_DIR/share/asmevo/timing/gfx942.json" "$@" <<'PY'
import json, sys
for name, edit in zip(sys.argv[2::2], sys.argv[3::2]):
    d = json.load(open(sys.argv[1]))
    F = d["figures"]
    exec(edit)
    json.dump(d, open(name, "w"), indent=1)
PY
}

@test "a parameter file with absurd figures is an input error naming the file, the figure, its value and its range" {
  vadd
  params cu.json 'F["compute_units"]["value"] = 1e12' \
    clock.json 'F["clock_mhz"]["value"] = 1e308' \
    line.json 'F["l1_line_bytes"]["value"] = 3' \
    line96.json 'F["l2_line_bytes"]["value"] = 96' \
    fraction.json 'F["simds_per_cu"]["value"] = 3.5' \
    ghz.json 'F["clock_mhz"].update(value=2.1, unit="GHz")' \
    negative.json 'F["hbm_latency_clk"]["value"] = -1' \
    zero.json 'F["l2_bytes"]["value"] = 0' \
    text.json 'F["l2_bytes"]["value"] = "4 MiB"' \
    null.json 'F["l2_bytes"]["value"] = None' \
    novalue.json 'del F["l2_bytes"]["value"]' \
    extra.json 'F["l2_bytes"]["low"] = 1' \
    unknown.json 'F["l3_bytes"] = F["l2_bytes"]' \
    l2s.json 'F["compute_units"]["value"] = 4' \
    ways.json 'F["l1_bytes"]["value"] = 1024; F["l1_ways"]["value"] = 16'
  sed 's/"value": 2100,/"value": NaN,/' "$ASMEVO_SOURCE_DIR/share/asmevo/timing/gfx942.json" > nan.json
  snapshot_tree
  bad() {
    run kernel-time "$VADD" --spec va.json --params "$1"
    assert_failure 2
    assert_output "kernel-time: error: '$1': $2"
  }
  bad cu.json "figure 'compute_units' is 1000000000000; it must be a whole number from 1 to 1024 (count)"
  bad clock.json "figure 'clock_mhz' is 1e+308; it must be a number from 100 to 5000 (MHz)"
  bad line.json "figure 'l1_line_bytes' is 3; it must be a power of two from 16 to 1024 (bytes)"
  bad line96.json "figure 'l2_line_bytes' is 96; it must be a power of two from 16 to 1024 (bytes)"
  bad fraction.json "figure 'simds_per_cu' is 3.5; it must be a whole number from 1 to 8 (count)"
  bad ghz.json "figure 'clock_mhz' is in \"GHz\"; it must be in \"MHz\""
  bad negative.json "figure 'hbm_latency_clk' is -1; it must be a number from 0 to 20000 (clk)"
  bad zero.json "figure 'l2_bytes' is 0; it must be a whole number from 65536 to 1073741824 (bytes)"
  bad text.json "figure 'l2_bytes' is \"4 MiB\"; it must be a whole number from 65536 to 1073741824 (bytes)"
  bad null.json "figure 'l2_bytes' is null; it must be a whole number from 65536 to 1073741824 (bytes)"
  bad novalue.json "figure 'l2_bytes' has no value"
  bad extra.json "figure 'l2_bytes' has an unknown key 'low' (value, unit, source, range, range_source)"
  bad unknown.json "unknown figure 'l3_bytes'"
  bad l2s.json "figure 'l2_instances' is 8, more than compute_units (4)"
  bad ways.json "figure 'l1_bytes' is 1024, less than one line per way (l1_line_bytes 128 x l1_ways 16 = 2048)"
  run kernel-time "$VADD" --spec va.json --params nan.json
  assert_failure 2
  assert_output --regexp "^kernel-time: error: 'nan.json'@0x[0-9a-f]+: not valid JSON: .*invalid literal"
  run --separate-stderr kernel-time "$VADD" --spec va.json --params cu.json --json
  assert_report kernel-time input_error 2
  assert_tree_unchanged report.json
}

@test "a UTF-8 byte order mark before a parameter file's JSON is skipped; a broken one is named in hex" {
  vadd
  printf '\xef\xbb\xbf' | cat - "$ASMEVO_SOURCE_DIR/share/asmevo/timing/gfx942.json" > bom.json
  printf '\xef\xbb' | cat - "$ASMEVO_SOURCE_DIR/share/asmevo/timing/gfx942.json" > half.json
  snapshot_tree
  run kernel-time "$VADD" --spec va.json
  assert_success
  first=${lines[0]}
  run kernel-time "$VADD" --spec va.json --params bom.json
  assert_success
  [ "${lines[0]}" = "$first" ]
  run kernel-time "$VADD" --spec va.json --params half.json
  assert_failure 2
  assert_output "kernel-time: error: 'half.json'@0x2: not valid JSON: parse error at line 1, column 3: syntax error while parsing value - invalid BOM; must be 0xEF 0xBB 0xBF if given; last read: '\\xEF\\xBB{'"
  assert_tree_unchanged
}

# att_csv DIR PYTHON [DIR PYTHON ...]: DIR/stats_x.csv, a thread trace of the vector add's K0
# (from prof.json: kernel-time --profile --json), with one Python statement applied to its rows
# (lists of fields; rows[1] is the second instruction's) or setting its bytes T; one python3 for
# all of them.
att_csv() {
  python3 - "$(symbol_addr "$VADD" add_kernel)" "$@" <<'PY'
import json, os, sys
ins = json.load(open("prof.json"))["body"]["kernels"][0]["instructions"]
text = "Codeobj,Vaddr,Instruction,Hitcount,Latency,Stall,Idle,Source\n"
for d, edit in zip(sys.argv[2::2], sys.argv[3::2]):
    rows = [["2", str(int(sys.argv[1]) + i["offset"]), '"%s"' % i["text"].replace('"', '""'),
             "4", "8", "2", "1", ""] for i in ins]
    T = None
    exec(edit)
    T = T if T is not None else text.encode() + b"".join(",".join(r).encode() + b"\n" for r in rows)
    os.makedirs(d, exist_ok=True)
    open(d + "/stats_x.csv", "wb").write(T)
PY
}

@test "--att: non-finite, negative or out-of-range fields and addresses wider than 64 bits are input errors naming the file, line, column and value" {
  vadd
  kernel-time "$VADD" --spec va.json --profile --json > prof.json
  att_csv good pass \
    hex17 'rows[1][1] = "0x1" + "0" * 16' \
    dec65 'rows[1][1] = "18446744073709551616"' \
    notaddr 'rows[1][1] = "0xZZ"' \
    nan 'rows[1][4] = "nan"' \
    inf 'rows[1][4] = "inf"' \
    huge 'rows[1][4] = "1e400"' \
    big 'rows[1][6] = "1e300"' \
    hexfloat 'rows[1][4] = "0x1p3"' \
    negative 'rows[1][5] = "-3"' \
    fraction 'rows[1][3] = "2.5"' \
    empty 'rows[1][4] = ""' \
    binary 'rows[1][4] = "\xff\x01"'
  snapshot_tree
  bad() {
    run kernel-time "$VADD" --att "$1"
    assert_failure 2
    assert_output "kernel-time: error: '$1/stats_x.csv':3: column $2"
  }
  bad hex17 "'Vaddr': '0x10000000000000000' is wider than 64 bits"
  bad dec65 "'Vaddr': '18446744073709551616' is wider than 64 bits"
  bad notaddr "'Vaddr': '0xZZ' is not an address (0x and hexadecimal digits, or decimal)"
  bad nan "'Latency': 'nan' is not a number (a number from 0 to 2^53)"
  bad inf "'Latency': 'inf' is not a number (a number from 0 to 2^53)"
  bad huge "'Latency': '1e400' is out of range (a number from 0 to 2^53)"
  bad big "'Idle': '1e300' is out of range (a number from 0 to 2^53)"
  bad hexfloat "'Latency': '0x1p3' is not a number (a number from 0 to 2^53)"
  bad negative "'Stall': '-3' is negative (a number from 0 to 2^53)"
  bad fraction "'Hitcount': '2.5' is not a whole number (a whole number from 0 to 2^53)"
  bad empty "'Latency' is empty"
  bad binary "'Latency': '\\xC3\\xBF\\x01' is not a number (a number from 0 to 2^53)"
  run --separate-stderr kernel-time "$VADD" --att hex17 --json
  assert_report kernel-time input_error 2
  run kernel-time "$VADD" --att good
  assert_success
  assert_tree_unchanged report.json
}

@test "--att skips a UTF-8 byte order mark, follows no directory link, and reports a load id that is not UTF-8" {
  vadd
  kernel-time "$VADD" --spec va.json --profile --json > prof.json
  att_csv good pass \
    bom 'T = b"\xef\xbb\xbf" + text.encode() + b"".join(",".join(r).encode() + b"\n" for r in rows)' \
    latin 'T = text.encode() + b"".join(b"\xff," + ",".join(r[1:]).encode() + b"\n" for r in rows)' \
    loop pass
  # A link back up the trace's own tree: followed, the walk would never end.
  mkdir loop/sub
  ln -s .. loop/sub/up
  snapshot_tree
  run kernel-time "$VADD" --att good
  assert_success
  first=${lines[0]}
  run kernel-time "$VADD" --att bom
  assert_success
  [ "${lines[0]}" = "$first" ]
  run timeout 60 kernel-time "$VADD" --att loop
  assert_success
  [ "${lines[0]}" = "$first" ]
  run --separate-stderr kernel-time "$VADD" --att latin --json
  assert_report kernel-time ok 0
  python3 -c 'import json; b = json.load(open("report.json"))["body"]; assert b["codeobj"] == "\ufffd", b["codeobj"]'
  assert_tree_unchanged report.json
}

@test "a huge grid: only the sampled workgroups are emulated, and past --max-workgroups the launch is refused before it runs" {
  vadd
  python3 - <<'PY'
import json
d = json.load(open("va.json"))
d["grid"] = [4096, 1, 1]
json.dump(d, open("g4096.json", "w"))
del d["grid"]
d["grid_items"] = [4294967295, 1, 1]  # 16777216 workgroups of 256, masked past n = 3000
json.dump(d, open("huge.json", "w"))
d["grid_items"] = [65536 * 256, 65537, 1]
json.dump(d, open("over.json", "w"))
d["grid_items"] = [4294967295, 4294967295, 4294967295]
d["block"] = [1, 1, 1]
json.dump(d, open("wrap.json", "w"))
PY
  snapshot_tree
  run --separate-stderr kernel-time "$VADD" --spec g4096.json --json
  assert_report kernel-time ok 0
  python3 - <<'PY'
import json
k = json.load(open("report.json"))["body"]["kernels"][0]
s, e = k["sampling"], k["emulated"]
assert s["workgroups"] == 4096 and s["simulated_workgroups"] < 256, s
assert e["workgroups"] == s["simulated_workgroups"], (s, e)
PY
  run --separate-stderr timeout 120 kernel-time "$VADD" --spec huge.json --json
  assert_report kernel-time ok 0
  python3 - <<'PY'
import json
k = json.load(open("report.json"))["body"]["kernels"][0]
s, e = k["sampling"], k["emulated"]
assert s["workgroups"] == 16777216 and e["workgroups"] == s["simulated_workgroups"] == 256, (s, e)
PY
  run kernel-time "$VADD" --spec over.json
  assert_failure 2
  assert_output "kernel-time: error: 'over.json': a launch of 4295032832 workgroups (65536 x 65537 x 1 workgroups of 256 x 1 x 1 work-items) is more than the model's bound of 4294967296 workgroups (--max-workgroups N raises it)"
  run kernel-time "$VADD" --spec wrap.json --max-workgroups 18446744073709551615
  assert_failure 2
  assert_output "kernel-time: error: 'wrap.json': a launch of more than 2^64 workgroups (4294967295 x 4294967295 x 4294967295 workgroups of 1 x 1 x 1 work-items) is more than the model's bound of 18446744073709551615 workgroups (--max-workgroups N raises it)"
  run kernel-time "$VADD" --spec g4096.json --max-workgroups 4095
  assert_failure 2
  assert_output "kernel-time: error: 'g4096.json': a launch of 4096 workgroups (4096 x 1 x 1 workgroups of 256 x 1 x 1 work-items) is more than the model's bound of 4095 workgroups (--max-workgroups N raises it)"
  run kernel-time "$VADD" --spec g4096.json --max-workgroups 4096
  assert_success
  run kernel-time "$VADD" --spec g4096.json --max-workgroups 0
  assert_failure 2
  assert_line --index 0 "kernel-time: error: --max-workgroups must be at least 1"
  assert_tree_unchanged report.json
}

@test "a spec whose buffers are too small for what K0 touches is an input error about the spec, worded as kernel-diffcheck words it" {
  vadd
  python3 - <<'PY'
import json
d = json.load(open("va.json"))
d["args"][0]["elements"] = 2990  # K0 reads 3000: the last 40 bytes lie in the guard
json.dump(d, open("short.json", "w"))
d["args"][0]["elements"] = 3000
d["args"][2]["elements"] = 10  # K0 writes 3000: far past the buffer, a fault
json.dump(d, open("tiny.json", "w"))
PY
  snapshot_tree
  run kernel-time "$VADD" --spec short.json
  assert_failure 2
  assert_output "kernel-time: error: 'short.json': K0 reads past '#0' (2990 f32 elements): it touches bytes 0 to 12000 of a buffer of 11960 bytes: the spec gives it too few elements"
  run kernel-diffcheck "$VADD" "$VADD" --spec short.json
  assert_failure 2
  assert_output --partial "K0 reads past '#0' (2990 f32 elements): it touches bytes 0 to 12000 of a buffer of 11960 bytes on seed 1: the spec gives it too few elements"
  run kernel-time "$VADD" "$VADD" --spec tiny.json
  assert_failure 2
  assert_output --regexp "^kernel-time: error: 'tiny.json': K0 writes past '#2' \(10 f32 elements\): buffer_store_dword at byte offset [0-9]+ of a buffer of 40 bytes faults \(memory fault: .*\): the spec gives it too few elements$"
  run --separate-stderr kernel-time "$VADD" --spec tiny.json --json
  assert_report kernel-time input_error 2
  assert_tree_unchanged report.json
}

@test "options that do not go together are usage errors: --att with a run's options, --annotate onto the parameter file" {
  vadd
  kernel-time "$VADD" --spec va.json --profile --json > prof.json
  att_csv att pass
  cp "$ASMEVO_SOURCE_DIR/share/asmevo/timing/gfx942.json" p.json
  snapshot_tree
  for opt in "--spec va.json" "--params p.json" "--profile" "--max-groups 3" "--backend emu" "--seed 2"; do
    run kernel-time "$VADD" --att att $opt
    assert_failure 2
    assert_line --index 0 "kernel-time: error: ${opt%% *} does not apply to --att (an import runs nothing)"
  done
  run kernel-time "$VADD" --spec va.json --params p.json --annotate p.json
  assert_failure 2
  assert_output "kernel-time: error: 'p.json': is the input 'p.json'; writing it would destroy the input (choose another output)"
  assert_tree_unchanged
}

# ensemble_pair K1 N SEED OUT: kernel-time --json of K0 = $VADD against K1 under N parameter
# sets into OUT; asserts ok.
ensemble_pair() {
  run --separate-stderr kernel-time "$VADD" "$1" --spec va.json --ensemble "$2" --ensemble-seed "$3" --json
  assert_report kernel-time ok 0
  mv report.json "$4"
}

@test "--ensemble N --ensemble-seed S: the speedup's interval over N parameter sets drawn from the ranges, in text and JSON, paired set by set, the same for the same seed" {
  vadd
  # K1: three s_nop 7 before the first load, slower under every parameter set
  sed 's/^\tbuffer_load_dword v4, v0/\ts_nop 7\n\ts_nop 7\n\ts_nop 7\n&/' k.s > k1.s
  rebuild_checked k1.s
  run kernel-time "$VADD" k1.hsaco --spec va.json --ensemble 8 --ensemble-seed 3
  assert_success
  assert_line --index 0 --regexp '^kernel-time: K0 .*; K1 [0-9.]+ us, t\(K1\)/t\(K0\) = 1\.[0-9]{4} \(modeled\); speedup 0\.[0-9]{4} \[min 0\.[0-9]{4}, median 0\.[0-9]{4}, max 0\.[0-9]{4}\], K1 faster under 0 of 8 parameter sets$'
  assert_line --index 1 --regexp '^  ensemble: 8 parameter sets \(seed 3; the nominal one and 7 drawn over [0-9]+ ranged figures\): K0 [0-9.]+ to [0-9.]+ us, median [0-9.]+$'
  ensemble_pair k1.hsaco 8 3 a.json
  ensemble_pair k1.hsaco 8 3 b.json
  ensemble_pair k1.hsaco 8 4 c.json
  ensemble_pair k1.hsaco 1 3 one.json
  python3 - "$ASMEVO_SOURCE_DIR/share/asmevo/timing/gfx942.json" <<'PY'
import json, sys
figs = json.load(open(sys.argv[1]))["figures"]
ranged = sorted(k for k, v in figs.items() if v["range"][0] != v["range"][1])
a, b, c, one = (json.load(open(f))["body"] for f in ("a.json", "b.json", "c.json", "one.json"))
e = a["ensemble"]
assert e["members"] == 8 and e["seed"] == 3 and sorted(e["ranged_figures"]) == ranged, e
assert e["method"].startswith("member 0: the nominal figures; members 1..N-1: a Latin hypercube"), e
k0, k1 = a["kernels"]
c0, c1 = k0["ensemble"]["cycles_per_member"], k1["ensemble"]["cycles_per_member"]
assert len(c0) == len(c1) == 8 and c0[0] == k0["cycles"] and c1[0] == k1["cycles"], (k0, k1)
# the sets move the figures: K0's cycles differ between sets, and its spread says so
assert len(set(c0)) > 1 and k0["spread"] == (max(c0) - min(c0)) / c0[0], k0
assert k0["ensemble"]["cycles"] == {"min": min(c0), "median": sorted(c0)[3] / 2 + sorted(c0)[4] / 2, "max": max(c0)}, k0
s = a["speedup"]
# times, not cycles: the two kernels' clocks may differ with their MFMA load
u0, u1 = k0["ensemble"]["microseconds_per_member"], k1["ensemble"]["microseconds_per_member"]
per = [x / y for x, y in zip(u0, u1)]
assert s["per_member"] == per and s["members"] == 8, s
assert s["value"] == per[0] and s["min"] == min(per) and s["max"] == max(per), s
assert s["faster_members"] == 0 and s["faster_fraction"] == 0 and max(per) < 1, s
r = a["ratio"]
assert r["value"] == u1[0] / u0[0] and r["low"] == 1 / max(per) and r["high"] == 1 / min(per), r
assert "8 parameter sets" in r["interval"] and "8 parameter sets" in s["interval"], (r, s)
# the same seed gives the same sets; another seed other drawn sets, the same nominal one
assert b["speedup"] == s and b["kernels"][0]["ensemble"] == k0["ensemble"], b
assert c["speedup"]["per_member"][0] == per[0] and c["speedup"]["per_member"][1:] != per[1:], c
# one set: the nominal figures, a point
o = one["speedup"]
assert o["per_member"] == [per[0]] and o["min"] == o["max"] == per[0] and one["kernels"][0]["spread"] == 0, o
assert one["ratio"]["interval"].startswith("a point: the nominal figures only"), one["ratio"]
PY
}

@test "--ensemble: figures with no range are the same in every set, so a parameter file that gives every figure exactly gives a point interval" {
  vadd
  python3 - "$ASMEVO_SOURCE_DIR/share/asmevo/timing/gfx942.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["figures"].values():
    f["range"] = [f["value"], f["value"]]
    f["range_source"] = "exact: pinned for the test"
json.dump(d, open("exact.json", "w"), indent=1)
PY
  run --separate-stderr kernel-time "$VADD" "$VADD" --spec va.json --params exact.json --ensemble 6 --json
  assert_report kernel-time ok 0
  python3 - <<'PY'
import json
d = json.load(open("report.json"))
b = d["body"]
assert b["ensemble"]["ranged_figures"] == [], b["ensemble"]
assert b["speedup"]["per_member"] == [1.0] * 6, b["speedup"]
c = b["kernels"][0]["ensemble"]["cycles_per_member"]
assert len(c) == 6 and len(set(c)) == 1 and b["kernels"][0]["spread"] == 0, c
assert "ensemble: the parameter file gives every figure exactly, so every parameter set is the nominal one" in d["notes"], d["notes"]
PY
}
