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
  run --separate-stderr kernel-run "$TRITON/gfx90a/vector_add_fp32.hsaco" --block 256 --grid-items 1024 \
    --arg '#0=@x.bin' --arg '#1=@y.bin' --arg '#2=zeros:4096' --arg '#3=i32:1024' \
    --arg '#4=null' --arg '#5=null' --out '#2=out.bin' --json
  assert_report kernel-run ok 0
  python3 -c 'import json; e=json.load(open("report.json")); j=e["body"]; assert e["backend"]=="emu" and j["workgroups"]==4 and j["waves"]==16, e'
  run python3 -c 'import struct; o=struct.unpack("<1024f", open("out.bin","rb").read()); print(all(o[i]==1000.0-i*0.5 for i in range(1024)))'
  assert_output "True"
}

@test "a buffer too small for the kernel's accesses is a memory fault naming lane and address (exit 3)" {
  make_inputs 4096
  head -c 1024 x.bin > small.bin
  run kernel-run "$TRITON/gfx942/vector_add_fp32.hsaco" --block 256 --grid 4 \
    --arg @small.bin --arg @y.bin --arg zeros:16384 --arg 4096 --arg null --arg null --out '#2=out.bin'
  assert_failure 3
  assert_output --regexp "kernel-run: error: memory fault: .* of 4 bytes at 0x[0-9a-f]+ \(lane [0-9]+\) at pc 0x[0-9a-f]+: (outside every allocation|runs past the end of its allocation) \(add_kernel\+0x[0-9a-f]+, workgroup 0,0,0\)"
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
  assert_output "kernel-run: error: argument '#3': '1.5x' is not a number"
  run kernel-run "$TRITON/gfx942/vector_add_fp32.hsaco" --block 256 --grid 1 --kernel nope
  assert_failure 2
  assert_output "kernel-run: error: '$TRITON/gfx942/vector_add_fp32.hsaco' has no kernel named 'nope' (kernels: add_kernel)"
}

