#!/usr/bin/env bats
# CLI tests for hsaco-patch: the identity round trip, padding, every refusal with its exact
# message and exit code, on real code objects (the Triton corpus) and one compiled at test time.

load test_helper

objdump() { "$ASMEVO_LLVM_BINDIR/llvm-objdump" "$@"; }

# round_trip FILE WINDOW: extract the window, patch it back, compare.
round_trip() {
  hsaco-patch "$1" --window "$2" --extract > w.s
  hsaco-patch "$1" --window "$2" --with w.s -o k1.hsaco
  cmp "$1" k1.hsaco
}

@test "--help and the man page document the same options" {
  assert_help_matches_man hsaco-patch
}

@test "--version names the LLVM version" {
  run hsaco-patch --version
  assert_success
  assert_output --regexp '^hsaco-patch \(AsmEvo\) 0\.1\.0, LLVM [0-9]+\.'
}

@test "patching a window with its own instructions gives an identical file (gfx90a, gfx942, gfx950)" {
  round_trip "$TRITON/gfx90a/matmul_fp16.hsaco" matmul_kernel:0x100-0x200
  # whole loops, MFMA included: the back branch becomes a local label
  round_trip "$TRITON/gfx90a/matmul_fp16.hsaco" matmul_kernel:0x4f8-0x690
  grep -q '^	s_cbranch_scc1 \.Lw0$' w.s
  grep -q 'v_mfma_f32_32x32x8f16' w.s
  round_trip "$TRITON/gfx942/matmul_fp16.hsaco" matmul_kernel:0x4ec-0x684
  round_trip "$TRITON/gfx942/layernorm_fwd_fp16.hsaco" layer_norm_fwd_kernel:0x188-0x230
  # a branch to the window's end is a label after the last instruction
  round_trip "$TRITON/gfx942/layernorm_fwd_fp16.hsaco" layer_norm_fwd_kernel:0x3c0-0x504
  [ "$(tail -1 w.s)" = '.Lw1:' ]
  round_trip "$TRITON/gfx950/matmul_fp16.hsaco" matmul_kernel:0x534-0x5f0
  grep -q 'v_mfma_f32_32x32x16_f16' w.s
  # the whole body after the kernarg-preload prologue
  round_trip "$TRITON/gfx950/flash_attn_fwd_fp16.hsaco" attn_fwd_kernel:0x100-5948
  round_trip "$TRITON/gfx90a/softmax_fp32.hsaco" softmax_kernel:0x100+1476
}

@test "the extracted window is self-describing, and START+LENGTH is START-END" {
  cp "$TRITON/gfx942/softmax_fp32.hsaco" k.hsaco
  run hsaco-patch k.hsaco --window softmax_kernel:0x100+64 --extract
  assert_success
  assert_line --index 0 '; asmevo-patch-window v1'
  assert_line --index 1 '; source: k.hsaco'
  assert_line --index 2 "; sha256: $(sha256sum k.hsaco | cut -d' ' -f1)"
  assert_line --index 3 '; target: amdgcn-amd-amdhsa--gfx942'
  assert_line --index 4 '; window: softmax_kernel:0x100-0x140 (0x1800-0x1840, 64 bytes, 12 instructions)'
  assert_line --index 5 $'\tv_lshlrev_b32_e32 v4, 2, v0'
  [ "${#lines[@]}" -eq 17 ]
  hsaco-patch k.hsaco --window softmax_kernel:256-320 --extract -o w2.s
  diff <(echo "$output") w2.s
}

