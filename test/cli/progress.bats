#!/usr/bin/env bats
# Signs of life: the gate streams one verdict per object as it finishes, -v prints progress in
# every tool, a long emulated grid draws a progress line on a terminal (and nothing extra
# without one), and Ctrl-C (SIGINT) stops a run saying what was done (exit 130).
load test_helper

K() { echo "$TRITON/gfx942/vector_add_fp32.hsaco"; }
# A grid long enough to take seconds on one emulator thread (n = 0: every wave exits early).
LONG_RUN=(--block 256 --threads 1 --arg zeros:4 --arg zeros:4 --arg zeros:4 --arg 0
  --arg null --arg null)

# wait_for FILE PATTERN SECONDS: until FILE has a line matching PATTERN.
wait_for() {
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    grep -q -- "$2" "$1" 2> /dev/null && return 0
    sleep 0.1
  done
  return 1
}

@test "--check streams: an object's verdict is out before the next input has been read" {
  mkfifo later.hsaco
  hsaco-recover --check "$(K)" later.hsaco > out.txt 2> err.txt &
  pid=$!
  # The tool now waits to open the FIFO; the first object's verdict must already be on stdout.
  wait_for out.txt "vector_add_fp32.hsaco: 1/1 kernels pass" 20 || {
    kill $pid
    fail "no verdict streamed: $(cat out.txt)"
  }
  cat "$(K)" > later.hsaco
  wait $pid
  assert_equal "$(grep -c 'hsaco: 1/1 kernels pass$' out.txt)" 2
  grep -q '^total: 2 code objects, 2/2 kernels pass$' out.txt
}

@test "Ctrl-C during --check prints what was done and exits 130" {
  objs=("$TRITON"/gfx9*/*.hsaco "$TRITON"/gfx9*/*.hsaco "$TRITON"/gfx9*/*.hsaco "$TRITON"/gfx9*/*.hsaco)
  hsaco-recover --check "${objs[@]}" > out.txt 2> err.txt &
  pid=$!
  wait_for out.txt "kernels pass$" 30 || fail "no verdict: $(cat out.txt)"
  kill -INT $pid
  status=0
  wait $pid || status=$?
  assert_equal "$status" 130
  grep -Eq '^total: [0-9]+ code objects?, [0-9]+/[0-9]+ kernels pass \(interrupted\)$' out.txt ||
    fail "$(tail -3 out.txt)"
  run cat err.txt
  assert_output --regexp "^hsaco-recover: interrupted: stopped before input [0-9]+ of ${#objs[@]} \('[^']+'\); done so far: [0-9]+ code objects?, [0-9]+/[0-9]+ kernels pass$"
}

@test "Ctrl-C stops a long emulated grid: exit 130, how many workgroups ran, a valid report" {
  kernel-run "$(K)" --grid 1000000 "${LONG_RUN[@]}" --json > out.json 2> err.txt &
  pid=$!
  sleep 1.5
  kill -INT $pid
  SECONDS=0
  status=0
  wait $pid || status=$?
  assert_equal "$status" 130
  [ "$SECONDS" -lt 5 ] || fail "took $SECONDS s to stop"
  run cat err.txt
  assert_output --regexp "^kernel-run: interrupted: the dispatch of kernel add_kernel was stopped after [0-9]+ of 1000000 workgroups$"
  output=$(cat out.json) status=130 assert_report kernel-run interrupted 130
}

@test "a long emulated grid draws a progress line on a terminal, and nothing extra without one" {
  command -v script > /dev/null || skip "no script(1)"
  script -qfec "kernel-run '$(K)' --grid 100000 ${LONG_RUN[*]}" typescript.txt > /dev/null
  grep -aq $'\rkernel-run: [0-9]*/100000 workgroups ([0-9]*%)' typescript.txt ||
    fail "no progress line: $(tail -c 300 typescript.txt | od -c | head)"
  # The line is erased before the summary (\r then erase-to-end-of-line).
  grep -aq $'\r\e\[K' typescript.txt
  # Without a terminal: the two summary lines and no carriage return.
  run --separate-stderr kernel-run "$(K)" --grid 100000 "${LONG_RUN[@]}"
  assert_success
  assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 2
  [[ "$stderr" != *$'\r'* ]] || fail "a carriage return without a terminal"
}

@test "-v prints progress in every tool" {
  cp "$(K)" K.hsaco
  run hsaco-recover K.hsaco -o k.s -v
  assert_output "hsaco-recover: K.hsaco: 1 kernel, 1 function, 111 instructions (0 as raw words), 1 branch and 0 PC-relative references symbolized"
  run hsaco-rebuild k.s -o k1.hsaco --abi-of K.hsaco -v
  assert_success
  assert_line --index 0 --regexp "^hsaco-rebuild: assembling and linking k.s \([0-9]+ bytes\) in-process; ABI of K.hsaco \(1 kernel\)$"
  assert_line --index 1 --regexp "^hsaco-rebuild: k.s: 1 kernel, object of [0-9]+ bytes, assembled once \(0 register count changes\), 0 ABI violations$"
  run hsaco-patch K.hsaco --window add_kernel:0x1cc-0x1ec --extract -o w.s
  run hsaco-patch K.hsaco --window add_kernel:0x1cc-0x1ec --with w.s -o k2.hsaco -v
  assert_output "hsaco-patch: K.hsaco: window add_kernel:0x1cc-0x1ec (0x17CC-0x17EC, 32 bytes): replacement 32 bytes, 0 s_nop 0 of padding"
  run kernel-run K.hsaco --grid 100000 "${LONG_RUN[@]}" -v
  assert_success
  assert_line --index 0 "kernel-run: launching add_kernel on emu (CPU emulator (gfx942, wave64)), grid 25600000x1x1 work-items, block 256x1x1"
  assert_line --regexp "^kernel-run: [0-9]+/100000 workgroups \([1-9]0%\) done$"
  run kernel-diffcheck K.hsaco k1.hsaco --spec "$ASMEVO_SOURCE_DIR/test/specs/vector_add_fp32.json" -v
  assert_success
  assert_line "kernel-diffcheck: launch inference: running K0 on the emulator"
  assert_line --regexp "^kernel-diffcheck: seed 3: K1 ran 600 wave-instructions in [0-9.]+ s$"
}
