#!/usr/bin/env bats
# CLI tests for hsaco-recover: exact messages and exit codes, on real code objects.

load test_helper

@test "--help and the man page document the same options" {
  assert_help_matches_man hsaco-recover
}

@test "--version names the LLVM version" {
  run hsaco-recover --version
  assert_success
  assert_output --regexp '^hsaco-recover \(AsmEvo\) 0\.1\.0, LLVM [0-9]+\.'
}

@test "recovered assembly has the self-describing header and reassembles with the stock tools" {
  run hsaco-recover "$TRITON/gfx942/matmul_fp16.hsaco" -o k.s
  assert_success
  run head -4 k.s
  assert_line --index 0 '; asmevo-recovered-asm v1'
  assert_line --index 1 "; source: $TRITON/gfx942/matmul_fp16.hsaco"
  assert_line --index 2 "; sha256: $(sha256sum "$TRITON/gfx942/matmul_fp16.hsaco" | cut -d' ' -f1)"
  assert_line --index 3 '; target: amdgcn-amd-amdhsa--gfx942 (code object v5, e_flags 0x54C)'
  grep -q '^	.amdhsa_kernel matmul_kernel$' k.s
  grep -q 'v_mfma_f32_32x32x8_f16' k.s
  # branches are labels, not offsets
  ! grep -E '^	s_(cbranch_[a-z0-9]+|branch) [0-9-]+$' k.s
  "$ASMEVO_LLVM_BINDIR/llvm-mc" -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj k.s -o k.o
  "$ASMEVO_LLVM_BINDIR/ld.lld" -shared k.o -o k.hsaco
  run hsaco-recover --check --against k.hsaco "$TRITON/gfx942/matmul_fp16.hsaco"
  assert_success
  assert_line --regexp '^PASS kernel matmul_kernel \([0-9]+ bytes\)$'
  assert_line 'PASS data .rodata'
}

@test "--check passes and reports every item, kernels with the bytes compared" {
  # the kernel's size as the symbol table gives it (Triton objects have .size)
  size=$("$ASMEVO_LLVM_BINDIR/llvm-readelf" -s "$TRITON/gfx90a/softmax_fp32.hsaco" | awk '$8 == "softmax_kernel" && $4 == "FUNC" {print $3; exit}')
  [ "$size" -gt 0 ]
  run hsaco-recover --check "$TRITON/gfx90a/softmax_fp32.hsaco"
  assert_success
  assert_output "PASS target amdgcn-amd-amdhsa--gfx90a
PASS kernel softmax_kernel ($size bytes)
PASS data .rodata
PASS section .text
PASS symbols dynamic
PASS metadata note
$TRITON/gfx90a/softmax_fp32.hsaco: 1/1 kernels pass"
}

@test "--check --json is machine-readable" {
  run --separate-stderr hsaco-recover --check --json "$TRITON/gfx950/vector_add_fp32.hsaco"
  assert_report hsaco-recover ok 0
  python3 -c 'import json; j = json.load(open("report.json")); assert j["body"]["kernels_passed"] == 1 and j["body"]["results"][0]["pass"], j'
}

@test "an edited instruction is found by --against with its offset and instruction" {
  hsaco-recover "$TRITON/gfx942/vector_add_fp32.hsaco" -o k.s
  sed -i '0,/v_add_f32_e32/s/v_add_f32_e32/v_sub_f32_e32/' k.s
  "$ASMEVO_LLVM_BINDIR/llvm-mc" -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj k.s -o k.o
  "$ASMEVO_LLVM_BINDIR/ld.lld" -shared k.o -o k.hsaco
  run hsaco-recover --check --against k.hsaco "$TRITON/gfx942/vector_add_fp32.hsaco"
  assert_failure 1
  assert_line --regexp '^FAIL kernel add_kernel \([0-9]+ bytes\): instruction bytes differ \(0x[0-9A-F]+ vs 0x[0-9A-F]+\) at \+0x[0-9A-F]+ \(0x[0-9A-F]+\): v_add_f32_e32 .* vs v_sub_f32_e32 .*$'
}