@test "a shorter replacement is padded with s_nop 0 and nothing outside the window changes" {
  cp "$TRITON/gfx942/softmax_fp32.hsaco" k.hsaco
  printf '; three of the twelve\n\tv_lshlrev_b32_e32 v4, 2, v0\n\ts_mul_i32 s9, s6, s14\n\tv_or_b32_e32 v3, 1, v4\n' > edit.s
  run hsaco-patch -v k.hsaco --window softmax_kernel:0x100-0x140 --with edit.s -o k1.hsaco
  assert_success
  assert_output "hsaco-patch: k.hsaco: window softmax_kernel:0x100-0x140 (0x1800-0x1840, 64 bytes): replacement 12 bytes, 13 s_nop 0 of padding"
  # the window is at file offset 0x800 (.text: address 0x1700, offset 0x700)
  cmp <(head -c $((0x800 + 12)) k.hsaco) <(head -c $((0x800 + 12)) k1.hsaco)
  cmp <(tail -c +$((0x840 + 1)) k.hsaco) <(tail -c +$((0x840 + 1)) k1.hsaco)
  [ "$(stat -c %s k.hsaco)" -eq "$(stat -c %s k1.hsaco)" ]
  run objdump -d --mcpu=gfx942 --start-address=0x1800 --stop-address=0x1840 k1.hsaco
  [ "$(echo "$output" | grep -c $'^\ts_nop 0 ')" -eq 13 ]
  echo "$output" | grep -q 'v_or_b32_e32 v3, 1, v4 .*// 000000001808:'
  echo "$output" | grep -q 's_nop 0 .*// 00000000180C: BF800000'
  echo "$output" | grep -q 's_nop 0 .*// 00000000183C: BF800000'
}

@test "a replacement larger than the window is refused, and nothing is written" {
  cp "$TRITON/gfx942/softmax_fp32.hsaco" k.hsaco
  printf '\tv_lshlrev_b32_e32 v4, 2, v0\n\ts_mul_i32 s9, s6, s14\n\ts_nop 0\n' > edit.s
  run hsaco-patch k.hsaco --window softmax_kernel:0x100-0x108 --with edit.s -o k1.hsaco
  assert_failure 1
  assert_output "hsaco-patch: refused: 'k.hsaco'@0x800: replacement is 12 bytes, the window is 8 bytes"
  [ ! -e k1.hsaco ]
}

@test "a window whose interior is a branch target is refused" {
  cp "$TRITON/gfx942/layernorm_fwd_fp16.hsaco" k.hsaco
  # the loop at +0x188 is entered from its back branch at +0x22c
  objdump -d --mcpu=gfx942 k.hsaco | grep -q 's_cbranch_scc1 65494 .*// 000000001A2C: BF85FFD6 <layer_norm_fwd_kernel+0x188>'
  printf '\ts_nop 0\n' > edit.s
  run hsaco-patch k.hsaco --window layer_norm_fwd_kernel:0x180-0x190 --with edit.s -o k1.hsaco
  assert_failure 1
  assert_output "hsaco-patch: refused: 'k.hsaco'@0xa2c: branch at 0x1A2C (layer_norm_fwd_kernel+0x22C) targets 0x1988 (layer_norm_fwd_kernel+0x188), inside the window"
  [ ! -e k1.hsaco ]
  # a window starting at the target is fine
  run hsaco-patch k.hsaco --window layer_norm_fwd_kernel:0x188-0x190 --with edit.s -o k1.hsaco
  assert_success
}

@test "a window hiding the kernarg-preload entry point is refused" {
  cp "$TRITON/gfx90a/vector_add_fp32.hsaco" k.hsaco
  hsaco-patch k.hsaco --window add_kernel:0+0x210 --extract > w.s
  run hsaco-patch k.hsaco --window add_kernel:0+0x210 --with w.s -o k1.hsaco
  assert_failure 1
  assert_output "hsaco-patch: refused: 'k.hsaco'@0x700: the kernarg-preload entry point 0x1700 (add_kernel+0x100) lies inside the window"
}