@test "an unimplemented instruction stops the run with its mnemonic and pc (exit 3)" {
  # s_sendmsg (messages to the graphics pipeline) has no meaning the emulator implements.
  printf '\tv_mov_b32_e32 v1, 1.0\n\ts_sendmsg sendmsg(MSG_INTERRUPT)\n\ts_endpgm\n' |
    tiny_kernel gfx942 3 4 > k.s
  run hsaco-rebuild k.s -o k.hsaco
  assert_success
  run kernel-run k.hsaco --block 64 --grid 1
  assert_failure 3
  assert_output --regexp "^kernel-run: error: unsupported instruction s_sendmsg sendmsg\\(MSG_INTERRUPT\\) at pc 0x[0-9a-f]+04 \\(k\\+0x4, workgroup 0,0,0\\)$"
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

# hw_copy of the hand-written fixture: out[i] = in[i] for i < n, 64-item workgroups.
hw_args() { echo --kernel hw_copy --arg zeros:512 --arg @in.bin --arg 100; }
make_in() { head -c 512 /dev/zero > in.bin; }

@test "a register beyond the descriptor's allocation is a fault naming the register, kernel and offset" {
  handwritten v40 > k1.s
  assemble k1.s k1.hsaco gfx942
  make_in
  run kernel-run k1.hsaco $(hw_args) --block 64 --grid 2
  assert_failure 3
  assert_output --regexp "^kernel-run: error: register v40 is beyond the registers the kernel's descriptor allocates \(v0-v7\) at pc 0x[0-9a-f]+ \(hw_copy\+0x[0-9a-f]+, workgroup 0,0,0\)$"
  # An SGPR reached through M0 (s_movrels_b32 with M0 = 40) is checked when it is computed.
  handwritten m0-40 > k2.s
  assemble k2.s k2.hsaco gfx942
  run kernel-run k2.hsaco $(hw_args) --block 64 --grid 2
  assert_failure 3
  assert_output --regexp "^kernel-run: error: register s40 is beyond the registers the kernel's descriptor allocates \(s0-s33\) at pc 0x[0-9a-f]+ \(hw_copy\+0x1c, workgroup 0,0,0\)$"
  # The fixture as written runs.
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  run kernel-run hw.hsaco $(hw_args) --block 64 --grid 2 -q
  assert_success
}

@test "a workgroup the kernel's registers cannot fit on a CU is refused (exit 2)" {
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  handwritten vgpr208 > k.s
  assemble k.s k.hsaco gfx942
  make_in
  run kernel-run k.hsaco $(hw_args) --block 1024 --grid 1
  assert_failure 2
  assert_output "kernel-run: error: 'k.hsaco': kernel 'hw_copy' cannot be launched: compute_pgm_rsrc1.granulated_workitem_vgpr_count: allocates 208 VGPRs per wave; a 1024-work-item workgroup (this launch) puts 4 waves on each SIMD, which leaves 128 VGPRs per wave on gfx942"
  # 512 work-items leave 256 VGPRs per wave: that launch is fine.
  run kernel-run k.hsaco $(hw_args) --block 512 --grid 1 -q
  assert_success
}

@test "grids past 2^32-1 work-items are refused before anything wraps" {
  k="$TRITON/gfx942/vector_add_fp32.hsaco"
  head -c 1024 /dev/zero > x.bin
  args=(--arg @x.bin --arg @x.bin --arg zeros:1024 --arg 256 --arg null --arg null)
  run kernel-run "$k" --grid 16777217 --block 256 "${args[@]}"
  assert_failure 2
  assert_output "kernel-run: error: grid x of 16777217 workgroups of 256 is 4294967552 work-items; a dispatch has at most 2^32-1 (4294967295) per dimension"
  run kernel-run "$k" --grid 4294967295 --block 256 "${args[@]}"
  assert_failure 2
  assert_output "kernel-run: error: grid x of 4294967295 workgroups of 256 is 1099511627520 work-items; a dispatch has at most 2^32-1 (4294967295) per dimension"
  # 2^32-1 work-items is a legal grid: 16777216 workgroups, not 0 (the wrapped sum) and not a
  # silent run of minutes: bounded here, the run stops with what it executed.
  run kernel-run "$k" --grid-items 4294967295 --block 256 "${args[@]}" --max-instructions 100000
  assert_failure 3
  assert_output --regexp "^kernel-run: error: the dispatch stopped after [0-9]+ wave-instructions, past its limit of 100000$"
  run kernel-run "$k" --grid 1,1,1 --block 256,8,1 "${args[@]}"
  assert_failure 2
  assert_output "kernel-run: error: a workgroup of 2048 work-items: the hardware runs at most 1024"
  # Legal in every dimension, but (2^32-1)^3 workgroups of one: the count passes 2^64 and would
  # wrap to another number of workgroups.
  run kernel-run "$k" --grid-items 4294967295,4294967295,4294967295 --block 1 "${args[@]}" \
    --max-instructions 100000
  assert_failure 2
  assert_output "kernel-run: error: a grid of 4294967295 x 4294967295 x 4294967295 workgroups: more than 2^64 workgroups"
}

@test "kernarg sizes the descriptor and metadata disagree on, or too large to hold, are refused" {
  handwritten kernarg > k.s
  assemble k.s k.hsaco gfx942
  make_in
  run kernel-run k.hsaco $(hw_args) --block 64 --grid 1
  assert_failure 2
  assert_output "kernel-run: error: 'k.hsaco': kernel 'hw_copy': the kernarg sizes disagree: 4294967280 in the descriptor, 24 in the metadata (.kernarg_segment_size); which one a runtime uses decides what the kernel reads"
  sed '0,/\.amdhsa_kernarg_size 24/s//.amdhsa_kernarg_size 4294967295/; 0,/\.kernarg_segment_size: 24/s//.kernarg_segment_size: 4294967295/' \
    "$FIXTURES/handwritten_gfx942.s" > b.s
  assemble b.s b.hsaco gfx942
  run kernel-run b.hsaco $(hw_args) --block 64 --grid 1
  assert_failure 2
  assert_output "kernel-run: error: 'b.hsaco': kernel 'hw_copy' declares a kernarg segment of 4294967295 bytes; the emulator takes at most 65536"
}

@test "--coverage counts every instance and keeps LDS-direct loads apart from plain ones" {
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  run kernel-run --coverage hw.hsaco
  assert_failure 1
  assert_line --regexp "^implemented +1  buffer_load_dword$"
  assert_line --regexp "^implemented +1  buffer_load_dword lds$"
  assert_line --regexp "^MISSING +1  buffer_load_ubyte lds   \(1 not implemented in 1 object; first: hw.hsaco: hw_lds\+0x[0-9a-f]+: buffer_load_ubyte v1, s\[4:7\], 0 offen lds \(unsupported instruction buffer_load_ubyte lds: the ISA documents do not say how a byte or short loaded into LDS fills its 4-byte slot\)\)$"
  assert_line --regexp "^kernel-run: 1 code object \(0 fully covered\), 2 functions, [0-9]+ instructions \(0 undecodable words\); [0-9]+/[0-9]+ mnemonics and [0-9]+/[0-9]+ instructions implemented$"
  # An object for a processor the emulator does not run is named as skipped, exit 1.
  printf '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"\n\t.text\n\ts_endpgm\n' > o.s
  "$ASMEVO_LLVM_BINDIR/llvm-mc" -triple=amdgcn-amd-amdhsa -mcpu=gfx1100 -filetype=obj o.s -o o.o
  "$ASMEVO_LLVM_BINDIR/ld.lld" -shared o.o -o o.hsaco
  run kernel-run --coverage "$TRITON/gfx942/vector_add_fp32.hsaco" o.hsaco
  assert_failure 1
  assert_line "kernel-run: skipped o.hsaco (gfx1100): the emulator runs gfx90a, gfx940-gfx942 and gfx950"
  run kernel-run --coverage "$TRITON/gfx942/vector_add_fp32.hsaco"
  assert_success
}

@test "an object whose kernels have no decodable instruction is an error for --coverage, not 0/0" {
  printf '\t.long 0xffffffff, 0xffffffff\n' | tiny_kernel gfx942 3 4 > e.s
  assemble e.s e.hsaco gfx942
  read -r addr foff < <("$ASMEVO_LLVM_BINDIR/llvm-readelf" -S -W e.hsaco |
    awk '{for (i = 1; i <= NF; i++) if ($i == ".text") {print $(i+2), $(i+3); exit}}')
  off=$(printf '0x%x' $(( $(symbol_addr e.hsaco k) - 0x$addr + 0x$foff )))
  run kernel-run --coverage e.hsaco
  assert_failure 2
  assert_output "kernel-run: error: 'e.hsaco'@$off: 1 kernel(s) but no instruction of their code decodes"
}

@test "--arg NAME= and --out NAME= on a Triton kernel: its metadata names no argument; the message lists #0 to #5 and the scratch pointers" {
  make_inputs 16
  K=$TRITON/gfx942/vector_add_fp32.hsaco
  list="its metadata names none of its 6 explicit arguments (a Triton kernel's never does), so name them by index: #0 global_buffer (8 bytes), #1 global_buffer (8 bytes), #2 global_buffer (8 bytes), #3 by_value (4 bytes), #4 global_buffer (8 bytes; Triton's global_scratch pointer), #5 global_buffer (8 bytes; Triton's profile_scratch pointer)"
  snapshot_tree
  run kernel-run "$K" --block 256 --grid 1 --arg x_ptr=@x.bin --arg @y.bin --arg zeros:64 \
    --arg 16 --arg null --arg null
  assert_failure 2
  assert_output "kernel-run: error: kernel 'add_kernel' has no argument 'x_ptr': $list"
  run kernel-run "$K" --block 256 --grid 1 --arg @x.bin --arg @y.bin --arg zeros:64 \
    --arg 16 --arg null --arg null --out out_ptr=out.bin
  assert_failure 2
  assert_output "kernel-run: error: --out: kernel 'add_kernel' has no argument 'out_ptr': $list"
  run --separate-stderr kernel-run "$K" --block 256 --grid 1 --arg n_elements=16 --json
  assert_report kernel-run input_error 2
  assert_tree_unchanged report.json
  # A kernel whose metadata names its arguments: the names.
  assemble "$FIXTURES/handwritten_gfx942.s" hw.hsaco gfx942
  snapshot_tree
  run kernel-run hw.hsaco --kernel hw_copy --block 64 --grid 1 --arg input=@x.bin
  assert_failure 2
  assert_output "kernel-run: error: kernel 'hw_copy' has no argument 'input' (its explicit arguments: #0 'out', #1 'in', #2 'n')"
  assert_tree_unchanged
}

@test "a kernel whose name is not UTF-8: --sync-profile and --json replace the bytes instead of aborting" {
  make_inputs 16
  python3 -c 'import sys; open("bad.hsaco", "wb").write(open(sys.argv[1], "rb").read().replace(b"add_kernel", b"add_k\xffrnel"))' \
    "$TRITON/gfx942/vector_add_fp32.hsaco"
  snapshot_tree
  run --separate-stderr kernel-run bad.hsaco --block 256 --grid 1 --arg @x.bin --arg @y.bin \
    --arg zeros:64 --arg 16 --arg null --arg null --sync-profile sync.json --json
  assert_report kernel-run ok 0
  assert_tree_unchanged report.json sync.json
  run python3 -c 'import json; print(json.load(open("sync.json"))["kernel"], json.load(open("report.json"))["body"]["kernel"])'
  assert_output "add_k"$'\ufffd'"rnel add_k"$'\ufffd'"rnel"
}

@test "--arg NAME=table:BUF+BUF: a pointer table of new buffers; --out NAME[I] writes an entry, checked against values computed here" {
  build_table_kernel k.hsaco
  python3 -c '
import random, struct
random.seed(7)
for name, n in (("x0", 1000), ("x1", 600), ("y0", 1000), ("y1", 600)):
    open(name + ".bin", "wb").write(struct.pack("%df" % n, *[random.uniform(-1, 1) for _ in range(n)]))'
  run kernel-run k.hsaco --grid 16,2 --block 64 --arg '#0=table:@x0.bin+@x1.bin' \
    --arg '#1=table:@y0.bin+@y1.bin' --arg 1000 --arg 600 --arg f32:1.5 --arg 2 \
    --out '#1[0]=y0.out' --out '#1[1]=y1.out'
  assert_success
  # y_g = 1.5 x_g + y_g, rounded once to f32 (the kernel's v_fmac_f32), for every element.
  run python3 -c '
import struct
def rd(f):
    b = open(f, "rb").read()
    return struct.unpack("%df" % (len(b) // 4), b)
def f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]
for g in "01":
    x, y, o = rd("x%s.bin" % g), rd("y%s.bin" % g), rd("y%s.out" % g)
    print(g, len(o), sum(o[i] != f32(1.5 * x[i] + y[i]) for i in range(len(o))))'
  assert_output $'0 1000 0\n1 600 0'
  # An entry that is neither a file nor zeros:, an entry the table does not have.
  run kernel-run k.hsaco --grid 16,2 --block 64 --arg '#0=table:@x0.bin+bad' \
    --arg '#1=table:@y0.bin+@y1.bin' --arg 1000 --arg 600 --arg f32:1.5 --arg 2
  assert_failure 2
  assert_output "kernel-run: error: argument '#0[1]' is a pointer: give @FILE, zeros:BYTES, table:BUF+BUF..., null or addr:ADDRESS, not 'bad'"
  snapshot_tree
  run kernel-run k.hsaco --grid 16,2 --block 64 --arg '#0=table:@x0.bin+zeros:2400' \
    --arg '#1=table:@y0.bin+@y1.bin' --arg 1000 --arg 600 --arg f32:1.5 --arg 2 --out '#1[2]=z.out'
  assert_failure 2
  assert_line "kernel-run: error: --out: argument '#1[2]' is not a buffer this run allocated (@FILE, zeros: or an entry NAME[I] of a table:)"
  assert_tree_unchanged
}
