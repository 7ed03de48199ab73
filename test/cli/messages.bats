#!/usr/bin/env bats
# The messages a new user needs, each exact, with its exit code: option errors in the suite's own
# words, one reader verdict per input (--list validates, --arch filters and is checked), a launch
# spec's mistakes blamed on the spec (exit 2), numbers that do not fit their type, YAML errors
# at their line, URIs refused for --in-place, and counts with the right plural.
load test_helper

K() { echo "$TRITON/gfx942/vector_add_fp32.hsaco"; }
spec() { echo "$ASMEVO_SOURCE_DIR/test/specs/$1.json"; }

@test "option errors are the suite's own words, with plain quotes (exit 2)" {
  run hsaco-recover --frobnicate "$(K)"
  assert_failure 2
  assert_line --index 0 "hsaco-recover: error: unknown option '--frobnicate'"
  assert_line --index 1 "Try 'hsaco-recover --help' for more information."
  run hsaco-recover "$(K)" -o
  assert_failure 2
  assert_line --index 0 "hsaco-recover: error: option '-o' needs a value"
  run kernel-run "$(K)" --threads many
  assert_failure 2
  assert_line --index 0 "kernel-run: error: option '--threads': 'many' is not a valid value"
  run kernel-run "$(K)" --threads=-1
  assert_failure 2
  assert_line --index 0 "kernel-run: error: option '--threads': '-1' is not a valid value"
  run kernel-diffcheck --seeds
  assert_failure 2
  assert_line --index 0 "kernel-diffcheck: error: option '--seeds' needs a value"
  run hsaco-rebuild --resources=yes "$(K)"
  assert_failure 2
  assert_line --index 0 "hsaco-rebuild: error: option '--resources': 'yes' is not a valid value"
  # No curly quotes anywhere.
  for t in hsaco-recover hsaco-rebuild hsaco-patch kernel-run kernel-diffcheck kernel-time asmevo-agent; do
    run "$t" --no-such-option
    [[ "$output" != *$'\u2018'* && "$output" != *$'\u2019'* ]] || fail "$t: $output"
  done
  # With --json the usage error is one report on stdout.
  run --separate-stderr hsaco-recover --frobnicate --json "$(K)"
  assert_report hsaco-recover input_error 2
}

@test "--arch is a known processor name; a plain object for another one is an error, not ignored" {
  run hsaco-recover --list --arch gfx9422 "$(K)"
  assert_failure 2
  assert_line --index 0 --regexp "^hsaco-recover: error: --arch 'gfx9422': unknown AMDGPU processor; known: gfx600 .* gfx90a .* gfx942 gfx950 .*$"
  run hsaco-recover --list --arch gfx90a "$(K)"
  assert_failure 2
  assert_output "hsaco-recover: error: '$(K)'@0x0: a code object for gfx942, not gfx90a"
  run hsaco-recover --check --arch gfx90a "$(K)"
  assert_failure 2
  assert_output "hsaco-recover: error: '$(K)'@0x0: a code object for gfx942, not gfx90a"
  run hsaco-recover --list --arch gfx942 "$(K)"
  assert_success
  assert_output "$(K)"
}

@test "--list validates what it lists: a truncated object is the same error as for recovery" {
  head -c 3000 "$(K)" > trunc.hsaco
  run hsaco-recover trunc.hsaco -o t.s
  assert_failure 2
  recover_msg=$output
  run hsaco-recover --list trunc.hsaco
  assert_failure 2
  assert_output "$recover_msg"
  assert_output "hsaco-recover: error: 'trunc.hsaco'@0x1220: section header table extends past the end of the file (3000 bytes)"
  # --keep-going lists the readable ones and names the others.
  run --separate-stderr hsaco-recover --list --keep-going trunc.hsaco "$(K)" --json
  assert_report hsaco-recover input_error 2
  python3 -c '
import json, sys
r = json.load(open("report.json"))
assert r["body"]["objects"] == [sys.argv[1]], r["body"]
f = r["body"]["failed_inputs"]
assert len(f) == 1 and f[0]["input"] == "trunc.hsaco" and "section header table" in f[0]["error"], f
' "$(K)"
}

