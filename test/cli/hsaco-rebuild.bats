#!/usr/bin/env bats
# CLI tests for hsaco-rebuild: unchanged rebuilds are identical, edits update resources the way
# llvm-mc computes them, ABI changes are refused with the field named.

load test_helper

mc() { "$ASMEVO_LLVM_BINDIR/llvm-mc" -triple=amdgcn-amd-amdhsa "$@"; }

# Insert lines after the first s_waitcnt of the kernel body (after a kernarg-preload prologue).
insert_in_body() {
  awk -v ins="$2" '/end of the kernarg-preload/ {body=1} (body || !pre) && !done && /s_waitcnt/ {print; n=split(ins, L, ";"); for (i=1;i<=n;i++) print "\t" L[i]; done=1; next} {print}' pre="$(grep -c 'end of the kernarg-preload' "$1")" "$1"
}

@test "--help and the man page document the same options" {
  assert_help_matches_man hsaco-rebuild
}

@test "an unchanged recovered file rebuilds to the original, with one assembly" {
  for k in gfx90a/matmul_fp16 gfx942/flash_attn_fwd_fp16 gfx950/layernorm_fwd_fp16; do
    hsaco-recover "$TRITON/$k.hsaco" -o k.s
    run hsaco-rebuild k.s -o k.hsaco --abi-of "$TRITON/$k.hsaco" --json
    assert_success
    echo "$output" | grep -q '"assemblies": 1'
    echo "$output" | grep -q '"outcome": "ok"'
    hsaco-recover --check -q --against k.hsaco "$TRITON/$k.hsaco"
  done
}

@test "an assembly file whose size is a multiple of the page size (mapped, no NUL after it)" {
  hsaco-recover "$TRITON/gfx942/vector_add_fp32.hsaco" -o k.s
  size=$(stat -c %s k.s)
  target=$(( (size / 4096 + 1280) * 4096 ))
  { cat k.s; head -c $(( target - size - 1 )) /dev/zero | tr '\0' ';'; printf '\n'; } > p.s
  [ "$(stat -c %s p.s)" -eq "$target" ]
  run hsaco-rebuild p.s -o p.hsaco --abi-of "$TRITON/gfx942/vector_add_fp32.hsaco"
  assert_success
  hsaco-recover --check -q --against p.hsaco "$TRITON/gfx942/vector_add_fp32.hsaco"
}

@test "raising register use updates granules and metadata as llvm-mc computes them" {
  hsaco-recover "$TRITON/gfx942/softmax_fp32.hsaco" -o k.s
  insert_in_body k.s 'v_mov_b32 v200, 0;s_mov_b32 s90, 0;v_accvgpr_write_b32 a3, 0' > e.s
  run hsaco-rebuild e.s -o e.hsaco --abi-of "$TRITON/gfx942/softmax_fp32.hsaco"
  assert_success
  assert_output "hsaco-rebuild: kernel softmax_kernel: .amdhsa_next_free_vgpr 16 -> 208
hsaco-rebuild: kernel softmax_kernel: .amdhsa_next_free_sgpr 26 -> 91
hsaco-rebuild: kernel softmax_kernel: .amdhsa_accum_offset 16 -> 204
hsaco-rebuild: kernel softmax_kernel: .vgpr_count 14 -> 208
hsaco-rebuild: kernel softmax_kernel: .agpr_count 0 -> 4
hsaco-rebuild: kernel softmax_kernel: .sgpr_count 30 -> 97"
  # The independent route: the highest register of each kind found in the text by a regular
  # expression, written into the directives, assembled by the stock llvm-mc.
  code=$(sed -n '/^softmax_kernel:/,/^\.Lfunc_end/p' e.s)
  maxv=$(echo "$code" | grep -oE '\bv(\[[0-9]+:)?[0-9]+\]?' | grep -oE '[0-9]+\]?$' | tr -d ']' | sort -n | tail -1)
  maxs=$(echo "$code" | grep -oE '\bs(\[[0-9]+:)?[0-9]+\]?' | grep -oE '[0-9]+\]?$' | tr -d ']' | sort -n | tail -1)
  maxa=$(echo "$code" | grep -oE '\ba(\[[0-9]+:)?[0-9]+\]?' | grep -oE '[0-9]+\]?$' | tr -d ']' | sort -n | tail -1)
  vcc=0; echo "$code" | grep -qw vcc && vcc=1
  accum=$(( (maxv + 1 + 3) / 4 * 4 ))
  total=$(( accum + maxa + 1 ))
  sed -e "s/\.amdhsa_next_free_vgpr .*/.amdhsa_next_free_vgpr $total/" \
      -e "s/\.amdhsa_next_free_sgpr .*/.amdhsa_next_free_sgpr $((maxs + 1))/" \
      -e "s/\.amdhsa_accum_offset .*/.amdhsa_accum_offset $accum/" \
      -e "s/\.amdhsa_reserve_vcc .*/.amdhsa_reserve_vcc $vcc/" e.s > ref.s
  mc -mcpu=gfx942 -filetype=obj ref.s -o ref.o
  "$ASMEVO_LLVM_BINDIR/ld.lld" -shared ref.o -o ref.hsaco
  # same descriptor bytes (the metadata of ref.hsaco still has the old counts)
  diff <(hsaco-recover e.hsaco | sed -n '/\.amdhsa_kernel/,/\.end_amdhsa_kernel/p') \
       <(hsaco-recover ref.hsaco | sed -n '/\.amdhsa_kernel/,/\.end_amdhsa_kernel/p')
  run hsaco-rebuild --resources e.hsaco
  assert_success
}

