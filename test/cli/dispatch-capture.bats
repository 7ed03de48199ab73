#!/usr/bin/env bats
# dispatch-capture: record one dispatch of a real HIP application. The applications are
# test/hip's programs (compiled here with clang-22 and g++) running on the emulated HIP runtime
# (libasmevo-hip); the bundles are read back with test/cli/read_bundle.py, a MessagePack reader
# independent of the msgpack-c that wrote them, and every recorded value is checked against one
# computed here.
load test_helper

setup_file() {
  build_hip_programs
}

# capture ARGS...: dispatch-capture on the emulated runtime, stdout and stderr apart.
capture() {
  run --separate-stderr env LD_LIBRARY_PATH="$HIPLIB/hip-compat" dispatch-capture "$@"
}

# bundle_check BUNDLE PYTHON: run PYTHON with `d`, the bundle as read_bundle.py reads it, and
# helpers: f32(hex) -> floats, u64(hex) -> 64-bit words, region(reached_from) -> region.
bundle_check() {
  python3 "$BATS_TEST_DIRNAME/read_bundle.py" "$1" > bundle.json
  python3 - "$2" <<'PY'
import json, struct, sys
d = json.load(open("bundle.json"))
def f32(h): b = bytes.fromhex(h); return list(struct.unpack("<%df" % (len(b) // 4), b))
def i32(h): b = bytes.fromhex(h); return list(struct.unpack("<%di" % (len(b) // 4), b))
def u64(h): b = bytes.fromhex(h); return list(struct.unpack("<%dQ" % (len(b) // 8), b))
def region(frm): return next(r for r in d["regions"] if r["reached_from"] == frm)
exec(sys.argv[1])
print("checked")
PY
}

@test "dispatch-capture --help matches its man page" {
  assert_help_matches_man dispatch-capture
}

@test "a <<<>>> launch through a table of row pointers: every region, the __device__ variable, before and after" {
  capture --kernel 'gather' -o g.bundle --json -- "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco"
  assert_report dispatch-capture ok 0
  python3 -c 'import json; b=json.load(open("report.json"))["body"]; assert (b["kernel"], b["nth"], b["regions"], b["globals"], b["bytes"]) == ("gather_rows", 0, 8, 1, 3144), b'
  [ "$(stat -c %a g.bundle)" = 600 ]
  run bundle_check g.bundle '
assert d["format"] == "asmevo-capture-bundle" and d["format_version"] == 1
assert d["kernel"] == "gather_rows" and d["grid_workgroups"] == [4, 1, 1] and d["block"] == [128, 1, 1]
assert d["device"].startswith("AsmEvo emulated gfx942") and "libamdhip64.so.5 50221153" in d["runtime"]
table = region("kernarg+0x0")
rows_at = u64(table["pre"])             # the table of 5 row pointers
assert len(rows_at) == 5
rows = {}
for r in d["regions"]:
    if r["base"] in rows_at:
        k = rows_at.index(r["base"])
        assert f32(r["pre"]) == [float(k * 100 + c) for c in range(64)] and r["post"] == r["pre"]
        assert r["reached_from"] == "0x%x+0x%x" % (table["base"], 8 * k), r["reached_from"]
        rows[k] = f32(r["pre"])
assert sorted(rows) == [0, 1, 2, 3, 4]
pick = i32(region("kernarg+0x8")["pre"])
assert pick == [3, 0, 4, 4, 1, 2, 0]
out = region("kernarg+0x10")
assert f32(out["pre"]) == [0.0] * 448
assert f32(out["post"]) == [rows[pick[i // 64]][i % 64] * 3.0 + 1.0 for i in range(448)]
(g,) = d["globals"]
assert g["name"] == "scale" and f32(g["pre"]) == [3.0] and g["post"] == g["pre"]
'
  assert_output "checked"
}

@test "hipModuleLaunchKernel with kernelParams and with extra: the same kernargs, the paged block table's pages, the sums" {
  capture --kernel '^paged_sum$' -o p0.bundle -- "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco"
  assert_success
  [[ $stderr == *"dispatch-capture: captured dispatch 0 of 'paged_sum': 16 regions and 1 global variable, 940 bytes each before and after, into p0.bundle"* ]] || fail "$stderr"
  capture --kernel '^paged_sum$' --nth 1 -o p1.bundle -- "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco"
  assert_success
  python3 "$BATS_TEST_DIRNAME/read_bundle.py" p0.bundle > p0.json
  run bundle_check p1.bundle '
p0 = json.load(open("p0.json"))
assert d["nth"] == 1 and p0["nth"] == 0
assert d["kernarg"] == p0["kernarg"] and len(d["kernarg"]) == 40 * 2   # extra packs what kernelParams does
pages_at = u64(region("kernarg+0x0")["pre"])
assert len(pages_at) == 12
pages = [f32(next(r for r in d["regions"] if r["base"] == a)["pre"]) for a in pages_at]
assert pages[3] == [float((3 * 7 + i * 3) % 11) - 5.0 for i in range(16)]
table = i32(region("kernarg+0x8")["pre"])
assert table == [7, 2, 11, 0, 5, 9, 1, 3, 10, 4, 6, 8]
lens = i32(region("kernarg+0x18")["pre"])
out = region("kernarg+0x20")
assert out["pre"] == "ff" * 12                       # hipMemset(0xff) before the launch
want = [sum(pages[table[s * 4 + p // 16]][p % 16] * (p + 1) for p in range(lens[s])) for s in range(3)]
assert f32(out["post"]) == want == [-677.0, 253.0, -11.0], (f32(out["post"]), want)
'
  assert_output "checked"
}

@test "a Triton-style launch: the runtime opened with dlopen, kernelParams ending in the two scratch pointers" {
  capture -o t.bundle -- "$PROGS/triton_style" "$TRITON/gfx942/vector_add_fp32.hsaco" 3000
  assert_success
  assert_output "add_kernel via dlopen and hipModuleLaunchKernel: 3000 values, 0 wrong"
  run bundle_check t.bundle '
assert d["kernel"] == "add_kernel" and d["grid_workgroups"] == [3, 1, 1] and d["block"] == [256, 1, 1]
k = bytes.fromhex(d["kernarg"])
assert len(k) == 48 and k[24:28] == (3000).to_bytes(4, "little") and k[32:48] == bytes(16)
x, y, out = (region("kernarg+0x%x" % o) for o in (0, 8, 16))
assert f32(x["pre"]) == [i * 0.5 for i in range(3000)] and f32(y["pre"]) == [1000.0 - i for i in range(3000)]
assert f32(out["post"]) == [i * 0.5 + 1000.0 - i for i in range(3000)] and f32(out["pre"]) == [0.0] * 3000
assert d["globals"] == []
'
  assert_output "checked"
}

@test "memory the virtual memory calls mapped (hipMemMap) is captured like hipMalloc's, and replays" {
  capture -q --kernel gather -o v.bundle -- "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco" vmm
  assert_success
  run bundle_check v.bundle '
out = region("kernarg+0x10")
assert len(out["pre"]) == 2 * 4096, len(out["pre"])  # the whole 4 KiB mapping, not 448 floats
k = u64(d["kernarg"][:48])
assert k[2] == out["base"], (k, out["base"])
got = f32(out["post"])[:448]
assert got[0] == 901.0 and got[64] == 1.0 and got[447] == 190.0, got[:2]
'
  assert_output "checked"
  run kernel-diffcheck v.bundle v.bundle --capture v.bundle
  assert_success
  assert_line --index 0 "kernel-diffcheck: ok: gather_rows, every byte of 8 regions and 1 global variable equal to K0's on the captured dispatch, strict checks clean (backend emu)"
}

@test "no dispatch matched: exit 2, naming what the application did dispatch, no bundle" {
  capture --kernel nomatch -o n.bundle -- "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco"
  assert_failure 2
  [ "$(tail -n 1 <<<"$stderr")" = "dispatch-capture: error: no dispatch matched (--kernel 'nomatch', --nth 0): '$PROGS/pointer_rich' exited with status 0 after 3 dispatches (gather_rows x1, paged_sum x2)" ]
  [ ! -e n.bundle ]
  capture --kernel paged --nth 2 -o n.bundle -- "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco"
  assert_failure 2
  [[ $stderr == *"no dispatch matched (--kernel 'paged', --nth 2)"* ]] || fail "$stderr"
}

@test "an application that exits or crashes before the launch" {
  capture -o x.bundle -- "$PROGS/pointer_rich"
  assert_failure 2
  [ "$(tail -n 1 <<<"$stderr")" = "dispatch-capture: error: no dispatch matched (any kernel, --nth 0): '$PROGS/pointer_rich' exited with status 2 after 0 dispatches" ]
  capture -o x.bundle -- sh -c 'kill -SEGV $$'
  assert_failure 2
  [ "$stderr" = "dispatch-capture: error: 'sh' was killed by signal 11 (Segmentation fault) before a matching dispatch was captured" ]
  capture -o x.bundle -- ./no-such-app
  assert_failure 2
  [ "$(tail -n 1 <<<"$stderr")" = "dispatch-capture: error: './no-such-app' could not be run, or exited with status 127 before a dispatch was captured" ]
  [ ! -e x.bundle ]
}

@test "a region over --max-bytes is refused by name, and an earlier bundle is left as it was" {
  echo earlier > m.bundle
  capture --kernel paged --max-bytes 500 -o m.bundle -- "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco"
  assert_failure 2
  [[ $(tail -n 1 <<<"$stderr") =~ ^"dispatch-capture: error: dispatch 0 of 'paged_sum' was not captured: allocation 0x"[0-9a-f]+" of 64 bytes (reached from 0x"[0-9a-f]+"+0x28) takes the capture to 552 bytes, over the limit of 500 (--max-bytes)"$ ]] || fail "$stderr"
  [ "$(cat m.bundle)" = earlier ]
}

@test "a dispatch that faults is a runtime error (exit 3), and nothing is written" {
  capture -o f.bundle -- "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco" fault
  assert_failure 3
  [ "$(tail -n 1 <<<"$stderr")" = "dispatch-capture: error: dispatch 0 of 'gather_rows' was not captured: the dispatch itself failed with hipErrorIllegalAddress (700)" ]
  [ ! -e f.bundle ]
}

@test "usage errors" {
  # These are caught before anything runs.
  run dispatch-capture -o x.bundle
  assert_failure 2
  assert_line --index 0 "dispatch-capture: error: give the application to run after --"
  run dispatch-capture -- true
  assert_failure 2
  assert_line --index 0 "dispatch-capture: error: -o BUNDLE is required"
  run dispatch-capture --kernel '(' -o x.bundle -- true
  assert_failure 2
  assert_line --index 0 --partial "dispatch-capture: error: --kernel '(': "
  run dispatch-capture -o - -- true
  assert_failure 2
  assert_line --index 0 "dispatch-capture: error: the bundle is binary: give -o FILE"
}

@test "replay: a candidate that breaks a wait state is unsafe by the static scan, before the replay" {
  capture -q -o t.bundle -- "$PROGS/triton_style" "$TRITON/gfx942/vector_add_fp32.hsaco" 3000
  hsaco-recover t.bundle -o t.s
  # v_or v2 moved above the v_cmp: same results, but the v_cndmask reading vcc is then one wait
  # state after the v_cmp writing it (gfx942 needs 2).
  n=$(grep -n $'^\tv_cmp_gt_i32_e32 vcc, s8, v0$' t.s | cut -d: -f1)
  [ "$(sed -n "$((n + 1))p" t.s)" = $'\tv_or_b32_e32 v2, 2, v0' ]
  sed "$((n + 1))d" t.s | sed "${n}i\\	v_or_b32_e32 v2, 2, v0" > k1.s
  [ "$(sed -n "${n}p" k1.s)" = $'\tv_or_b32_e32 v2, 2, v0' ]
  hsaco-rebuild k1.s --abi-of t.bundle -o k1.hsaco
  run --separate-stderr kernel-diffcheck t.bundle k1.hsaco --capture t.bundle --json
  assert_report kernel-diffcheck unsafe 1
  python3 -c '
import json
r = json.load(open("report.json"))
assert r["message"].startswith("unsafe: add_kernel+0x"), r["message"]
assert "wait-state hazard valu-sgpr-then-valu: v_cmp_gt_i32_e32" in r["message"], r["message"]
assert r["message"].endswith("(static scan of K1\x27s code, on a straight-line path whether or not a launch takes it; K0\x27s code has no hazard of this kind)"), r["message"]
assert r["body"]["unsafe"][0]["at"] == "static scan"'
  run kernel-diffcheck t.bundle k1.hsaco --capture t.bundle --no-strict
  assert_success
}

# A captured gather_rows dispatch, and its assembly recovered from the bundle itself.
capture_gather() {
  LD_LIBRARY_PATH="$HIPLIB/hip-compat" dispatch-capture -q --kernel gather -o g.bundle \
    -- "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco" > /dev/null 2>&1
  hsaco-recover g.bundle -o g.s
}

@test "replay: K0 reproduces the recording byte for byte, and so does an unchanged rebuild" {
  capture_gather
  run kernel-diffcheck g.bundle g.bundle --capture g.bundle
  assert_success
  assert_output "kernel-diffcheck: ok: gather_rows, every byte of 8 regions and 1 global variable equal to K0's on the captured dispatch, strict checks clean (backend emu)
  K0's replay reproduces the recorded post-state: 8 regions, 1 global variable (byte for byte)"
  hsaco-rebuild g.s --abi-of g.bundle -o k1.hsaco
  run --separate-stderr kernel-diffcheck g.bundle k1.hsaco --capture g.bundle --json
  assert_report kernel-diffcheck ok 0
  python3 -c 'import json; e=json.load(open("report.json")); assert e["backend"] == "emu" and [i["role"] for i in e["inputs"]] == ["k0", "k1", "capture"] and e["body"]["capture"]["regions"] == 8, e'
}

@test "replay: a mutated candidate is divergent at the first byte it changes" {
  capture_gather
  sed 's/v_fma_f32 v2, v2, s0, 1.0/v_fma_f32 v2, v2, s0, 2.0/' g.s > m.s
  ! cmp -s g.s m.s
  hsaco-rebuild m.s --abi-of g.bundle -o m.hsaco
  run kernel-diffcheck g.bundle m.hsaco --capture g.bundle
  assert_failure 1
  # out[0] = rows[3][0] * 3 + 1 = 901 (0x44614000) for K0, 902 (0x44618000) for the mutant.
  assert_line --index 0 --regexp "^kernel-diffcheck: divergent: gather_rows on the captured dispatch: region 0x[0-9a-f]+ \(reached from kernarg\+0x10\) byte 1 \(address 0x[0-9a-f]+\): 0x80 where K0 has 0x40$"
}

@test "replay with --types: the typed output by Eq. 1, every other byte exact" {
  capture_gather
  sed 's/v_fma_f32 v2, v2, s0, 1.0/v_fma_f32 v2, v2, s0, 2.0/' g.s > m.s
  hsaco-rebuild m.s --abi-of g.bundle -o m.hsaco
  # out (#2) as f32: K1 is K0 + 1 everywhere, past the default tau.
  run kernel-diffcheck g.bundle m.hsaco --capture g.bundle --types '#2=f32'
  assert_failure 1
  assert_line --index 0 --regexp "^kernel-diffcheck: divergent: gather_rows on the captured dispatch: region 0x[0-9a-f]+ \('#2', f32, from byte 0\): max_abs_diff 1 > tau 0.001 at index 0 \(K0 901, K1 902\)$"
  assert_line --index 1 "  K0's replay reproduces the recorded post-state: 8 regions, 1 global variable (1 typed span by Eq. 1 (theta 0.9999, tau 0.001), every other byte exactly)"
  # Within a looser tau and theta it passes; the figures are the ones computed here from the
  # recording: max |diff| 1, and the cosine of out against out + 1.
  run --separate-stderr kernel-diffcheck g.bundle m.hsaco --capture g.bundle --types '#0[]=f32,#1=i32,#2=f32' --tau 1.5 --theta 0.99 --json
  assert_report kernel-diffcheck ok 0
  python3 "$BATS_TEST_DIRNAME/read_bundle.py" g.bundle > bundle.json
  python3 - <<'PY'
import json, math, struct
d = json.load(open("bundle.json")); e = json.load(open("report.json"))
out = next(r for r in d["regions"] if r["reached_from"] == "kernarg+0x10")
k0 = struct.unpack("<448f", bytes.fromhex(out["post"])); k1 = [v + 1 for v in k0]
cos = sum(a * b for a, b in zip(k0, k1)) / math.sqrt(sum(a * a for a in k0) * sum(b * b for b in k1))
t = {s["arg"]: s for s in e["body"]["typed"]}
assert sorted(t) == ["#0[0]", "#0[1]", "#0[2]", "#0[3]", "#0[4]", "#1", "#2"], sorted(t)
assert t["#2"]["max_abs_diff"] == 1.0 and t["#2"]["elements"] == 448 and t["#2"]["mismatches"] == 448
assert abs(t["#2"]["cosine"] - cos) < 1e-9, (t["#2"]["cosine"], cos)
assert t["#1"]["type"] == "i32" and t["#1"]["elements"] == 7 and t["#1"]["mismatches"] == 0
assert all(t["#0[%d]" % k]["elements"] == 64 for k in range(5))
assert e["body"]["theta"] == 0.99 and e["body"]["tau"] == 1.5 and e["body"]["types"] == "#0[]=f32,#1=i32,#2=f32"
assert e["message"].startswith("ok: gather_rows, 8 regions and 1 global variable as K0's (7 typed spans by Eq. 1 (theta 0.99, tau 1.5), every other byte exactly)"), e["message"]
PY
  # Bad --types: an input error naming what is wrong.
  run kernel-diffcheck g.bundle g.bundle --capture g.bundle --types '#3=f32'
  assert_failure 2
  assert_output "kernel-diffcheck: error: --types: argument '#3' of gather_rows is not a pointer (by_value, 4 bytes)"
  run kernel-diffcheck g.bundle g.bundle --capture g.bundle --types '#5=f32'
  assert_failure 2
  assert_output "kernel-diffcheck: error: --types: kernel 'gather_rows' has no argument '#5': its metadata names none of its 5 explicit arguments, so name them by index: #0 global_buffer (8 bytes), #1 global_buffer (8 bytes), #2 global_buffer (8 bytes), #3 by_value (4 bytes), #4 by_value (4 bytes)"
  run kernel-diffcheck g.bundle g.bundle --capture g.bundle --types '#2=f33'
  assert_failure 2
  assert_output --partial "kernel-diffcheck: error: --types: unknown element type 'f33' (f16 bf16 f32 "
  run kernel-diffcheck g.bundle g.bundle --capture g.bundle --types '#0=f32,#0=i32'
  assert_failure 2
  assert_output --regexp "^kernel-diffcheck: error: --types: address 0x[0-9a-f]+ is given two types \('#0' f32, '#0' i32\)$"
  run kernel-diffcheck g.bundle g.bundle --capture g.bundle --tau 1
  assert_failure 2
  assert_line --index 0 "kernel-diffcheck: error: --theta and --tau apply to --capture only with --types (untyped memory is compared byte for byte)"
  run kernel-diffcheck g.bundle g.bundle --spec /dev/null --types '#2=f32'
  assert_failure 2
  assert_line --index 0 "kernel-diffcheck: error: --types is for --capture (a spec types its arguments itself)"
}

@test "replay on the hip backend (here the emulated runtime): recorded addresses reserved, or kernarg pointers rewritten" {
  capture_gather
  local hip=(env ASMEVO_HIP_LIBRARY="$HIPLIB/libasmevo-hip.so")
  local dev="AsmEvo emulated gfx942 (MI300X figures) (gfx942:sramecc+:xnack-), emulated by libasmevo-hip"
  # The runtime grants every recorded address (hipMemAddressReserve's hint): an exact replay.
  run --separate-stderr "${hip[@]}" kernel-diffcheck --backend hip g.bundle g.bundle --capture g.bundle
  assert_success
  assert_output "kernel-diffcheck: ok: gather_rows, every byte of 8 regions and 1 global variable equal to K0's on the captured dispatch, no strict checks (backend hip, $dev)
  K0's replay reproduces the recorded post-state: 8 regions, 1 global variable (byte for byte)"
  sed 's/v_fma_f32 v2, v2, s0, 1.0/v_fma_f32 v2, v2, s0, 2.0/' g.s > m.s
  hsaco-rebuild m.s --abi-of g.bundle -o m.hsaco
  run --separate-stderr "${hip[@]}" kernel-diffcheck --backend hip g.bundle m.hsaco --capture g.bundle --json
  assert_report kernel-diffcheck divergent 1
  python3 -c 'import json; e=json.load(open("report.json")); assert e["backend"] == "hip" and "(reached from kernarg+0x10) byte 1 " in e["message"], e'
  # A runtime that reserves elsewhere: the row table holds pointers to the rows, which cannot be
  # rewritten, so the replay is refused, naming both regions.
  run "${hip[@]}" ASMEVO_HIP_IGNORE_ADDRESS_HINT=1 kernel-diffcheck --backend hip g.bundle g.bundle --capture g.bundle
  assert_failure 2
  assert_output --regexp "^kernel-diffcheck: error: 'g.bundle': the runtime placed region 0x[0-9a-f]+ \(reached from 0x[0-9a-f]+\+0x0\) at 0x7e[0-9a-f]+, not at its recorded address, and region 0x[0-9a-f]+ holds a pointer to it at byte 0: a pointer stored in device memory cannot be rewritten \(only kernarg pointers are\), so this capture replays only where every region it points into keeps its recorded address$"
  # Top-level pointers only (the Triton-style launch): rewritten, and the replay is exact.
  capture -q -o t.bundle -- "$PROGS/triton_style" "$TRITON/gfx942/vector_add_fp32.hsaco" 3000
  assert_success
  run --separate-stderr "${hip[@]}" ASMEVO_HIP_IGNORE_ADDRESS_HINT=1 kernel-diffcheck --backend hip t.bundle t.bundle --capture t.bundle --types '#2=f32'
  assert_success
  assert_output "kernel-diffcheck: ok: add_kernel, 3 regions and 0 global variables as K0's (1 typed span by Eq. 1 (theta 0.9999, tau 0.001), every other byte exactly) on the captured dispatch, no strict checks (backend hip, $dev)
  3 regions could not be placed at their recorded addresses (the runtime's hipMemAddressReserve granted another): the kernarg pointers into them were rewritten, and no pointer in device memory reaches them
  K0's replay reproduces the recorded post-state: 3 regions, 0 global variables (1 typed span by Eq. 1 (theta 0.9999, tau 0.001), every other byte exactly)"
}

@test "replay: a candidate that reads outside the recorded regions faults, naming the address" {
  capture_gather
  sed 's/flat_load_dword v2, v\[2:3\]$/flat_load_dword v2, v[2:3] offset:4000/' g.s > m.s
  ! cmp -s g.s m.s
  hsaco-rebuild m.s --abi-of g.bundle -o m.hsaco
  run kernel-diffcheck g.bundle m.hsaco --capture g.bundle
  assert_failure 3
  # Workgroup 0's two waves read rows[pick[0]] = rows[3] and rows[pick[1]] = rows[0], plus 4000
  # bytes for lane 0: whichever wave the emulator runs first faults there.
  want=$(python3 "$BATS_TEST_DIRNAME/read_bundle.py" g.bundle | python3 -c '
import json, struct, sys
d = json.load(sys.stdin)
t = next(r for r in d["regions"] if r["reached_from"] == "kernarg+0x0")
rows = struct.unpack("<5Q", bytes.fromhex(t["pre"]))
print("|".join(hex(rows[k] + 4000) for k in (3, 0)))')
  assert_line --index 0 --regexp "^kernel-diffcheck: runtime_error: K1: memory fault: flat_load_dword of 4 bytes at ($want) \(lane 0\) at pc 0x[0-9a-f]+: outside every allocation \(gather_rows\+0x[0-9a-f]+, workgroup 0,0,0\)$"
}

@test "replay: bad bundles, another K0, and a K1 whose ABI differs" {
  capture_gather
  head -c 100 g.bundle > trunc.bundle
  run kernel-diffcheck g.bundle g.bundle --capture trunc.bundle
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'trunc.bundle'@0x64: truncated capture bundle: the MessagePack document ends past the file's last byte"
  python3 -c '
d = open("g.bundle", "rb").read()
k = b"\xaeformat_version\x01"
assert d.count(k) == 1
open("v2.bundle", "wb").write(d.replace(k, b"\xaeformat_version\x02"))'
  run kernel-diffcheck g.bundle g.bundle --capture v2.bundle
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'v2.bundle': capture bundle format_version 2 is not supported (this tool reads version 1)"
  printf '\xc1garbage' > junk.bundle
  run kernel-diffcheck g.bundle g.bundle --capture junk.bundle
  assert_failure 2
  assert_output --partial "kernel-diffcheck: error: 'junk.bundle'@0x"
  run kernel-diffcheck "$PROGS/pointer_rich.hsaco" g.bundle --capture g.bundle
  assert_failure 2
  assert_output "kernel-diffcheck: error: '$PROGS/pointer_rich.hsaco' is not the code object the capture recorded ('g.bundle' holds 8456 bytes of another; the bundle itself can be K0: give BUNDLE as K0 with --capture BUNDLE)"
  run kernel-diffcheck g.bundle "$TRITON/gfx942/vector_add_fp32.hsaco" --capture g.bundle
  assert_failure 1
  assert_line --index 0 "kernel-diffcheck: abi_invalid: code object version: 6 in K0, 5 here"
  run kernel-diffcheck g.bundle g.bundle --capture g.bundle --seeds 1
  assert_failure 2
  assert_line --index 0 "kernel-diffcheck: error: --seeds does not apply to --capture (one recorded state)"
}

@test "kernel-time --capture: the model on the captured state, K0 alone and against K1" {
  capture_gather
  run --separate-stderr kernel-time g.bundle --capture g.bundle --json
  assert_report kernel-time ok 0
  python3 -c '
import json
e = json.load(open("report.json"))
b = e["body"]
assert e["backend"] == "emu" and b["kind"] == "modeled" and b["kernel"] == "gather_rows", e
assert [i["role"] for i in e["inputs"]] == ["k0", "capture", "params"], e["inputs"]
assert b["capture"]["device"].startswith("AsmEvo emulated gfx942"), b["capture"]
assert e["message"].startswith("K0 ") and e["message"].endswith("modeled, not measured"), e["message"]'
  hsaco-rebuild g.s --abi-of g.bundle -o k1.hsaco
  run kernel-time g.bundle k1.hsaco --capture g.bundle
  assert_success
  assert_line --index 0 --partial "; K1 "
  assert_line --index 0 --partial "t(K1)/t(K0) = 1.0000 (modeled at the nominal figures only; --ensemble N gives its interval)"
  run kernel-time "$PROGS/pointer_rich.hsaco" --capture g.bundle
  assert_failure 2
  assert_output "kernel-time: error: '$PROGS/pointer_rich.hsaco' is not the code object the capture recorded ('g.bundle' holds 8456 bytes of another; the bundle itself can be K0: give BUNDLE as K0 with --capture BUNDLE)"
  run kernel-time g.bundle --capture g.bundle --spec "$ASMEVO_SOURCE_DIR/test/specs/vector_add_fp32.json"
  assert_failure 2
  assert_line --index 0 "kernel-time: error: --capture replaces --spec"
  run kernel-time g.bundle --capture g.bundle --rotate 2
  assert_failure 2
  assert_line --index 0 "kernel-time: error: --rotate and --seed do not apply to --capture (one recorded state)"
}

# make_bundle ARGS...: test/cli/make_bundle.py (a bundle of the Triton vector add, or an edit).
make_bundle() {
  python3 "$BATS_TEST_DIRNAME/make_bundle.py" "$@"
}

@test "replay and kernel-time --capture: a bundle missing a region K0 writes, or cut short, is an input error about the bundle (exit 2)" {
  make_bundle vadd "$TRITON/gfx942/vector_add_fp32.hsaco" v.bundle
  make_bundle edit v.bundle nout.bundle drop-region=kernarg+0x10
  make_bundle edit v.bundle cut.bundle region-bytes=kernarg+0x10:4000
  snapshot_tree
  # The bundle as written reproduces itself (K0 is the bundle's code object).
  run kernel-diffcheck v.bundle v.bundle --capture v.bundle
  assert_success
  assert_line --index 0 "kernel-diffcheck: ok: add_kernel, every byte of 3 regions and 0 global variables equal to K0's on the captured dispatch, strict checks clean (backend emu)"
  for tool in kernel-diffcheck kernel-time; do
    if [ $tool = kernel-diffcheck ]; then k1=nout.bundle; else k1=; fi
    run $tool nout.bundle $k1 --capture nout.bundle
    assert_failure 2
    assert_output "$tool: error: 'nout.bundle': K0, the code object the capture recorded, faults on memory the bundle does not hold (buffer_store_dword at 0x7f0000300c00): argument #2 (kernarg+0x10) points to 0x7f0000300000, which no region holds; capture the dispatch again"
    run $tool cut.bundle ${k1:+cut.bundle} --capture cut.bundle
    assert_failure 2
    assert_output "$tool: error: 'cut.bundle': K0, the code object the capture recorded, faults on memory the bundle does not hold (buffer_store_dword at 0x7f0000300fa0): it lies 0 bytes past the end of region 0x7f0000300000 (reached from kernarg+0x10, 4000 bytes), which is cut short or lacks a neighbour; capture the dispatch again"
    run --separate-stderr $tool nout.bundle $k1 --capture nout.bundle --json
    assert_report $tool input_error 2
  done
  # A real capture without the region of one row its table points to.
  capture_gather
  python3 "$BATS_TEST_DIRNAME/read_bundle.py" g.bundle > g.json
  row=$(python3 -c 'import json; print(next(r["reached_from"] for r in json.load(open("g.json"))["regions"] if not r["reached_from"].startswith("kernarg")))')
  make_bundle edit g.bundle norow.bundle "drop-region=$row"
  snapshot_tree
  for tool in kernel-diffcheck kernel-time; do
    if [ $tool = kernel-diffcheck ]; then k1=norow.bundle; else k1=; fi
    run $tool norow.bundle $k1 --capture norow.bundle
    assert_failure 2
    assert_output --regexp "^$tool: error: 'norow.bundle': K0, the code object the capture recorded, faults on memory the bundle does not hold \(flat_load_dword at 0x[0-9a-f]+\): (it lies [0-9]+ bytes past the end of region 0x[0-9a-f]+ \(reached from [^)]+, [0-9]+ bytes\), which is cut short or lacks a neighbour|no region holds it); capture the dispatch again$"
  done
  assert_tree_unchanged report.json
}

@test "replay and kernel-time --capture: a kernarg shorter than the kernel's explicit arguments, or longer than its segment, is an input error about the bundle" {
  make_bundle vadd "$TRITON/gfx942/vector_add_fp32.hsaco" v.bundle
  make_bundle edit v.bundle short.bundle kernarg-bytes=20
  make_bundle edit v.bundle empty.bundle kernarg-bytes=0
  python3 - "$BATS_TEST_DIRNAME/make_bundle.py" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("mb", sys.argv[1])
mb = importlib.util.module_from_spec(spec); spec.loader.exec_module(mb)
d, _ = mb.unpack(open("v.bundle", "rb").read())
d["kernarg"] += bytes(8)
open("long.bundle", "wb").write(mb.pack(d))
d["kernel"] = "sub_kernel"
open("other.bundle", "wb").write(mb.pack(d))
PY
  snapshot_tree
  for tool in kernel-diffcheck kernel-time; do
    k1() { [ $tool = kernel-diffcheck ] && echo "$1"; true; }
    run $tool short.bundle $(k1 short.bundle) --capture short.bundle
    assert_failure 2
    assert_output "$tool: error: 'short.bundle': the capture's kernarg is 20 bytes, but kernel 'add_kernel' takes 48 bytes of explicit arguments: it ends before the end of argument #2 (offset 16, 8 bytes); the bundle is cut short or not this kernel's"
    run $tool empty.bundle $(k1 empty.bundle) --capture empty.bundle
    assert_failure 2
    assert_output "$tool: error: 'empty.bundle': the capture's kernarg is 0 bytes, but kernel 'add_kernel' takes 48 bytes of explicit arguments: it ends before the end of argument #0 (offset 0, 8 bytes); the bundle is cut short or not this kernel's"
    run $tool long.bundle $(k1 long.bundle) --capture long.bundle
    assert_failure 2
    assert_output "$tool: error: 'long.bundle': the capture's kernarg is 56 bytes, more than kernel 'add_kernel''s 48-byte kernarg segment"
    run $tool other.bundle $(k1 other.bundle) --capture other.bundle
    assert_failure 2
    assert_output "$tool: error: 'other.bundle': the capture's kernel 'sub_kernel' is not in its code object"
  done
  assert_tree_unchanged
}