@test "--keep-going puts the unreadable inputs first in the totals and exits 2" {
  : > empty.hsaco
  run hsaco-recover --check --keep-going empty.hsaco "$(K)"
  assert_failure 2
  assert_line "hsaco-recover: error: 'empty.hsaco'@0x0: no AMDGPU code object found (not an AMDGPU ELF file, and no offload bundle or embedded code object inside)"
  assert_line "total: 1 unreadable input, 1 code object, 1/1 kernels pass"
  run hsaco-recover --keep-going "$(K)" -o k.s
  assert_failure 2
  assert_line --index 0 "hsaco-recover: error: --keep-going needs --check or --list"
}

@test "a spec with too few elements is blamed on the spec: K0 reads past it (exit 2)" {
  # Far past the end (a fault outside the buffer's guards), during launch inference.
  python3 - "$(spec vector_add_fp32)" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["args"][0]["elements"] = 10
json.dump(s, open("far.json", "w"))
s["args"][0]["elements"] = 2990
for a in s["args"][:3]:
    a.setdefault("elements", 3000)
s["args"][0]["elements"] = 2990
s["args"][2]["role"] = "out"
s["args"][0]["role"] = s["args"][1]["role"] = "in"
json.dump(s, open("near.json", "w"))
PY
  run kernel-diffcheck "$(K)" "$(K)" --spec far.json
  assert_failure 2
  assert_output --regexp "^kernel-diffcheck: error: during launch inference: K0 reads past '#0' \(10 f32 elements\): buffer_load_dword at byte offset [0-9]+ of a buffer of 40 bytes faults \(memory fault: .*\): the spec gives it too few elements$"
  # Just past the end (inside the guard bytes, where nothing faults): the footprint shows it.
  run kernel-diffcheck "$(K)" "$(K)" --spec near.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: K0 reads past '#0' (2990 f32 elements): it touches bytes 0 to 12000 of a buffer of 11960 bytes on seed 1: the spec gives it too few elements"
  run --separate-stderr kernel-diffcheck "$(K)" "$(K)" --spec near.json --json
  assert_report kernel-diffcheck input_error 2
}

@test "a number that does not fit its type is refused, not turned into infinity (exit 2)" {
  sed 's/"value": 3000/"value": 1e40/' "$(spec vector_add_fp32)" > big.json
  run kernel-diffcheck "$(K)" "$(K)" --spec big.json
  assert_failure 2
  assert_output "kernel-diffcheck: error: 'big.json': args[3]: \"value\" 1e+40 does not fit f32 (it would become +inf; write \"inf\" for an infinity)"
  args=(--block 256 --grid 3 --arg zeros:12288 --arg zeros:12288 --arg zeros:12288)
  run kernel-run "$(K)" "${args[@]}" --arg f32:-1e39 --arg null --arg null
  assert_failure 2
  assert_output "kernel-run: error: argument '#3': -1e+39 does not fit f32 (it would become -inf; write \"inf\" for an infinity)"
  run kernel-run "$(K)" "${args[@]}" --arg 1e40 --arg null --arg null
  assert_failure 2
  # An infinity written as such, and the largest float, are values.
  run kernel-run "$(K)" "${args[@]}" --arg f32:inf --arg null --arg null -q
  assert_success
  run kernel-run "$(K)" "${args[@]}" --arg f32:3.4028234e38 --arg null --arg null -q
  assert_success
}

@test "a YAML error in .amdgpu_metadata is reported at its own line, and LLVM prints nothing" {
  hsaco-recover "$(K)" -o k.s
  n=$(grep -n "'.name': 'add_kernel'" k.s | cut -d: -f1)
  sed "${n}s/'.name': 'add_kernel'/'.name': [add_kernel/" k.s > bad.s
  run --separate-stderr hsaco-rebuild bad.s -o b.hsaco
  assert_failure 2
  assert_equal "$stderr" "hsaco-rebuild: error: 'bad.s':$((n + 2)): metadata YAML: Expected , between entries! (column 18): ''.sgpr_count': 22'"
  [ ! -e b.hsaco ]
  sed "${n}s/'.name': 'add_kernel'/  '.name': add_kernel/" k.s > bad2.s
  run hsaco-rebuild bad2.s -o b.hsaco
  assert_failure 2
  assert_output "hsaco-rebuild: error: 'bad2.s':$n: metadata YAML: Unexpected token. Expected Key or Block End (column 14): ''.name': add_kernel'"
}

