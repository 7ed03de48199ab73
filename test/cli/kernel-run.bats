#!/usr/bin/env bats
# kernel-run: run real code objects on the emulator from the command line; results are checked
# against values computed here independently (python3), errors by exact message and exit code.
load test_helper

# f32 little-endian files of values i*0.5 (x) and 1000-i (y), n elements.
make_inputs() {
  python3 - "$1" <<'PY'
import struct, sys
n = int(sys.argv[1])
open("x.bin", "wb").write(struct.pack("<%df" % n, *[i * 0.5 for i in range(n)]))
open("y.bin", "wb").write(struct.pack("<%df" % n, *[1000.0 - i for i in range(n)]))
PY
}

@test "kernel-run --help matches its man page" {
  assert_help_matches_man kernel-run
}

@test "vector add on gfx942: every element and the untouched masked tail" {
  make_inputs 3000
  run kernel-run "$TRITON/gfx942/vector_add_fp32.hsaco" --block 256 --grid 3 \
    --arg @x.bin --arg @y.bin --arg zeros:16384 --arg 3000 --arg null --arg null \
    --out '#2=out.bin'
  assert_success
  assert_output --partial "backend emu, CPU emulator (gfx942, wave64), kernel add_kernel"
  run python3 - <<'PY'
import struct
out = struct.unpack("<4096f", open("out.bin", "rb").read())
bad = [i for i in range(3000) if out[i] != i * 0.5 + 1000.0 - i]
bad += [i for i in range(3000, 4096) if out[i] != 0.0]
print("bad", len(bad), bad[:5])
PY
  assert_output "bad 0 []"
}

@test "vector add on gfx90a with named and typed arguments, JSON summary" {
  make_inputs 1024
  run kernel-run "$TRITON/gfx90a/vector_add_fp32.hsaco" --block 256 --grid-items 1024 \
    --arg '#0=@x.bin' --arg '#1=@y.bin' --arg '#2=zeros:4096' --arg '#3=i32:1024' \
    --arg '#4=null' --arg '#5=null' --out '#2=out.bin' --json
  assert_success
  echo "$output" | python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["backend"]=="emu" and j["workgroups"]==4 and j["waves"]==16, j'
  run python3 -c 'import struct; o=struct.unpack("<1024f", open("out.bin","rb").read()); print(all(o[i]==1000.0-i*0.5 for i in range(1024)))'
  assert_output "True"
}

@test "a buffer too small for the kernel's accesses is a memory fault naming lane and address (exit 3)" {
  make_inputs 4096
  head -c 1024 x.bin > small.bin
  run kernel-run "$TRITON/gfx942/vector_add_fp32.hsaco" --block 256 --grid 4 \
    --arg @small.bin --arg @y.bin --arg zeros:16384 --arg 4096 --arg null --arg null --out '#2=out.bin'
  assert_failure 3
  assert_output --regexp "kernel-run: error: memory fault: .* of 4 bytes at 0x[0-9a-f]+ \(lane [0-9]+\) at pc 0x[0-9a-f]+: (outside every allocation|runs past the end of its allocation) \(workgroup 0,0,0\)"
  [ ! -e out.bin ]
}

@test "bad launches are refused with exit 2 before anything runs" {
  make_inputs 16
  run kernel-run "$TRITON/gfx942/vector_add_fp32.hsaco" --block 256 --grid 1 --arg @x.bin
  assert_failure 2
  assert_output "kernel-run: error: argument '#1' (global_buffer, offset 8) has no value: add --arg #1=..."
  run kernel-run "$TRITON/gfx942/vector_add_fp32.hsaco" --block 512 --grid 1 \
    --arg @x.bin --arg @y.bin --arg zeros:64 --arg 16 --arg null --arg null
  assert_failure 2
  assert_output "kernel-run: error: workgroup of 512 work-items exceeds the kernel's .max_flat_workgroup_size 256"
  run kernel-run "$TRITON/gfx942/vector_add_fp32.hsaco" --block 256 --grid 1 \
    --arg @x.bin --arg @y.bin --arg zeros:64 --arg 1.5x --arg null --arg null
  assert_failure 2
  assert_output "kernel-run: error: argument '#3': '1.5x': not a number"
  run kernel-run "$TRITON/gfx942/vector_add_fp32.hsaco" --block 256 --grid 1 --kernel nope
  assert_failure 2
  assert_output "kernel-run: error: '$TRITON/gfx942/vector_add_fp32.hsaco': no kernel named 'nope'"
}

@test "an unimplemented instruction stops the run with its mnemonic and pc (exit 3)" {
  # s_sendmsg (messages to the graphics pipeline) has no meaning the emulator implements.
  cat > k.s <<'SRC'
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	v_mov_b32_e32 v1, 1.0
	s_sendmsg sendmsg(MSG_INTERRUPT)
	s_endpgm
	.rodata
	.p2align 6
	.amdhsa_kernel k
	.amdhsa_next_free_vgpr 3
	.amdhsa_next_free_sgpr 8
	.amdhsa_accum_offset 4
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args: []
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 0
    .max_flat_workgroup_size: 64
    .name: k
    .private_segment_fixed_size: 0
    .sgpr_count: 8
    .symbol: k.kd
    .vgpr_count: 3
    .wavefront_size: 64
amdhsa.target: amdgcn-amd-amdhsa--gfx942
amdhsa.version: [1, 2]
...
	.end_amdgpu_metadata
SRC
  run hsaco-rebuild k.s -o k.hsaco
  assert_success
  run kernel-run k.hsaco --block 64 --grid 1
  assert_failure 3
  assert_output --regexp "^kernel-run: error: unsupported instruction s_sendmsg at pc 0x[0-9a-f]+04 \\(workgroup 0,0,0\\)$"
}

@test "--strict reports a load read before its wait (exit 1); --sync-profile writes what each wait saw" {
  k0="$TRITON/gfx942/vector_add_fp32.hsaco"
  make_inputs 3000
  run kernel-run "$k0" --block 256 --grid 3 --arg @x.bin --arg @y.bin --arg zeros:12288 --arg 3000 --arg null --arg null --strict -q
  assert_success
  run kernel-run "$k0" --block 256 --grid 3 --arg @x.bin --arg @y.bin --arg zeros:12288 --arg 3000 --arg null --arg null --sync-profile p.json -q
  assert_success
  python3 -c '
import json
p = json.load(open("p.json"))
assert p["kernel"] == "add_kernel" and p["waits"], p
assert all(w["executions"] > 0 and w["max_outstanding"]["vm"] >= 0 for w in p["waits"])
assert any(w["max_outstanding"]["vm"] > 0 for w in p["waits"]), p'
  hsaco-recover "$k0" -o k.s
  n=$(grep -n 's_waitcnt vmcnt(0)' k.s | head -1 | cut -d: -f1)
  sed "${n}d" k.s > k1.s
  hsaco-rebuild k1.s -o k1.hsaco --abi-of "$k0"
  run kernel-run k1.hsaco --block 256 --grid 3 --arg @x.bin --arg @y.bin --arg zeros:12288 --arg 3000 --arg null --arg null --strict -q
  assert_failure 1
  assert_line --regexp "^kernel-run: unsafe: pending-read: v_[a-z0-9_]+ at pc 0x[0-9a-f]+ reads v[0-9]+ before (global|buffer)_load_dword[x0-9]* at pc 0x[0-9a-f]+ has returned it \(needs s_waitcnt vmcnt\([0-9]+\) first\)$"
  assert_line --regexp "^kernel-run: the strict checks found [0-9]+ unsafe operation\(s\) in kernel add_kernel$"
}
