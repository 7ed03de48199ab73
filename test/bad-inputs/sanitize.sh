#!/usr/bin/env bash
# The bad-input corpus under AddressSanitizer + UndefinedBehaviorSanitizer (README.md in this
# folder, "Under the sanitizers"): build the nine tools it covers, only they, at -O1 -g1 into
# BUILD_DIR, then run every case with any sanitizer finding fatal. Opt-in (about 15 minutes on 2
# cores, most of it the build): .ci/run does not run it; run it before a submission that changes
# a tool's input handling.
#   bash test/bad-inputs/sanitize.sh [BUILD_DIR [WORK_DIR]] [run.py options: -j N, -k REGEX]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-asan}
work=${2:-$build/bad-inputs}
shift $(($# > 2 ? 2 : $#))
cmake -S "$src" -B "$build" -G Ninja -DASMEVO_SANITIZE=address,undefined -DASMEVO_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG' \
  '-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG' > /dev/null
ninja -C "$build" hsaco-recover hsaco-rebuild hsaco-patch kernel-run kernel-diffcheck kernel-time \
  asmevo-agent asmevo-report asmevo-install
# Leaks are checked too (detect_leaks=1): a bad input must not leak on its error path either.
ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1 \
UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1 \
  exec bash "$src/test/bad-inputs/run.sh" "$build/bin" "$work" "$@"