@test "hsaco-patch --in-place refuses a URI and writes no file named after it (exit 2)" {
  cp "$(K)" K.hsaco
  hsaco-patch K.hsaco --window add_kernel:0x1cc-0x1ec --extract -o w.s
  run hsaco-patch "file://$PWD/K.hsaco" --window add_kernel:0x1cc-0x1ec --with w.s --in-place
  assert_failure 2
  assert_line --index 0 "hsaco-patch: error: --in-place writes a code-object file, not a URI ('file://$PWD/K.hsaco'): give the file's path, or -o FILE"
  run ls -A
  assert_output $'K.hsaco\nw.s'
  # The URI itself is a fine input for -o.
  run hsaco-patch "file://$PWD/K.hsaco" --window add_kernel:0x1cc-0x1ec --with w.s -o K2.hsaco
  assert_success
  cmp K.hsaco K2.hsaco
}

@test "counts read right in the singular" {
  run hsaco-recover --check "$(K)"
  assert_line "$(K): 1/1 kernels pass"
  run --separate-stderr hsaco-recover --list "$(K)" --json
  assert_report hsaco-recover ok 0
  python3 -c 'import json; assert json.load(open("report.json"))["message"] == "1 code object"'
  run hsaco-rebuild --resources "$(K)"
  assert_line "resources: 1 kernel, 1 declared exactly as LLVM counts their code, 0 using registers their descriptor does not allocate"
  run kernel-run "$(K)" --block 256 --grid 1 --threads 1 --arg zeros:4 --arg zeros:4 \
    --arg zeros:4 --arg 0 --arg null --arg null
  assert_line --regexp "^kernel-run: 1 workgroup, 4 waves, 200 wave instructions, [0-9]+ lane instructions, [0-9.]+ s host time on 1 thread \(emulated, not GPU time\)$"
  hsaco-patch "$(K)" --window add_kernel:0x1e4-0x1e8 --extract -o one.s
  grep -q '^; window: add_kernel:0x1E4-0x1E8 (0x17E4-0x17E8, 4 bytes, 1 instruction)$' one.s || fail "$(head -6 one.s)"
}

@test "a kernel symbol that runs past .text gets one verdict from every tool (exit 2, file and offset)" {
  python3 - "$(K)" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum = struct.unpack_from("<HH", b, 0x3a)
secs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
for name, typ, flags, addr, off, size, link, info, align, entsize in secs:
    if typ in (2, 11):  # .symtab, .dynsym: add_kernel gets st_size 0x10000
        strs = secs[link][4]
        for j in range(size // 24):
            nm = struct.unpack_from("<I", b, off + j * 24)[0]
            if b[strs + nm:strs + nm + 11] == b"add_kernel\0":
                struct.pack_into("<Q", b, off + j * 24 + 16, 0x10000)
open("past.hsaco", "wb").write(b)
PY
  msg="'past.hsaco'@0x518: symbol add_kernel of .dynsym (65536 bytes at 0x1600) extends past the end of .text"
  vadd=(--block 256 --grid 1 --arg zeros:4 --arg zeros:4 --arg zeros:4 --arg 0 --arg null --arg null)
  run hsaco-recover past.hsaco -o p.s
  assert_failure 2
  assert_output "hsaco-recover: error: $msg"
  run hsaco-recover --check past.hsaco
  assert_output "hsaco-recover: error: $msg"
  run hsaco-recover --list past.hsaco
  assert_output "hsaco-recover: error: $msg"
  run hsaco-rebuild --resources past.hsaco
  assert_output "hsaco-rebuild: error: $msg"
  run hsaco-patch past.hsaco --window add_kernel:0x1cc-0x1ec --extract
  assert_output "hsaco-patch: error: $msg"
  run kernel-run past.hsaco "${vadd[@]}"
  assert_output "kernel-run: error: $msg"
  run kernel-run --coverage past.hsaco
  assert_output "kernel-run: error: $msg"
  run kernel-diffcheck past.hsaco "$(K)" --spec "$(spec vector_add_fp32)"
  assert_failure 2
  assert_output "kernel-diffcheck: error: $msg"
  [ ! -e p.s ]
}
