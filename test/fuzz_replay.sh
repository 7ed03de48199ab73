#!/usr/bin/env bash
# Replay the fuzzing corpus (fuzz/corpus) and the crash reproducers (fuzz/crashes) through the
# normal hsaco-recover tool: `hsaco-recover --check FILE`, one input per run, 10 s each.
#
#   test/fuzz_replay.sh BUILD_DIR
#
# Exit codes 0, 1 and 2 are fine (pass, round trip differs, bad input): hostile input must be
# rejected with an error, nothing more. Anything else fails the replay: a signal (crash, abort),
# a sanitizer report, exit 3, or a run over 10 s. Works with plain and sanitizer builds; in a
# sanitizer build a report (ASan, UBSan, LeakSanitizer) makes the tool exit 86.
# Prints one summary line: "fuzz replay: N inputs, K crashes"; exits 1 if K > 0, 2 on usage.
set -u

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
Tool="$1/bin/hsaco-recover"
if [ ! -x "$Tool" ]; then
  echo "fuzz_replay: no hsaco-recover at $Tool (build the project first)" >&2
  exit 2
fi
TimeLimit=10

# Sanitizer reports get an exit code of their own (their default, 1, means "check failed").
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86:print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}exitcode=86"

Err=$(mktemp)
trap 'rm -f "$Err"' EXIT

Inputs=()
for Dir in "$Root/fuzz/corpus" "$Root/fuzz/crashes"; do
  [ -d "$Dir" ] || continue
  while IFS= read -r -d '' F; do
    Inputs+=("$F")
  done < <(find "$Dir" -type f -print0 | sort -z)
done

N=0
Bad=0
for F in "${Inputs[@]}"; do
  N=$((N + 1))
  # -k: a run that ignores SIGTERM is killed 2 s later. stdin closed, stdout dropped.
  # The braces catch bash's own "Segmentation fault" line too.
  { timeout -k 2 "$TimeLimit" "$Tool" --check "$F" < /dev/null > /dev/null 2> "$Err"; } 2>> "$Err"
  Rc=$?
  case $Rc in
    0 | 1 | 2) continue ;;
    124 | 137) Why="took more than ${TimeLimit} s" ;;
    86) Why="sanitizer report" ;;
    3) Why="exit 3 (runtime error)" ;;
    *)
      if [ $Rc -gt 128 ]; then
        Why="killed by signal $((Rc - 128))"
      else
        Why="exit $Rc"
      fi
      ;;
  esac
  Bad=$((Bad + 1))
  echo "fuzz replay: FAIL ${F#"$Root"/}: $Why"
  tail -n 40 "$Err" | sed 's/^/    /'
done

echo "fuzz replay: $N inputs, $Bad crashes"
[ "$Bad" -eq 0 ]
