#!/usr/bin/env bash
# House rule: every tracked C++ source is clang-formatted (.clang-format) and no line of it is
# over 100 columns. Generated tables (*.inc) are excluded: their generator owns their layout.
#   bash test/lint/check-format.sh [SOURCE_DIR]
# Exit 0 clean, 1 with the offending files and lines listed, 2 when clang-format is missing.
set -uo pipefail
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cf=${CLANG_FORMAT:-$(command -v clang-format-22 || command -v clang-format || true)}
if [[ -z "$cf" ]]; then
  echo "check-format: error: clang-format not found (apt install clang-format-22)" >&2
  exit 2
fi
cd "$src" || exit 2
files=()
while IFS= read -r f; do
  [[ -f $f ]] && files+=("$f") # tracked and present (not deleted in the work tree)
done < <(git ls-files -- '*.cpp' '*.h' '*.c' '*.hpp')
if ((${#files[@]} == 0)); then
  echo "check-format: error: no C++ sources tracked under $src" >&2
  exit 2
fi
status=0
bad=$("$cf" --style=file --dry-run "${files[@]}" 2>&1 | grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error)' |
  cut -d: -f1,2 | sort -u)
if [[ -n "$bad" ]]; then
  echo "check-format: not clang-formatted (run: clang-format -i FILE):" >&2
  echo "$bad" | sed 's/^/  /' >&2
  status=1
fi
long=$(awk 'length > 100 { print "  " FILENAME ":" FNR ": " length " columns" }' "${files[@]}")
if [[ -n "$long" ]]; then
  echo "check-format: lines over 100 columns:" >&2
  echo "$long" >&2
  status=1
fi
((status == 0)) && echo "check-format: ${#files[@]} files clean"
exit $status
