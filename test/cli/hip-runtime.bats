#!/usr/bin/env bats
# libasmevo-hip, the emulated HIP runtime: an unmodified HIP host program (test/hip, compiled
# here with clang-22 against Debian's HIP headers and linked against Debian's libamdhip64) runs
# on it through LD_LIBRARY_PATH, with both launch styles; the program checks every output
# against its own CPU reference. Errors by exact message and hipError_t.
load test_helper

setup_file() {
  build_hip_programs
}

# Run the test program on the emulated runtime.
on_emu() {
  LD_LIBRARY_PATH=$HIPLIB/hip-compat "$@"
}

@test "the program binds to the emulated runtime through LD_LIBRARY_PATH" {
  run env LD_LIBRARY_PATH=$HIPLIB/hip-compat ldd "$PROGS/pointer_rich"
  assert_success
  assert_output --regexp "libamdhip64.so.5 => $HIPLIB/hip-compat/libamdhip64.so.5"
}

@test "linked with -lasmevo-hip, it runs with no LD_LIBRARY_PATH" {
  run ldd "$PROGS/pointer_rich-linked"
  assert_output --regexp "libasmevo-hip.so => $HIPLIB/libasmevo-hip.so"
  refute_output --partial libamdhip64
  run --separate-stderr "$PROGS/pointer_rich-linked" "$PROGS/pointer_rich.hsaco"
  assert_success
  assert_line --index 4 "all checks passed"
}

@test "<<<>>> with a pointer table and a __device__ variable, and hipModuleLaunchKernel with kernelParams and extra over a paged block table" {
  run --separate-stderr on_emu "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco"
  assert_success
  assert_output "device: AsmEvo emulated gfx942 (MI300X figures) (gfx942:sramecc+:xnack-), 304 CUs, warp 64
gather_rows <<<>>>: 448 values, 0 wrong; event time recorded
paged_sum hipModuleLaunchKernel(kernelParams): 3 sequences, 0 wrong (sums -677 253 -11)
paged_sum hipModuleLaunchKernel(extra): 3 sequences, 0 wrong (sums -677 253 -11)
all checks passed"
  # Event times are host emulation times, and the runtime says so.
  [ "$stderr" = "asmevo-hip: hipEventElapsedTime: these are emulation times on the host CPU, not GPU times" ]
}