@test "an inserted instruction block keeps every branch right (checked by decoding)" {
  hsaco-recover "$TRITON/gfx90a/softmax_fp32.hsaco" -o k.s
  # insert 8 s_nop after the first s_waitcnt of the kernel body (after the kernarg-preload
  # prologue): everything after it moves
  awk '/end of the kernarg-preload/ {body=1} body && !done && /s_waitcnt/ {print; for (i=0;i<8;i++) print "\ts_nop 0"; done=1; next} {print}' k.s > e.s
  [ "$(wc -l < e.s)" -eq $(( $(wc -l < k.s) + 8 )) ]
  "$ASMEVO_LLVM_BINDIR/llvm-mc" -triple=amdgcn-amd-amdhsa -mcpu=gfx90a -filetype=obj e.s -o e.o
  "$ASMEVO_LLVM_BINDIR/ld.lld" -shared e.o -o e.hsaco
  # recover the edited object again: same labels in the same order as the edited source
  hsaco-recover e.hsaco -o e2.s
  diff <(grep -oE '(s_cbranch_[a-z0-9]+|s_branch) \.LBB[0-9]+' e.s) \
       <(grep -oE '(s_cbranch_[a-z0-9]+|s_branch) \.LBB[0-9]+' e2.s)
  diff <(grep -cE '^\.LBB[0-9]+:' e.s) <(grep -cE '^\.LBB[0-9]+:' e2.s)
}

@test "an edit that moves the body of a kernarg-preload kernel is refused by the assembler" {
  hsaco-recover "$TRITON/gfx942/softmax_fp32.hsaco" -o k.s
  awk '!done && /s_waitcnt/ {print; print "\ts_nop 0"; done=1; next} {print}' k.s > e.s
  run "$ASMEVO_LLVM_BINDIR/llvm-mc" -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj e.s -o e.o
  assert_failure
  assert_line --partial 'error: kernarg preload: the kernel body must start 256 bytes after softmax_kernel'
}

@test "code inserted between s_getpc_b64 and its adds keeps the PC-relative targets" {
  build_call_kernel k.hsaco
  run hsaco-recover --check -q k.hsaco
  assert_success
  hsaco-recover k.hsaco -o k.s
  grep -q 'tab@rel32@lo+(.+4-.Lpc[0-9]*)' k.s
  grep -q 'helper@rel32@lo+(.+4-.Lpc[0-9]*)' k.s
  awk '/^\.Lpc[0-9]+:$/ {print; print "\ts_nop 0"; next} {print}' k.s > e.s
  "$ASMEVO_LLVM_BINDIR/llvm-mc" -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj e.s -o e.o
  "$ASMEVO_LLVM_BINDIR/ld.lld" -shared e.o -o e.hsaco
  # decoded again, the literals sit 4 bytes further from s_getpc_b64 and still reach tab and
  # helper (a stale addend would reach 4 bytes before them: no symbol, no match)
  run hsaco-recover e.hsaco
  assert_success
  assert_line --regexp $'^\ts_add_u32 s[0-9]+, s[0-9]+, tab@rel32@lo\+\(\.\+4-\.Lpc[0-9]+\)$'
  assert_line --regexp $'^\ts_add_u32 s[0-9]+, s[0-9]+, helper@rel32@lo\+\(\.\+4-\.Lpc[0-9]+\)$'
  "$ASMEVO_LLVM_BINDIR/llvm-objdump" -d --mcpu=gfx942 e.hsaco | grep -A2 s_getpc_b64 | grep -q 's_nop 0'
}

@test "no input is a usage error" {
  run hsaco-recover
  assert_failure 2
  assert_line --index 0 'hsaco-recover: error: no input file'
}

@test "a missing file names the file" {
  run hsaco-recover nope.hsaco -o out.s
  assert_failure 2
  assert_output "hsaco-recover: error: 'nope.hsaco': cannot read: No such file or directory"
  [ ! -e out.s ]
}

