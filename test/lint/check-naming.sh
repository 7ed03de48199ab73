#!/usr/bin/env bash
# House rule: one naming style, LLVM's, for what .clang-tidy checks (readability-identifier-naming:
# types and data members in CamelCase; in libcommon/emu also parameters and variables). clang-tidy
# 22 runs over every C++ source of the tree that BUILD_DIR's compile_commands.json compiles
# (libcommon, tools, runtime, bench, test/unit) and the project headers they include.
#   bash test/lint/check-naming.sh BUILD_DIR [SOURCE_DIR]
# Exit 0 clean, 1 with every offending "file:line:col: warning: invalid case style ..." listed,
# 2 when clang-tidy 22 or BUILD_DIR's compile_commands.json is missing.
set -uo pipefail
build=${1:?usage: check-naming.sh BUILD_DIR [SOURCE_DIR]}
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=/usr/lib/llvm-22/bin
if [[ ! -x $bin/clang-tidy || ! -x $bin/run-clang-tidy ]]; then
  echo "check-naming: error: no clang-tidy 22 in $bin (apt-get install clang-tidy-22)" >&2
  exit 2
fi
if [[ ! -f $build/compile_commands.json ]]; then
  echo "check-naming: error: no '$build/compile_commands.json' (configure the build first)" >&2
  exit 2
fi
src=$(cd "$src" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Each file gets the .clang-tidy nearest to it: the tree's, or libcommon/emu's (which adds
# parameters and variables).
"$bin/run-clang-tidy" -j "$(nproc)" -p "$build" -quiet -clang-tidy-binary "$bin/clang-tidy" \
  -header-filter "^$src/(libcommon|tools|runtime|bench|test)/" \
  "^$src/(libcommon|tools|runtime|bench|test/unit)/" > "$out" 2>&1
status=$?
warnings=$(grep -E "^$src/.*: warning: .*\[readability-identifier-naming\]" "$out" | sort -u)
files=$(grep -c "clang-tidy.*-p=" "$out")
if [[ -n $warnings ]]; then
  echo "$warnings" | sed "s|^$src/||" >&2
  echo "check-naming: $(echo "$warnings" | wc -l) names break the house style (.clang-tidy)" >&2
  exit 1
fi
if [[ $status -ne 0 || $files -eq 0 ]]; then
  tail -20 "$out" >&2
  echo "check-naming: error: clang-tidy failed (exit $status, $files files)" >&2
  exit 2
fi
echo "check-naming: $files files follow the naming style"