@test "the paged sums are the independently computed ones" {
  run python3 - <<'PY'
pages = [[float((p * 7 + i * 3) % 11) - 5.0 for i in range(16)] for p in range(12)]
table, lens = [7, 2, 11, 0, 5, 9, 1, 3, 10, 4, 6, 8], [50, 64, 7]
print(" ".join("%g" % sum(pages[table[s * 4 + p // 16]][p % 16] * (p + 1) for p in range(lens[s]))
               for s in range(3)))
PY
  assert_output "-677 253 -11"
}

@test "a read past the pointer table is hipErrorIllegalAddress naming the address, at launch and at the next synchronize" {
  run --separate-stderr on_emu "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco" fault
  assert_success
  assert_line --index 1 --regexp '^fault: launch hipErrorIllegalAddress, synchronize hipErrorIllegalAddress; rows\[1000\] is at 0x[0-9a-f]+$'
  addr=${lines[1]##* at }
  [[ $stderr == "asmevo-hip: hipLaunchKernel: kernel 'gather_rows': memory fault: global_load_dwordx2 of 8 bytes at $addr (lane 0) at pc 0x"*": outside every allocation (gather_rows+0x"*" (hipErrorIllegalAddress)" ]] ||
    fail "stderr: $stderr"
}

@test "virtual memory: the output reserved, created, mapped and made accessible, then unmapped and freed" {
  run --separate-stderr on_emu "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco" vmm
  assert_success
  assert_line --index 1 "gather_rows <<<>>> into hipMemMap'd memory: 448 values, 0 wrong; event time recorded"
}

@test "ASMEVO_HIP_EVENT_TIMES=model: events read kernel-time's modeled time of the launch, labelled modeled" {
  run --separate-stderr env ASMEVO_HIP_EVENT_TIMES=model LD_LIBRARY_PATH="$HIPLIB/hip-compat" "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco" time
  assert_success
  assert_line --index 1 "gather_rows <<<>>>: 448 values, 0 wrong; event time recorded"
  ms=${lines[2]#gather_rows events: }
  ms=${ms% ms}
  [[ $stderr == "asmevo-hip: hipEventElapsedTime: these are modeled device times (kernel-time's model of AMD Instinct MI300X, "*"/share/asmevo/timing/gfx942.json; kernels only, copies take none), not measured GPU times" ]] || fail "stderr: $stderr"
  # The same dispatch, captured and modeled by kernel-time: the same microseconds.
  LD_LIBRARY_PATH="$HIPLIB/hip-compat" dispatch-capture -q --kernel gather -o g.bundle -- "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco" time > /dev/null 2>&1
  run --separate-stderr kernel-time g.bundle --capture g.bundle --json
  assert_success
  echo "$output" > report.json
  python3 -c '
import json, sys
us = json.load(open("report.json"))["body"]["kernels"][0]["microseconds"]
ms = float(sys.argv[1])
assert us > 0 and abs(ms * 1000 - us) <= 1e-6 * us, (ms, us)
' "$ms"
  # Unknown values fall back to host times, and say so.
  run --separate-stderr env ASMEVO_HIP_EVENT_TIMES=gpu LD_LIBRARY_PATH="$HIPLIB/hip-compat" "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco" time
  assert_success
  [[ $stderr == "asmevo-hip: ASMEVO_HIP_EVENT_TIMES is 'gpu', not host or model: host times"* ]] || fail "stderr: $stderr"
}

@test "an entry point the runtime lacks is hipErrorNotSupported, named once on stderr" {
  run --separate-stderr on_emu "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco" unsupported
  assert_success
  assert_line --index 1 "hipGraphCreate: hipErrorNotSupported; hipGetLastError: hipErrorNotSupported"
  [ "$stderr" = "asmevo-hip: hipGraphCreate: not supported by the emulated HIP runtime (libasmevo-hip) (hipErrorNotSupported)" ]
}

@test "code for another processor is hipErrorNoBinaryForGpu, for the fat binary and for hipModuleLoad" {
  run --separate-stderr env ASMEVO_HIP_ARCH=gfx950 LD_LIBRARY_PATH=$HIPLIB/hip-compat \
    "$PROGS/pointer_rich" "$PROGS/pointer_rich.hsaco"
  assert_failure 1
  assert_line --index 0 "device: AsmEvo emulated gfx950 (MI355X figures) (gfx950:sramecc+:xnack-), 256 CUs, warp 64"
  assert_line --index 1 "FAIL hipMemcpyToSymbol(HIP_SYMBOL(scale), &Scale, sizeof Scale, 0, hipMemcpyHostToDevice): hipErrorNoBinaryForGpu"
  [[ $stderr == *"asmevo-hip: hipModuleLoad: $PROGS/pointer_rich.hsaco has no code object for gfx950 (it has gfx942); the emulated device is gfx950 (ASMEVO_HIP_ARCH chooses it: gfx90a, gfx942 or gfx950) (hipErrorNoBinaryForGpu)"* ]] ||
    fail "stderr: $stderr"
}

@test "a truncated or missing module file is an error naming the file, not a crash" {
  head -c 100 "$PROGS/pointer_rich.hsaco" > trunc.hsaco
  run --separate-stderr on_emu "$PROGS/pointer_rich" trunc.hsaco load
  assert_failure 1
  assert_line --index 1 "hipModuleLoad: hipErrorInvalidImage"
  [ "$stderr" = "asmevo-hip: hipModuleLoad: 'trunc.hsaco'@0x1d08: section header table extends past the end of the file (100 bytes) (hipErrorInvalidImage)" ]
  run --separate-stderr on_emu "$PROGS/pointer_rich" missing.hsaco load
  assert_failure 1
  assert_line --index 1 "hipModuleLoad: hipErrorFileNotFound"
  [[ $stderr == "asmevo-hip: hipModuleLoad: "*"missing.hsaco"* ]] || fail "stderr: $stderr"
}

# vector add inputs: x[i] = i/2, y[i] = 1000 - i (f32), n elements.
vadd_inputs() {
  python3 -c "
import struct
n = $1
open('x.bin', 'wb').write(struct.pack('<%df' % n, *[i * 0.5 for i in range(n)]))
open('y.bin', 'wb').write(struct.pack('<%df' % n, *[1000.0 - i for i in range(n)]))"
}

@test "the tools' hip backend runs on it through dlopen, with the emu backend's results, and never calls it a GPU" {
  vadd_inputs 3000
  local k=$TRITON/gfx942/vector_add_fp32.hsaco
  local args=(--block 256 --grid 3 --arg @x.bin --arg @y.bin --arg zeros:16384 --arg 3000 --arg null --arg null)
  run --separate-stderr env ASMEVO_HIP_LIBRARY=$HIPLIB/libasmevo-hip.so kernel-run --backend hip "$k" "${args[@]}" --out '#2=hip.bin'
  assert_success
  [[ $stderr == *"kernel-run: backend hip, AsmEvo emulated gfx942 (MI300X figures) (gfx942:sramecc+:xnack-), emulated by libasmevo-hip, kernel add_kernel"* ]] || fail "stderr: $stderr"
  [[ $stderr == *"(emulated, not GPU time)"* ]] || fail "stderr: $stderr"
  run kernel-run "$k" "${args[@]}" --out '#2=emu.bin'
  assert_success
  cmp hip.bin emu.bin
  # The emulator's own checks are not claimed on it, and "auto" takes the emulator instead.
  run env ASMEVO_HIP_LIBRARY=$HIPLIB/libasmevo-hip.so kernel-run --backend hip --strict "$k" "${args[@]}"
  assert_failure 2
  assert_output "kernel-run: error: --strict and --sync-profile need the emu backend (a GPU cannot report what its timing hid)"
  run --separate-stderr env ASMEVO_HIP_LIBRARY=$HIPLIB/libasmevo-hip.so kernel-diffcheck --backend hip "$k" "$k" --spec "$ASMEVO_SOURCE_DIR/test/specs/vector_add_fp32.json"
  assert_success
  assert_line --index 0 "kernel-diffcheck: ok: add_kernel, 1 output buffer equal on seeds 1,2,3 and on edge shapes tail-1, tail-2, tail-3, one-workgroup (seed 3), no strict checks (backend hip, AsmEvo emulated gfx942 (MI300X figures) (gfx942:sramecc+:xnack-), emulated by libasmevo-hip)"
  run --separate-stderr env ASMEVO_HIP_LIBRARY=$HIPLIB/libasmevo-hip.so kernel-diffcheck --backend auto "$k" "$k" --spec "$ASMEVO_SOURCE_DIR/test/specs/vector_add_fp32.json"
  assert_success
  assert_line --index 0 "kernel-diffcheck: ok: add_kernel, 1 output buffer equal on seeds 1,2,3 and on edge shapes tail-1, tail-2, tail-3, one-workgroup (seed 3), strict checks clean (backend emu, CPU emulator (gfx942, wave64))"
}