@test "a replacement that needs more registers is refused" {
  cp "$TRITON/gfx942/softmax_fp32.hsaco" k.hsaco
  printf '\tv_mov_b32 v40, 0\n' > edit.s
  run hsaco-patch k.hsaco --window softmax_kernel:0x100-0x108 --with edit.s -o k1.hsaco
  assert_failure 1
  assert_output "hsaco-patch: refused: 'k.hsaco'@0x800: kernel softmax_kernel would need 41 VGPRs, it has 14"
  [ ! -e k1.hsaco ]
  printf '\ts_mov_b32 s40, 0\n' > edit.s
  run hsaco-patch k.hsaco --window softmax_kernel:0x100-0x108 --with edit.s -o k1.hsaco
  assert_failure 1
  assert_output "hsaco-patch: refused: 'k.hsaco'@0x800: kernel softmax_kernel would need 47 SGPRs, it has 30"
  # the registers the kernel already uses are fine
  printf '\tv_mov_b32 v13, 0\n\ts_mov_b32 s23, 0\n' > edit.s
  run hsaco-patch k.hsaco --window softmax_kernel:0x100-0x108 --with edit.s -o k1.hsaco
  assert_success
}

@test "device functions: split s_getpc_b64 computations and callers' registers" {
  build_call_kernel k.hsaco
  # helper: s_getpc_b64 at +0xc, s_add_u32 at +0x10, s_addc_u32 at +0x18
  objdump -d --mcpu=gfx942 k.hsaco | grep -q 's_getpc_b64 s\[0:1\] .*// 00000000160C:'
  printf '\ts_nop 0\n' > edit.s
  run hsaco-patch k.hsaco --window helper:0x10-0x20 --with edit.s -o k1.hsaco
  assert_failure 1
  assert_output "hsaco-patch: refused: 'k.hsaco'@0x60c: the window splits the s_getpc_b64 address computation at 0x160C (helper+0xC): s_add_u32 at 0x1610, s_addc_u32 at 0x1618"
  # the whole computation is inside: it round-trips
  round_trip k.hsaco helper:0x4-0x20
  grep -q '^	s_getpc_b64 s\[0:1\]$' w.s
  # registers of a device function count for the kernels that call it
  printf '\tv_mov_b32 v20, 0\n' > edit.s
  run hsaco-patch k.hsaco --window helper:0x4+4 --with edit.s -o k1.hsaco
  assert_failure 1
  assert_output "hsaco-patch: refused: 'k.hsaco'@0x604: kernel add would need 21 VGPRs, it has 6"
}

@test "an s_getpc_b64 computation that targets the window's interior is refused" {
  cat > k.s <<'SRC'
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl	k
	.p2align	8
	.type	k,@function
k:
	s_getpc_b64 s[0:1]
.Lpc:
	s_add_u32 s0, s0, .Ltgt-.Lpc
	s_addc_u32 s1, s1, lit(0)
	s_nop 0
	s_nop 0
.Ltgt:
	s_nop 0
	s_endpgm
.Lend:
	.size	k, .Lend-k
	.rodata
	.p2align	6
	.amdhsa_kernel k
	.amdhsa_next_free_vgpr 1
	.amdhsa_next_free_sgpr 2
	.amdhsa_accum_offset 4
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 0
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .kernarg_segment_align: 4
    .wavefront_size: 64
    .sgpr_count: 2
    .vgpr_count: 1
    .max_flat_workgroup_size: 256
amdhsa.version: [1, 2]
...
	.end_amdgpu_metadata
SRC
  "$ASMEVO_LLVM_BINDIR/llvm-mc" -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj k.s -o k.o
  "$ASMEVO_LLVM_BINDIR/ld.lld" -shared k.o -o k.hsaco
  printf '\ts_nop 0\n' > edit.s
  run hsaco-patch k.hsaco --window k:0x14-0x20 --with edit.s -o k1.hsaco
  assert_failure 1
  assert_output "hsaco-patch: refused: 'k.hsaco'@0x400: the s_getpc_b64 address computation at 0x1400 (k+0x0) targets 0x141C (k+0x1C), inside the window"
  # starting at the target is fine
  run hsaco-patch k.hsaco --window k:0x1c-0x20 --with edit.s -o k1.hsaco
  assert_success
  cmp k.hsaco k1.hsaco
}

