#!/usr/bin/env bash
# The synchronisation mutation suite (ctest check.sync-mutants): s_waitcnt deleted or relaxed,
# s_nop and s_barrier deleted, loads hoisted over a wait or barrier, in every Triton corpus
# kernel with a spec and every compiled clang corpus kernel with a spec; each mutant classified
# from K0's own sync profile (kernel-run --sync-profile) and checked with kernel-diffcheck.
# Prints one line per mutant and the counts per kernel and kind; exits 1 if a needed mutant is
# accepted, a harmless one rejected (a deleted wait that was also a needed wait state excepted),
# or a K0 rejected against itself; the mutants in sync_reviewed.tsv are tolerated either way and
# counted per category. See README.md.
#   sync_run.sh TOOLS_DIR CORPUS_DIR [LLVM_BINDIR [WORK_DIR [KERNEL...]]]
# KERNEL: a kernel id (gfx942/softmax_fp32, clang/gfx90a/lds_reduce-block_sum) or a substring.
# Environment: SYNC_JOBS (parallel checks; default: the number of cores), SYNC_SAMPLE_CAP (at
# most N needed and N harmless mutants run per kernel and kind, every k-th; default 0: all), SYNC_SCHEDULES (kernel-diffcheck --schedules N; default: the tool's own), SYNC_VERBOSE=1
# (also list the mutants not run).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 TOOLS_DIR CORPUS_DIR [LLVM_BINDIR [WORK_DIR [KERNEL...]]]" >&2; exit 2; }
tools=$1 corpus=$2 llvm=${3:-} work=${4:-}
shift $(( $# < 4 ? $# : 4 ))
[ -n "$work" ] || work=$(mktemp -d)
objdump=
for c in ${llvm:+"$llvm/llvm-objdump"} llvm-objdump-22 llvm-objdump; do
  if command -v "$c" >/dev/null 2>&1; then objdump=$c; break; fi
done
[ -n "$objdump" ] || { echo "FAIL  no llvm-objdump (give LLVM_BINDIR)"; exit 1; }
opts=(--tools "$tools" --corpus "$corpus" --work "$work" --objdump "$objdump"
      --jobs "${SYNC_JOBS:-$(nproc 2>/dev/null || echo 2)}" --sample-cap "${SYNC_SAMPLE_CAP:-0}")
[ -n "${SYNC_SCHEDULES:-}" ] && opts+=(--schedules "$SYNC_SCHEDULES")
[ "${SYNC_VERBOSE:-0}" = 1 ] && opts+=(-v)
exec python3 "$here/sync_mutants.py" run "${opts[@]}" "$@"