@test "garbage is not an ELF file, and no output is written" {
  head -c 300 /dev/urandom | tr '\177' 'x' > garbage.bin
  run hsaco-recover garbage.bin -o out.s
  assert_failure 2
  assert_output "hsaco-recover: error: 'garbage.bin'@0x0: no AMDGPU code object found (not an AMDGPU ELF file, and no offload bundle or embedded code object inside)"
  [ ! -e out.s ]
}

@test "a truncated code object names the offset" {
  head -c 1000 "$TRITON/gfx942/vector_add_fp32.hsaco" > trunc.hsaco
  run hsaco-recover trunc.hsaco -o out.s
  assert_failure 2
  assert_output --regexp "^hsaco-recover: error: 'trunc.hsaco'@0x[0-9a-f]+: section header table extends past the end of the file \(1000 bytes\)$"
  [ ! -e out.s ]
}

@test "a host ELF is not an AMDGPU code object" {
  run hsaco-recover --check "file://$(command -v bash)#offset=0&size=0"
  assert_failure 2
  assert_output "hsaco-recover: error: 'file://$(command -v bash)#offset=0&size=0'@0x12: wrong e_machine 62 (expected EM_AMDGPU, 224)"
}

@test "a missing metadata note is named" {
  "$ASMEVO_LLVM_BINDIR/llvm-objcopy" --remove-section=.note "$TRITON/gfx942/vector_add_fp32.hsaco" nonote.hsaco
  run hsaco-recover nonote.hsaco
  assert_failure 2
  assert_output "hsaco-recover: error: 'nonote.hsaco'@0x0: no AMDGPU metadata note (NT_AMDGPU_METADATA)"
}

@test "a corrupt metadata note names the note's offset" {
  cp "$TRITON/gfx942/vector_add_fp32.hsaco" bad.hsaco
  patch_bytes bad.hsaco 0x214 c1c1c1c1
  run hsaco-recover --check bad.hsaco
  assert_failure 2
  assert_output --regexp "^hsaco-recover: error: 'bad.hsaco'@0x214: corrupt metadata note \(MessagePack\): "
}

@test "a descriptor pointing outside .text is refused" {
  cp "$TRITON/gfx942/vector_add_fp32.hsaco" bad.hsaco
  patch_bytes bad.hsaco 0x5d0 00000040
  run hsaco-recover bad.hsaco
  assert_failure 2
  assert_output "hsaco-recover: error: 'bad.hsaco'@0x5d0: kernel descriptor add_kernel.kd points outside .text (entry 0x400005C0)"
}

@test "an unknown target is refused" {
  cp "$TRITON/gfx942/vector_add_fp32.hsaco" bad.hsaco
  patch_bytes bad.hsaco 0x30 ff
  run hsaco-recover bad.hsaco
  assert_failure 2
  assert_output "hsaco-recover: error: 'bad.hsaco'@0x30: unknown AMDGPU processor (e_flags mach 0xFF)"
}

@test "--keep-going reports bad inputs and checks the rest" {
  head -c 100 /dev/zero > zero.bin
  run hsaco-recover --check -q --keep-going zero.bin "$TRITON/gfx90a/vector_add_fp32.hsaco"
  assert_failure 2
  assert_line "hsaco-recover: error: 'zero.bin'@0x0: no AMDGPU code object found (not an AMDGPU ELF file, and no offload bundle or embedded code object inside)"
  assert_line "total: 1 unreadable input, 1 code object, 1/1 kernels pass"
}

@test "--list prints one URI per code object, and URIs are inputs" {
  cat "$TRITON/gfx90a/vector_add_fp32.hsaco" > lib.bin
  printf 'padding' >> lib.bin
  cat "$TRITON/gfx942/softmax_fp32.hsaco" >> lib.bin
  run hsaco-recover --list lib.bin
  assert_success
  size1=$(stat -c %s "$TRITON/gfx90a/vector_add_fp32.hsaco")
  size2=$(stat -c %s "$TRITON/gfx942/softmax_fp32.hsaco")
  assert_output "file://lib.bin#offset=0&size=$size1
file://lib.bin#offset=$((size1 + 7))&size=$size2"
  run hsaco-recover --check -q --arch gfx942 lib.bin
  assert_success
  run hsaco-recover lib.bin
  assert_failure 2
  assert_output "hsaco-recover: error: 'lib.bin': 2 code objects inside; choose one with --arch or a URI from --list"
}