@test "inserted s_nop blocks shift code and keep every branch target (checked by decoding)" {
  hsaco-recover "$TRITON/gfx90a/matmul_fp16_ns2.hsaco" -o k.s
  insert_in_body k.s 's_nop 0;s_nop 1;s_nop 2;s_nop 3' > e.s
  run hsaco-rebuild e.s -o e.hsaco --abi-of "$TRITON/gfx90a/matmul_fp16_ns2.hsaco"
  assert_success
  assert_output ""
  hsaco-recover e.hsaco -o e2.s
  diff <(grep -E '^\s(s_cbranch|s_branch)|^\.LBB' e.s) <(grep -E '^\s(s_cbranch|s_branch)|^\.LBB' e2.s)
  size() { "$ASMEVO_LLVM_BINDIR/llvm-readelf" -s "$1" | awk '$8 == "matmul_kernel" {print $3; exit}'; }
  [ $(( $(size e.hsaco) - $(size "$TRITON/gfx90a/matmul_fp16_ns2.hsaco") )) -eq 16 ]
}

@test "a changed kernarg size is abi_invalid, and nothing is written" {
  hsaco-recover "$TRITON/gfx942/vector_add_fp32.hsaco" -o k.s
  sed 's/\.amdhsa_kernarg_size \([0-9]*\)/.amdhsa_kernarg_size 128/' k.s > e.s
  run hsaco-rebuild e.s -o e.hsaco --abi-of "$TRITON/gfx942/vector_add_fp32.hsaco"
  assert_failure 1
  assert_output --partial "hsaco-rebuild: abi_invalid: kernel add_kernel: kernarg_size: "
  assert_output --partial " here"
  [ ! -e e.hsaco ]
}

@test "a changed launch semantic names the descriptor field" {
  hsaco-recover "$TRITON/gfx90a/softmax_fp32.hsaco" -o k.s
  sed 's/\.amdhsa_system_sgpr_workgroup_id_y 0/.amdhsa_system_sgpr_workgroup_id_y 1/' k.s > e.s
  run hsaco-rebuild e.s -o e.hsaco --abi-of "$TRITON/gfx90a/softmax_fp32.hsaco"
  assert_failure 1
  assert_output "hsaco-rebuild: abi_invalid: kernel softmax_kernel: compute_pgm_rsrc2.enable_sgpr_workgroup_id_y: 0 in K0, 1 here"
}

@test "a changed kernel argument names .args" {
  hsaco-recover "$TRITON/gfx950/vector_add_fp32.hsaco" -o k.s
  awk '!d && /\x27.value_kind\x27: \x27global_buffer\x27/ {sub(/global_buffer/, "by_value"); d=1} {print}' k.s > e.s
  ! cmp -s k.s e.s
  run hsaco-rebuild e.s -o e.hsaco --abi-of "$TRITON/gfx950/vector_add_fp32.hsaco"
  assert_failure 1
  assert_output --regexp "^hsaco-rebuild: abi_invalid: kernel add_kernel: \.args: \[0\]\.value_kind: \"global_buffer\" vs \"by_value\"$"
}

@test "--check-abi compares two objects" {
  run hsaco-rebuild --check-abi "$TRITON/gfx942/matmul_fp16.hsaco" "$TRITON/gfx942/matmul_fp16.hsaco"
  assert_success
  assert_output "$TRITON/gfx942/matmul_fp16.hsaco: ABI of $TRITON/gfx942/matmul_fp16.hsaco kept, resources consistent"
  # same argument list, different element types: metadata cannot tell them apart
  run hsaco-rebuild --check-abi "$TRITON/gfx942/matmul_fp16.hsaco" "$TRITON/gfx942/matmul_bf16.hsaco"
  assert_success
  run hsaco-rebuild --check-abi "$TRITON/gfx942/vector_add_fp32.hsaco" "$TRITON/gfx942/softmax_fp32.hsaco"
  assert_failure 1
  assert_line "hsaco-rebuild: abi_invalid: symbol add_kernel: exported by K0, missing here"
  assert_line "hsaco-rebuild: abi_invalid: kernel add_kernel: kernel: missing"
  run hsaco-rebuild --check-abi "$TRITON/gfx942/matmul_fp16.hsaco" "$TRITON/gfx90a/matmul_fp16.hsaco"
  assert_failure 1
  assert_line "hsaco-rebuild: abi_invalid: e_flags: 0x54C in K0, 0x53F here (amdgcn-amd-amdhsa--gfx942 vs amdgcn-amd-amdhsa--gfx90a)"
}

@test "bad input: no target directive, assembler errors, missing output" {
  printf '\t.text\n\ts_endpgm\n' > t.s
  run hsaco-rebuild t.s -o t.hsaco
  assert_failure 2
  assert_output "hsaco-rebuild: error: 't.s': no .amdgcn_target directive: the target is unknown"
  hsaco-recover "$TRITON/gfx942/vector_add_fp32.hsaco" -o k.s
  insert_in_body k.s 'v_bogus_op v1, v2' > e.s
  line=$(grep -n 'v_bogus_op' e.s | cut -d: -f1)
  run hsaco-rebuild e.s -o e.hsaco
  assert_failure 2
  assert_output "hsaco-rebuild: error: 'e.s':$line: invalid instruction: 'v_bogus_op v1, v2'"
  [ ! -e e.hsaco ]
  run hsaco-rebuild k.s
  assert_failure 2
  assert_line --index 0 "hsaco-rebuild: error: no output file (-o)"
}
