#!/usr/bin/env bash
# The bad-input corpus (README.md in this folder): make the inputs into WORK_DIR, run every case
# of cases.tsv against the tools in BIN_DIR, print one line per failing case and a summary.
#   bash test/bad-inputs/run.sh BIN_DIR WORK_DIR [run.py options: -j N, -k REGEX, --keep]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 BIN_DIR WORK_DIR [-j N] [-k REGEX] [--keep]" >&2; exit 2; }
bin=$1 work=$2
shift 2
mkdir -p "$work"
rm -rf "$work/run"
python3 "$here/gen.py" "$(cd "$here/../.." && pwd)" "$work"
exec python3 "$here/run.py" "$bin" "$work" "$@"
