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
    run --separate-stderr hsaco-rebuild k.s -o k.hsaco --abi-of "$TRITON/$k.hsaco" --json
    assert_report hsaco-rebuild ok 0
    python3 -c 'import json; j = json.load(open("report.json")); assert j["body"]["assemblies"] == 1, j'
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
hsaco-rebuild: kernel softmax_kernel: .sgpr_count 30 -> 97
hsaco-rebuild: kernel softmax_kernel: occupancy 2 waves/SIMD, limited by VGPRs (208 per wave of 512), was 8 waves/SIMD, limited by wave slots (8 per SIMD)"
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

@test "a hand-written object rebuilds unchanged: its declared resources are kept" {
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  hsaco-recover hw.hsaco -o k.s
  run hsaco-rebuild k.s -o k.hsaco --abi-of hw.hsaco
  assert_success
  assert_output ""
  run hsaco-recover --check --against k.hsaco hw.hsaco
  assert_success
  # 64 VGPRs and 32 SGPRs declared for code that uses 4 and 13: kept ("fits").
  run hsaco-rebuild --resources k.hsaco
  assert_success
  assert_line "fits k.hsaco hw_copy: vgpr 4/64 agpr 0/-1 sgpr 19/38 granules v0/7 s2/4 (scan incomplete: indirect indexing or calls); occupancy 8 waves/SIMD, limited by wave slots (8 per SIMD)"
  grep -q $'^\t\t\\.amdhsa_next_free_vgpr 64$' <(hsaco-recover k.hsaco)
}

@test "--shrink-resources lowers counts only where the scan is complete" {
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  hsaco-recover hw.hsaco -o k.s
  run hsaco-rebuild k.s -o k.hsaco --abi-of hw.hsaco --shrink-resources
  assert_success
  # hw_copy reads s9 through M0 (s_movrels_b32): what it touches is not in its instructions.
  assert_line "hsaco-rebuild: kernel hw_copy: registers are indexed indirectly (s_set_gpr_idx, movrel): resources not shrunk"
  assert_line "hsaco-rebuild: kernel hw_lds: .amdhsa_next_free_vgpr 64 -> 3"
  assert_line "hsaco-rebuild: kernel hw_lds: .amdhsa_accum_offset 64 -> 4"
  ! echo "$output" | grep -q "kernel hw_copy: \.amdhsa"
  run hsaco-rebuild --resources k.hsaco
  assert_line --regexp "^exact k.hsaco hw_lds: vgpr 3/3 "
}

@test "fewer registers allocated than the code uses: --check-abi refuses it, a rebuild raises them" {
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  # The candidate uses v40 and allocates 8 VGPRs (built with the stock tools).
  handwritten v40 > k1.s
  assemble k1.s k1.hsaco gfx942
  run hsaco-rebuild --check-abi hw.hsaco k1.hsaco
  assert_failure 1
  assert_output "hsaco-rebuild: abi_invalid: kernel hw_copy: compute_pgm_rsrc1.granulated_workitem_vgpr_count: the code uses v40; the descriptor allocates 8 VGPRs with accum_offset 8: v0-v7"
  run hsaco-rebuild --resources k1.hsaco
  assert_failure 1
  assert_line --regexp "^EXCEEDS k1.hsaco hw_copy: "
  # hsaco-rebuild sees what the code needs and raises the allocation to it.
  run hsaco-rebuild k1.s -o k2.hsaco --abi-of hw.hsaco
  assert_success
  assert_line "hsaco-rebuild: kernel hw_copy: .amdhsa_next_free_vgpr 8 -> 44"
  assert_line "hsaco-rebuild: kernel hw_copy: .amdhsa_accum_offset 8 -> 44"
  run hsaco-rebuild --check-abi hw.hsaco k2.hsaco
  assert_success
}

@test "registers a 1024-work-item workgroup cannot have are abi_invalid, naming the limit" {
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  hsaco-recover hw.hsaco -o k.s
  # hw_copy declares .max_flat_workgroup_size 1024: 16 waves, 4 per SIMD, 128 VGPRs each.
  for edit in 'v_mov_b32_e32 v200, 0' 'v_mov_b32_e32 v255, 0;v_accvgpr_write_b32 a255, 0'; do
    awk -v e="$edit" '{print} /^hw_copy:$/ {n = split(e, L, ";"); for (i = 1; i <= n; i++) print "\t" L[i]}' k.s > e.s
    run hsaco-rebuild e.s -o e.hsaco --abi-of hw.hsaco
    assert_failure 1
    [ ! -e e.hsaco ]
  done
  assert_line "hsaco-rebuild: abi_invalid: kernel hw_copy: compute_pgm_rsrc1.granulated_workitem_vgpr_count: allocates 512 VGPRs per wave; a 1024-work-item workgroup (.max_flat_workgroup_size) puts 4 waves on each SIMD, which leaves 128 VGPRs per wave on gfx942"
  awk '{print} /^hw_copy:$/ {print "\tv_mov_b32_e32 v200, 0"}' k.s > e.s
  run hsaco-rebuild e.s -o e.hsaco --abi-of hw.hsaco
  assert_output --partial "hsaco-rebuild: abi_invalid: kernel hw_copy: compute_pgm_rsrc1.granulated_workitem_vgpr_count: allocates 208 VGPRs per wave; a 1024-work-item workgroup"
  # The same candidate built by the stock tools: --check-abi refuses it too.
  sed 's/\.amdhsa_next_free_vgpr 64/.amdhsa_next_free_vgpr 208/; s/\.amdhsa_accum_offset 64/.amdhsa_accum_offset 204/' e.s > s.s
  assemble s.s s.hsaco gfx942
  run hsaco-rebuild --check-abi hw.hsaco s.hsaco
  assert_failure 1
  assert_output --partial "allocates 208 VGPRs per wave; a 1024-work-item workgroup (.max_flat_workgroup_size) puts 4 waves on each SIMD, which leaves 128 VGPRs per wave on gfx942"
}

@test "more LDS than the target has is abi_invalid" {
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  hsaco-recover hw.hsaco -o k.s
  awk '/\.amdhsa_kernel hw_copy/ {k = 1} k && /\.amdhsa_group_segment_fixed_size/ {sub(/[0-9]+$/, "200000"); k = 0} {print}' k.s > e.s
  ! cmp -s k.s e.s
  run hsaco-rebuild e.s -o e.hsaco --abi-of hw.hsaco
  assert_failure 1
  assert_output "hsaco-rebuild: abi_invalid: kernel hw_copy: group_segment_fixed_size: 200000 bytes of LDS; gfx942 has 65536 per workgroup"
  [ ! -e e.hsaco ]
  # gfx950 has 160 KiB: 200000 bytes do not fit there either, 100000 do.
  sed 's/gfx942/gfx950/g' e.s > e950.s
  run hsaco-rebuild e950.s -o e950.hsaco
  assert_failure 1
  assert_output "hsaco-rebuild: abi_invalid: kernel hw_copy: group_segment_fixed_size: 200000 bytes of LDS; gfx950 has 163840 per workgroup"
  sed 's/200000$/100000/' e950.s > f950.s
  run hsaco-rebuild f950.s -o f950.hsaco -q
  assert_success
}

@test "a descriptor kernarg_size the metadata contradicts is abi_invalid" {
  handwritten kernarg > k.s
  run hsaco-rebuild k.s -o k.hsaco
  assert_failure 1
  assert_output "hsaco-rebuild: abi_invalid: kernel hw_copy: kernarg_size: 4294967280 in the descriptor, 24 in the metadata (.kernarg_segment_size)"
  [ ! -e k.hsaco ]
}