@test "a snippet that needs linking or has data is refused" {
  cp "$TRITON/gfx942/softmax_fp32.hsaco" k.hsaco
  printf '\ts_add_u32 s0, s0, foo@rel32@lo\n' > edit.s
  run hsaco-patch k.hsaco --window softmax_kernel:0x100-0x110 --with edit.s -o k1.hsaco
  assert_failure 1
  assert_output "hsaco-patch: refused: 'edit.s': the snippet refers to 'foo' outside itself (a relocation at +0x4); a patch cannot be linked"
  printf '\ts_nop 0\n\t.data\n\t.long 5\n' > edit.s
  run hsaco-patch k.hsaco --window softmax_kernel:0x100-0x110 --with edit.s -o k1.hsaco
  assert_failure 1
  assert_output "hsaco-patch: refused: 'edit.s': the snippet puts 4 bytes into section .data; only instructions (in .text) can be patched in"
  [ ! -e k1.hsaco ]
}

@test "assembler errors name the snippet and its line" {
  cp "$TRITON/gfx942/softmax_fp32.hsaco" k.hsaco
  printf '; a comment\n\ts_nop 0\n\tv_bogus v1\n' > edit.s
  run hsaco-patch k.hsaco --window softmax_kernel:0x100-0x110 --with edit.s -o k1.hsaco
  assert_failure 2
  assert_output "hsaco-patch: error: 'edit.s':3: invalid instruction: 'v_bogus v1'"
  printf '\ts_branch .Lnowhere\n' > edit.s
  run hsaco-patch k.hsaco --window softmax_kernel:0x100-0x110 --with edit.s -o k1.hsaco
  assert_failure 2
  assert_output "hsaco-patch: error: 'edit.s':1: undefined label '.Lnowhere': 's_branch .Lnowhere'"
  [ ! -e k1.hsaco ]
}

@test "--extract refuses a branch out of the window" {
  cp "$TRITON/gfx942/softmax_fp32.hsaco" k.hsaco
  run hsaco-patch k.hsaco --window softmax_kernel:0x10-0x20 --extract -o w.s
  assert_failure 1
  assert_output "hsaco-patch: refused: 'k.hsaco'@0x71c: branch at 0x171C (softmax_kernel+0x1C) targets 0x1800 (softmax_kernel+0x100), outside the window: a snippet cannot name it"
  [ ! -e w.s ]
}

@test "bad windows are input errors" {
  cp "$TRITON/gfx942/softmax_fp32.hsaco" k.hsaco
  printf '\ts_nop 0\n' > edit.s
  run hsaco-patch k.hsaco --window softmax_kernel:0x100 --with edit.s -o k1.hsaco
  assert_failure 2
  assert_line --index 0 "hsaco-patch: error: bad window 'softmax_kernel:0x100': expected KERNEL:START-END or KERNEL:START+LENGTH (byte offsets from the symbol, 0x... or decimal)"
  run hsaco-patch k.hsaco --window softmax_kernel:0x1g-0x20 --with edit.s -o k1.hsaco
  assert_failure 2
  assert_line --index 0 "hsaco-patch: error: bad window 'softmax_kernel:0x1g-0x20': expected KERNEL:START-END or KERNEL:START+LENGTH (byte offsets from the symbol, 0x... or decimal)"
  run hsaco-patch k.hsaco --window softmax_kernel:0x108-0x100 --with edit.s -o k1.hsaco
  assert_failure 2
  assert_line --index 0 "hsaco-patch: error: empty window 'softmax_kernel:0x108-0x100': the end must lie after the start"
  run hsaco-patch k.hsaco --window nope:0x100-0x108 --with edit.s -o k1.hsaco
  assert_failure 2
  assert_output "hsaco-patch: error: 'k.hsaco': no kernel or function named 'nope'"
  run hsaco-patch k.hsaco --window softmax_kernel:0x102-0x108 --with edit.s -o k1.hsaco
  assert_failure 2
  assert_output "hsaco-patch: error: 'k.hsaco'@0x802: window start softmax_kernel+0x102 is not an instruction boundary (it is inside the 4-byte instruction at softmax_kernel+0x100)"
  run hsaco-patch k.hsaco --window softmax_kernel:0x100-0x134 --with edit.s -o k1.hsaco
  assert_failure 2
  assert_output "hsaco-patch: error: 'k.hsaco'@0x834: window end softmax_kernel+0x134 is not an instruction boundary (it is inside the 8-byte instruction at softmax_kernel+0x130)"
  run hsaco-patch k.hsaco --window softmax_kernel:0x100+0x10000 --with edit.s -o k1.hsaco
  assert_failure 2
  assert_output "hsaco-patch: error: 'k.hsaco'@0x700: window softmax_kernel:0x100-0x10100 ends past the end of softmax_kernel (1764 bytes)"
  [ ! -e k1.hsaco ]
}