@test "hand-written kernels without .size: each kernel item compares the kernel's real bytes" {
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  # The symbol table gives both kernels size 0 (no .size) and has a local label, as AITer's have.
  run "$ASMEVO_LLVM_BINDIR/llvm-readelf" -s hw.hsaco
  assert_line --regexp ' 0 FUNC +GLOBAL +PROTECTED +[0-9]+ hw_copy$'
  assert_line --regexp ' 0 FUNC +GLOBAL +PROTECTED +[0-9]+ hw_lds$'
  assert_line --regexp ' 0 NOTYPE +LOCAL +DEFAULT +[0-9]+ label_done$'
  # A kernel extends to the next kernel, the last one to the end of .text.
  copy=$(symbol_addr hw.hsaco hw_copy) lds=$(symbol_addr hw.hsaco hw_lds)
  end=$(section_end hw.hsaco .text)
  run hsaco-recover --check hw.hsaco
  assert_success
  assert_line "PASS kernel hw_copy ($((lds - copy)) bytes)"
  assert_line "PASS kernel hw_lds ($((end - lds)) bytes)"
  assert_line "hw.hsaco: 2/2 kernels pass"
  # An instruction changed inside hw_copy fails that kernel's item (not only the section's).
  hsaco-recover hw.hsaco -o k.s
  ! grep -q '\.size.*hw_copy' k.s
  sed 's/v_add_f32_e32 v2, s9, v2/v_sub_f32_e32 v2, s9, v2/' k.s > e.s
  assemble e.s e.hsaco gfx942
  run hsaco-recover --check --against e.hsaco hw.hsaco
  assert_failure 1
  assert_line --regexp "^FAIL kernel hw_copy \($((lds - copy)) bytes\): instruction bytes differ .*: v_add_f32_e32 v2, s9, v2 vs v_sub_f32_e32 v2, s9, v2$"
  assert_line "PASS kernel hw_lds ($((end - lds)) bytes)"
  assert_line "hw.hsaco: 1/2 kernels pass, round trip FAILED"
}

@test "an instruction whose text loses bits is kept as its original words, and round-trips" {
  # gfx950's scaled MFMA: LLVM's disassembler drops bits 13-14 of the v_mfma_ld_scale_b32 prefix
  # word (0xD3AC6000) and its assembler writes 0xD3AC0000 (seen in 105 of AITer's objects).
  tiny_kernel gfx950 160 144 > k.s <<'SRC'
	v_mov_b32_e32 v1, 0
	.long 0xD3AC6000, 0x0003118C, 0xD3AD8C00, 0x84021148
	.long 0xD3AC0000, 0x0003118C, 0xD3AD8C00, 0x84021148
	s_endpgm
SRC
  assemble k.s k.hsaco gfx950
  run hsaco-recover k.hsaco -o r.s
  assert_success
  assert_output "hsaco-recover: note: k.hsaco: 1 instruction written as raw words: LLVM's assembler would not give their bytes back from the disassembly"
  # The lossy one as words with its disassembly; the one LLVM round-trips as text.
  grep -q $'^\t\\.long\t0xD3AC6000, 0x0003118C, 0xD3AD8C00, 0x84021148\t; v_mfma_scale_f32_16x16x128_f8f6f4 ' r.s
  [ "$(grep -c $'^\tv_mfma_scale_f32_16x16x128_f8f6f4 ' r.s)" -eq 1 ]
  run hsaco-recover --check k.hsaco
  assert_success
  assert_line "k.hsaco: 1/1 kernels pass (1 instruction kept as raw words)"
  # The stock tools rebuild the recovered file to the same code.
  assemble r.s r.hsaco gfx950
  run hsaco-recover --check --against r.hsaco k.hsaco
  assert_success
}