@test "usage errors" {
  cp "$TRITON/gfx942/softmax_fp32.hsaco" k.hsaco
  printf '\ts_nop 0\n' > edit.s
  run hsaco-patch
  assert_failure 2
  assert_line --index 0 'hsaco-patch: error: no input file'
  run hsaco-patch k.hsaco --with edit.s -o k1.hsaco
  assert_failure 2
  assert_line --index 0 'hsaco-patch: error: --window is required'
  # the binary goes to stdout only when asked for
  run hsaco-patch k.hsaco --window softmax_kernel:0x100+8 --with edit.s
  assert_failure 2
  assert_line --index 0 'hsaco-patch: error: give -o FILE (or -o - for stdout) or --in-place'
  run hsaco-patch k.hsaco --window softmax_kernel:0x100+8
  assert_failure 2
  assert_line --index 0 'hsaco-patch: error: give --with EDIT.s (or --extract)'
  run hsaco-patch k.hsaco --window softmax_kernel:0x100+8 --with edit.s --extract
  assert_failure 2
  assert_line --index 0 'hsaco-patch: error: --extract and --with cannot be combined'
  run hsaco-patch k.hsaco --window softmax_kernel:0x100+8 --with edit.s --in-place -o k1.hsaco
  assert_failure 2
  assert_line --index 0 'hsaco-patch: error: --in-place and -o cannot be combined'
  run hsaco-patch k.hsaco --window softmax_kernel:0x100+8 --with missing.s -o k1.hsaco
  assert_failure 2
  assert_output "hsaco-patch: error: 'missing.s': cannot read: No such file or directory"
  [ ! -e k1.hsaco ]
}

@test "-o - writes the patched object to stdout" {
  cp "$TRITON/gfx942/softmax_fp32.hsaco" k.hsaco
  printf '\ts_nop 0\n' > edit.s
  hsaco-patch k.hsaco --window softmax_kernel:0x100+8 --with edit.s -o k1.hsaco
  hsaco-patch k.hsaco --window softmax_kernel:0x100+8 --with edit.s -o - > k2.hsaco
  cmp k1.hsaco k2.hsaco
}

@test "--in-place modifies the input only with the flag" {
  cp "$TRITON/gfx950/softmax_fp32.hsaco" k.hsaco
  chmod 640 k.hsaco
  before=$(sha256sum k.hsaco | cut -d' ' -f1)
  printf '\ts_nop 0\n' > edit.s
  hsaco-patch k.hsaco --window softmax_kernel:0x100+8 --with edit.s -o k1.hsaco
  [ "$(sha256sum k.hsaco | cut -d' ' -f1)" = "$before" ]
  run cmp -s k.hsaco k1.hsaco
  assert_failure
  # a refused patch leaves the input alone too
  printf '\tv_mov_b32 v200, 0\n' > big.s
  run hsaco-patch k.hsaco --window softmax_kernel:0x100+8 --with big.s --in-place
  assert_failure 1
  [ "$(sha256sum k.hsaco | cut -d' ' -f1)" = "$before" ]
  hsaco-patch k.hsaco --window softmax_kernel:0x100+8 --with edit.s --in-place
  [ "$(sha256sum k.hsaco | cut -d' ' -f1)" != "$before" ]
  cmp k.hsaco k1.hsaco
  [ "$(stat -c %a k.hsaco)" = 640 ]
  [ -z "$(ls -A | grep '\.tmp')" ]
}
